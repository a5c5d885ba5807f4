// The head view (after bertviz): one layer, every head at once. Query tokens on the left, key tokens on the right,
// one colour per head, each line as opaque as its weight; weights under the threshold are not drawn. Hovering,
// tapping or the arrow keys pick a token and show only its lines.

import { BOLD, FONT, layoutColumns, short } from './alignment.js';
// Tableau 10: told apart by people with the common colour-vision deficiencies, mostly.
export const HEAD_COLOURS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
  '#9c755f', '#bab0ac'];
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ');

export class HeadView {
  #canvas; #ctx; #readout;
  #data = null;     // { heads: [Float32Array rows x cols], rows, cols, rowLabels, colLabels, threshold, shown: [bool] }
  #layout = null;
  #pick = null;     // { side: 'query' | 'key', index }, under the pointer or else the kept one
  #kept = null;

  constructor(canvas, { readout } = {}) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext('2d');
    this.#readout = readout;
    canvas.addEventListener('pointermove', (e) => this.#pointer(e));
    canvas.addEventListener('pointerdown', (e) => this.#pointer(e, true));
    canvas.addEventListener('pointerleave', () => this.#setPick(this.#kept));
    canvas.addEventListener('keydown', (e) => this.#key(e));
  }

  reset() {
    this.#pick = this.#kept = null;
    if (this.#readout) this.#readout.textContent = '';
  }

  set(data) {
    this.#data = data;
    const fits = (p) => p && p.index < (p.side === 'query' ? data.rows : data.cols);
    if (!fits(this.#kept)) this.#kept = null;
    this.#pick = this.#kept;
    this.draw();
    this.#describe();
  }

  draw() {
    const d = this.#data;
    if (!d) return;
    const ctx = this.#ctx;
    const { x0, x1, yq, yk, accent, ink } = (this.#layout = layoutColumns(this.#canvas, ctx, d));

    const pick = this.#pick;
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
    Object.assign(this.#canvas.dataset, { lines, rows: d.rows, cols: d.cols, heads: d.heads.length, threshold: d.threshold,
      shownHeads: d.shown.map((s, h) => (s ? h : -1)).filter((h) => h >= 0).join(',') });

    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let i = 0; i < d.rows; i++) {
      const on = pick?.side === 'query' && pick.index === i;
      ctx.font = on ? BOLD : FONT;
      ctx.fillStyle = on ? accent : ink;
      ctx.fillText(short(d.rowLabels[i]), x0 - 6, yq(i));
    }
    ctx.textAlign = 'left';
    for (let j = 0; j < d.cols; j++) {
      const on = pick?.side === 'key' && pick.index === j;
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
      let best = 0;
      for (let k = 1; k < n; k++) if (Math.abs(pos(k) - y) < Math.abs(pos(best) - y)) best = k;
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
    let next;
    if (e.key === 'ArrowDown') next = { ...pick, index: Math.min(n - 1, pick.index + 1) };
    else if (e.key === 'ArrowUp') next = { ...pick, index: Math.max(0, pick.index - 1) };
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      const side = e.key === 'ArrowLeft' ? 'query' : 'key';
      next = { side, index: Math.min(Math.max(0, pick.index), (side === 'query' ? d.rows : d.cols) - 1) };
    } else if (e.key === 'Escape') next = null;
    else return;
    e.preventDefault();
    this.#kept = next;
    this.#setPick(next);
  }

  #setPick(pick) {
    if (JSON.stringify(pick) === JSON.stringify(this.#pick)) return;
    this.#pick = pick;
    this.draw();
    this.#describe();
  }

  // The readout: for the picked token, each shown head's strongest link.
  #describe() {
    const d = this.#data;
    const pick = this.#pick;
    if (!this.#readout || !d) return;
    if (!pick) { this.#readout.textContent = ''; return; }
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
    this.#readout.textContent = `${token} ${pick.side === 'query' ? '→' : '←'} ${parts.join(', ')}`;
  }
}
