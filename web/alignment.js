// The alignment view (bertviz-style): query tokens on the left, key tokens on the right, a line from each query to
// each key it attends to, as thick as the weight. Hovering (or arrow keys) picks one token and shows only its lines.

export const FONT = '13px system-ui, -apple-system, "Segoe UI", sans-serif';
export const BOLD = 'bold 13px system-ui, -apple-system, "Segoe UI", sans-serif';
const ROW = 22;
export const short = (s) => (s.length > 16 ? s.slice(0, 15) + '…' : s);

// The two columns both line views share (queries left, keys right, spread over the taller side): sizes the canvas
// for the labels and the screen, paints its background, and says where each token sits and which colours to use.
export function layoutColumns(c, ctx, d) {
  ctx.font = BOLD;
  const widest = (labels) => labels.reduce((m, s) => Math.max(m, ctx.measureText(short(s)).width), 0);
  const leftText = Math.ceil(widest(d.rowLabels)) + 8;
  const rightText = Math.ceil(widest(d.colLabels)) + 8;
  const avail = Math.max(260, Math.min(720, c.parentElement?.clientWidth || 600));
  const width = Math.max(avail, leftText + rightText + 120);
  const n = Math.max(d.rows, d.cols);
  const height = n * ROW + 16;
  const dpr = window.devicePixelRatio || 1;
  c.width = Math.round(width * dpr);
  c.height = Math.round(height * dpr);
  c.style.width = `${width}px`;
  c.style.height = `${height}px`;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const style = getComputedStyle(c);
  ctx.fillStyle = style.getPropertyValue('--canvas-bg').trim() || '#fff';
  ctx.fillRect(0, 0, width, height);
  return {
    x0: leftText + 4, x1: width - rightText - 4, width, height, avail, style,
    yq: (i) => 8 + (i + 0.5) * ROW * (n / d.rows),
    yk: (j) => 8 + (j + 0.5) * ROW * (n / d.cols),
    accent: style.getPropertyValue('--accent').trim() || '#d6336c',
    ink: style.getPropertyValue('--ink').trim() || '#222',
  };
}

export class Alignment {
  #canvas; #ctx; #readout;
  #data = null;     // { values, rows, cols, rowLabels, colLabels }
  #layout = null;
  #pick = null;     // shown now: { side: 'query' | 'key', index }, under the pointer or else the kept pick
  #kept = null;     // clicked, tapped or reached with the keyboard; stays when the pointer leaves

