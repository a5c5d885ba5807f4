// The alignment view: one head's weights as lines from each query token to each key it attends to, as thick as the
// weight. Picking a token shows its lines over the others and marks the tokens it attends to most.

import { TokenColumns } from './columns.js';

export class Alignment extends TokenColumns {
  // data: { values: Float32Array rows x cols, rows, cols, rowLabels, colLabels }
  paint(ctx, L, d, pick) {
    const { x0, x1, yq, yk, avail } = L;
    const lineRgb = L.style.getPropertyValue('--line-rgb').trim() || '49, 104, 142';
    const shown = (i, j) => !pick || (pick.side === 'query' ? pick.index === i : pick.index === j);
    // A picked token's lines are drawn over the others, darker by their share of its largest weight.
    let pickMax = 0;
    if (pick) for (let i = 0; i < d.rows; i++) for (let j = 0; j < d.cols; j++) if (shown(i, j)) pickMax = Math.max(pickMax, d.values[i * d.cols + j]);
    // A long sentence on a narrow screen would be a thicket of lines: there only the strong links are drawn, thin,
    // and a picked token's lines alone.
    const crowded = d.rows * d.cols > 24 * 24 || (avail < 560 && d.rows * d.cols > 14 * 14);
    const least = crowded && !pick ? 0.25 : 0.02;
    let lines = 0;
    ctx.lineCap = 'round';
    for (const pass of pick && !crowded ? [false, true] : [true]) {
      for (let i = 0; i < d.rows; i++) {
        for (let j = 0; j < d.cols; j++) {
          const w = d.values[i * d.cols + j];
          const on = shown(i, j);
          if (w < least || on !== pass) continue;
          lines++;
          const alpha = !pick ? 0.25 + 0.75 * w : on ? 0.3 + 0.7 * (w / pickMax) : 0.05;
          ctx.strokeStyle = `rgba(${lineRgb}, ${alpha})`;
          ctx.lineWidth = crowded ? 0.5 + 4 * w : 0.75 + 9 * w;
          ctx.beginPath();
          ctx.moveTo(x0, yq(i));
          ctx.lineTo(x1, yk(j));
          ctx.stroke();
        }
      }
    }
    return { crowded, lines };
  }

  // A picked query marks the keys it attends to over half its largest weight, and vice versa.
  marked(d, pick) {
    const marked = super.marked(d, pick);
    if (!pick) return marked;
    const other = pick.side === 'query' ? 'key' : 'query';
    const n = pick.side === 'query' ? d.cols : d.rows;
    const weight = (k) => (pick.side === 'query' ? d.values[pick.index * d.cols + k] : d.values[k * d.cols + pick.index]);
    let m = 0;
    for (let k = 0; k < n; k++) m = Math.max(m, weight(k));
    for (let k = 0; k < n; k++) if (m > 0 && weight(k) >= 0.5 * m) marked[other].add(k);
    return marked;
  }

  // The picked token's three strongest links.
  readout(d, pick) {
    if (pick.side === 'query') {
      const row = Array.from(d.values.subarray(pick.index * d.cols, (pick.index + 1) * d.cols));
      const top = row.map((w, j) => [w, j]).sort((a, b) => b[0] - a[0]).slice(0, 3);
      return `${d.rowLabels[pick.index]} → ${top.map(([w, j]) => `${d.colLabels[j]} ${w.toFixed(2)}`).join(', ')}`;
    }
    const col = Array.from({ length: d.rows }, (_, i) => d.values[i * d.cols + pick.index]);
    const top = col.map((w, i) => [w, i]).sort((a, b) => b[0] - a[0]).slice(0, 3);
    return `${d.colLabels[pick.index]} ← ${top.map(([w, i]) => `${d.rowLabels[i]} ${w.toFixed(2)}`).join(', ')}`;
  }
}
