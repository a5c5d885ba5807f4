// The head view (after bertviz): one layer, every head at once, one colour per head, each line as opaque as its
// weight; weights under the threshold are not drawn. Picking a token shows only its lines.

import { TokenColumns } from './columns.js';

// Tableau 10: told apart by people with the common colour-vision deficiencies, mostly.
export const HEAD_COLOURS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
  '#9c755f', '#bab0ac'];
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ');

export class HeadView extends TokenColumns {
  // data: { heads: [Float32Array rows x cols], rows, cols, rowLabels, colLabels, threshold, shown: [bool] }
  paint(ctx, L, d, pick) {
    const { x0, x1, yq, yk } = L;
    const shown = (i, j) => !pick || (pick.side === 'query' ? pick.index === i : pick.index === j);
    let lines = 0;
    ctx.lineCap = 'round';
    ctx.lineWidth = 2;
    d.heads.forEach((values, h) => {
      if (!d.shown[h]) return;
      const colour = rgb(HEAD_COLOURS[h % HEAD_COLOURS.length]);
      // Heads side by side a little apart, so that lines of different heads between the same tokens both show.
      const dy = (h - (d.heads.length - 1) / 2) * 1.5;
      for (let i = 0; i < d.rows; i++) {
        for (let j = 0; j < d.cols; j++) {
          const w = values[i * d.cols + j];
          if (!(w >= d.threshold) || w <= 0 || !shown(i, j)) continue;
          lines++;
          ctx.strokeStyle = `rgba(${colour}, ${Math.min(1, w).toFixed(3)})`;
          ctx.beginPath();
          ctx.moveTo(x0, yq(i) + dy);
          ctx.lineTo(x1, yk(j) + dy);
          ctx.stroke();
        }
      }
    });
    return { lines, heads: d.heads.length, threshold: d.threshold,
      shownHeads: d.shown.map((s, h) => (s ? h : -1)).filter((h) => h >= 0).join(',') };
  }

  // For the picked token, each shown head's strongest link.
  readout(d, pick) {
    const parts = [];
    d.heads.forEach((values, h) => {
      if (!d.shown[h]) return;
      const other = pick.side === 'query' ? d.cols : d.rows;
      let best = 0;
      const w = (k) => (pick.side === 'query' ? values[pick.index * d.cols + k] : values[k * d.cols + pick.index]);
      for (let k = 1; k < other; k++) if (w(k) > w(best)) best = k;
      const label = pick.side === 'query' ? d.colLabels[best] : d.rowLabels[best];
      parts.push(`head ${h + 1}: ${label} ${w(best).toFixed(2)}`);
    });
    const token = pick.side === 'query' ? d.rowLabels[pick.index] : d.colLabels[pick.index];
    return `${token} ${pick.side === 'query' ? '→' : '←'} ${parts.join(', ')}`;
  }
}