  constructor(canvas, { readout } = {}) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext('2d');
    this.#readout = readout;
    // A tap has no hover: pointerdown keeps the token it lands on (a second tap on it lets it go).
    canvas.addEventListener('pointermove', (e) => this.#pointer(e));
    canvas.addEventListener('pointerdown', (e) => this.#pointer(e, true));
    canvas.addEventListener('pointerleave', () => this.#setPick(this.#kept));
    canvas.addEventListener('keydown', (e) => this.#key(e));
  }

  get selected() { return this.#kept ? { ...this.#kept } : null; }

  // Forgets the pick and clears the readout (a new sentence, another model).
  reset() {
    this.#pick = this.#kept = null;
    if (this.#readout) this.#readout.textContent = '';
    this.draw();
  }

  set(data) {
    this.#data = data;
    this.#canvas.dataset.rows = data.rows;
    this.#canvas.dataset.cols = data.cols;
    this.#canvas.dataset.rowLabels = JSON.stringify(data.rowLabels);
    this.#canvas.dataset.colLabels = JSON.stringify(data.colLabels);
    const fits = (p) => p && p.index < (p.side === 'query' ? data.rows : data.cols);
    if (!fits(this.#kept)) this.#kept = null;
    // The kept pick holds across layers and heads, its readout worked out again from the new weights.
    this.#pick = this.#kept;
    this.draw();
    this.#describe();
  }

  draw() {
    const d = this.#data;
    if (!d) return;
    const ctx = this.#ctx;
    const L = (this.#layout = layoutColumns(this.#canvas, ctx, d));
    const { x0, x1, yq, yk, avail, accent, ink } = L;
    const lineRgb = L.style.getPropertyValue('--line-rgb').trim() || '49, 104, 142';

    const pick = this.#pick;
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

    Object.assign(this.#canvas.dataset, { crowded, lines });

    // Labels: a picked query marks the keys it attends to over half its largest weight, and vice versa.
    const marked = { query: new Set(), key: new Set() };
    if (pick) {
      marked[pick.side].add(pick.index);
      const other = pick.side === 'query' ? 'key' : 'query';
      const n = pick.side === 'query' ? d.cols : d.rows;
      const weight = (k) => (pick.side === 'query' ? d.values[pick.index * d.cols + k] : d.values[k * d.cols + pick.index]);
      let m = 0;
      for (let k = 0; k < n; k++) m = Math.max(m, weight(k));
      for (let k = 0; k < n; k++) if (m > 0 && weight(k) >= 0.5 * m) marked[other].add(k);
    }
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let i = 0; i < d.rows; i++) {
      const on = marked.query.has(i);
      ctx.font = on ? BOLD : FONT;
      ctx.fillStyle = on ? accent : ink;
      ctx.fillText(short(d.rowLabels[i]), x0 - 6, yq(i));
    }
    ctx.textAlign = 'left';
    for (let j = 0; j < d.cols; j++) {
      const on = marked.key.has(j);
      ctx.font = on ? BOLD : FONT;
      ctx.fillStyle = on ? accent : ink;
      ctx.fillText(short(d.colLabels[j]), x1 + 6, yk(j));
    }
  }

  #pointer(e, keep = false) {
    const L = this.#layout;
    const d = this.#data;
    if (!L || !d) return;
    const rect = this.#canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const nearest = (n, pos) => {
      let best = -1;
      for (let k = 0; k < n; k++) if (best < 0 || Math.abs(pos(k) - y) < Math.abs(pos(best) - y)) best = k;
      return best;
    };
    const at = x < (L.x0 + L.x1) / 2 ? { side: 'query', index: nearest(d.rows, L.yq) } : { side: 'key', index: nearest(d.cols, L.yk) };
    if (keep) this.#kept = JSON.stringify(at) === JSON.stringify(this.#kept) ? null : at;
    this.#setPick(keep ? this.#kept : at);
  }

  #key(e) {
    const d = this.#data;
    if (!d) return;
    const pick = this.#pick ?? { side: 'query', index: -1 };
    const n = pick.side === 'query' ? d.rows : d.cols;
    let next = null;
    if (e.key === 'ArrowDown') next = { ...pick, index: Math.min(n - 1, pick.index + 1) };
    else if (e.key === 'ArrowUp') next = { ...pick, index: Math.max(0, pick.index - 1) };
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      const side = e.key === 'ArrowLeft' ? 'query' : 'key';
      next = { side, index: Math.min(Math.max(0, pick.index), (side === 'query' ? d.rows : d.cols) - 1) };
    } else if (e.key === 'Escape') { this.#kept = null; this.#setPick(null); return; } else return;
    e.preventDefault();
    this.#kept = next;
    this.#setPick(next);
  }

  #setPick(pick) {
    const same = JSON.stringify(pick) === JSON.stringify(this.#pick);
    this.#pick = pick;
    if (same) return;
    this.draw();
    this.#describe();
  }

  #describe() {
    const d = this.#data;
    const pick = this.#pick;
    if (!this.#readout || !d) return;
    if (!pick) { this.#readout.textContent = ''; return; }
    if (pick.side === 'query') {
      const row = Array.from(d.values.subarray(pick.index * d.cols, (pick.index + 1) * d.cols));
      const top = row.map((w, j) => [w, j]).sort((a, b) => b[0] - a[0]).slice(0, 3);
      this.#readout.textContent = `${d.rowLabels[pick.index]} → ${top.map(([w, j]) => `${d.colLabels[j]} ${w.toFixed(2)}`).join(', ')}`;
    } else {
      const col = Array.from({ length: d.rows }, (_, i) => d.values[i * d.cols + pick.index]);
      const top = col.map((w, i) => [w, i]).sort((a, b) => b[0] - a[0]).slice(0, 3);
      this.#readout.textContent = `${d.colLabels[pick.index]} ← ${top.map(([w, i]) => `${d.rowLabels[i]} ${w.toFixed(2)}`).join(', ')}`;
    }
  }
}
