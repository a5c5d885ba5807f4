// A numeric matrix as a heatmap on a canvas, for the attention lab: axis captions, a few tick labels, a colour
// scale from the smallest to the largest value (signed values such as positional encodings included), and a
// readout of the cell under the pointer or the keyboard cursor (focus the canvas, then the arrow keys).
import { colour, css } from './heatmap.js';

const FONT = '12px system-ui, -apple-system, "Segoe UI", sans-serif';

export class MatrixView {
  #canvas; #ctx; #readout; #opts;
  #data = null;
  #layout = null;
  #cursor = { row: -1, col: -1 };

  // options: { readout (element), xLabel, yLabel, rowName(i), colName(j), format(v), maxCell, maxHeight,
  // firstTick (the number of the first row and column: 0 like the seeds' plots, or 1 like a table beside it) }
  constructor(canvas, options = {}) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext('2d');
    this.#readout = options.readout;
    this.#opts = {
      rowName: (i) => `row ${i + 1}`, colName: (j) => `column ${j + 1}`, format: (v) => v.toFixed(3),
      maxCell: 28, maxHeight: 420, firstTick: 0, ...options,
    };
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    canvas.addEventListener('pointermove', (e) => this.#pointer(e));
    canvas.addEventListener('pointerleave', () => this.#move(-1, -1));
    canvas.addEventListener('keydown', (e) => this.#key(e));
  }

  // values: rows x cols, row-major. min/max default to the data's range (0..max for non-negative data).
  set({ values, rows, cols, min, max, title = 'matrix' }) {
    let lo = Infinity, hi = -Infinity;
    for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
    lo = min ?? Math.min(0, lo);
    hi = max ?? hi;
    if (!(hi > lo)) hi = lo + 1;
    this.#data = { values, rows, cols, min: lo, max: hi };
    if (this.#cursor.row >= rows || this.#cursor.col >= cols) this.#cursor = { row: -1, col: -1 };
    Object.assign(this.#canvas.dataset, { rows, cols, min: lo, max: hi });
    this.#canvas.setAttribute('aria-label', `${title}: ${rows} rows by ${cols} columns; focus and use the arrow keys to read values`);
    this.draw();
  }

  get range() { return this.#data ? [this.#data.min, this.#data.max] : [0, 1]; }

  draw() {
    const d = this.#data;
    if (!d) return;
    const o = this.#opts;
    const left = 46, top = 8, bottom = 40;
    const avail = Math.max(120, (this.#canvas.parentElement?.clientWidth || 500) - left - 10);
    const cellW = Math.max(1, Math.min(o.maxCell, avail / d.cols));
    const cellH = Math.max(1, Math.min(o.maxCell, cellW * 1.0, o.maxHeight / d.rows));
    // A narrow or short matrix (a few columns or rows) still gets room for its axis captions, whole.
    this.#ctx.font = FONT;
    const xText = o.xLabel ? this.#ctx.measureText(o.xLabel).width : 0;
    const yText = o.yLabel ? this.#ctx.measureText(o.yLabel).width : 0;
    const width = Math.ceil(Math.max(left + cellW * d.cols + 10, xText + 8));
    const height = Math.ceil(Math.max(top + cellH * d.rows + bottom, yText + 8));
    this.#layout = { left, top, cellW, cellH };
    const dpr = window.devicePixelRatio || 1;
    const c = this.#canvas;
    c.width = Math.round(width * dpr);
    c.height = Math.round(height * dpr);
    c.style.width = `${width}px`;
    c.style.height = `${height}px`;
    Object.assign(c.dataset, { cellW, cellH, gridLeft: left, gridTop: top });
    const ctx = this.#ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);
    // Cell edges on whole pixels, so that fractional cell sizes leave no seams.
    const xs = Array.from({ length: d.cols + 1 }, (_, k) => Math.round(left + k * cellW));
    const ys = Array.from({ length: d.rows + 1 }, (_, r) => Math.round(top + r * cellH));
    for (let r = 0; r < d.rows; r++) {
      for (let k = 0; k < d.cols; k++) {
        ctx.fillStyle = css(colour((d.values[r * d.cols + k] - d.min) / (d.max - d.min)));
        ctx.fillRect(xs[k], ys[r], xs[k + 1] - xs[k], ys[r + 1] - ys[r]);
      }
    }
    const { row, col } = this.#cursor;
    if (row >= 0 && col >= 0) {
      ctx.lineWidth = 2;
      ctx.strokeStyle = '#c2255c';
      ctx.strokeRect(left + col * cellW - 1, top + row * cellH - 1, cellW + 2, cellH + 2);
    }
    // Ticks at round steps (1, 2, 5, 10, 20, 50, …) far enough apart that the widest label fits between two.
    ctx.fillStyle = '#1f2328';
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    const base = o.firstTick;
    const every = (px, room) => {
      for (const m of [1, 10, 100, 1000, 10000]) for (const f of [1, 2, 5]) if (f * m * px >= room) return f * m;
      return 100000;
    };
    const rStep = every(cellH, 16);
    for (let r = 0; r < d.rows; r += rStep) ctx.fillText(String(r + base), left - 4, top + (r + 0.5) * cellH);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const cStep = every(cellW, ctx.measureText(String(d.cols - 1 + base)).width + 10);
    for (let k = 0; k < d.cols; k += cStep) ctx.fillText(String(k + base), left + (k + 0.5) * cellW, top + d.rows * cellH + 3);
    Object.assign(c.dataset, { rowTickStep: rStep, colTickStep: cStep, firstTick: base });
    ctx.fillStyle = '#59636e';
    // Centred under the grid where it fits there, else as near as the canvas allows; the y caption likewise.
    const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
    const xMid = clamp(left + (d.cols * cellW) / 2, xText / 2 + 4, width - xText / 2 - 4);
    const yMid = clamp(top + (d.rows * cellH) / 2, yText / 2 + 4, height - yText / 2 - 4);
    Object.assign(c.dataset, { xLabelLeft: xMid - xText / 2, xLabelRight: xMid + xText / 2,
      yLabelTop: yMid - yText / 2, yLabelBottom: yMid + yText / 2 });
    if (o.xLabel) ctx.fillText(o.xLabel, xMid, top + d.rows * cellH + 20);
    if (o.yLabel) {
      ctx.save();
      ctx.translate(12, yMid);
      ctx.rotate(-Math.PI / 2);
      ctx.textBaseline = 'middle';
      ctx.fillText(o.yLabel, 0, 0);
      ctx.restore();
    }
  }

  #pointer(e) {
    const L = this.#layout;
    const d = this.#data;
    if (!L || !d) return;
    const rect = this.#canvas.getBoundingClientRect();
    const col = Math.floor((e.clientX - rect.left - L.left) / L.cellW);
    const row = Math.floor((e.clientY - rect.top - L.top) / L.cellH);
    if (row >= 0 && row < d.rows && col >= 0 && col < d.cols) this.#move(row, col);
    else this.#move(-1, -1);
  }

  #key(e) {
    const d = this.#data;
    if (!d) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -1e9], End: [0, 1e9] };
    if (e.key === 'Escape') { this.#move(-1, -1); return; }
    if (!moves[e.key]) return;
    e.preventDefault();
    let { row, col } = this.#cursor;
    if (row < 0) { this.#move(0, 0); return; }
    const [dr, dc] = moves[e.key];
    row = Math.min(d.rows - 1, Math.max(0, row + dr));
    col = Math.min(d.cols - 1, Math.max(0, col + dc));
    this.#move(row, col);
  }

  #move(row, col) {
    const d = this.#data;
    if (row === this.#cursor.row && col === this.#cursor.col) return;
    this.#cursor = { row, col };
    this.draw();
    if (this.#readout && d && row >= 0) {
      const o = this.#opts;
      this.#readout.textContent = `${o.rowName(row)}, ${o.colName(col)}: ${o.format(d.values[row * d.cols + col])}`;
    }
  }
}

// A colour bar from min to max with five ticks (HTML, under a map).
export function renderScale(element, min, max, caption) {
  const stops = Array.from({ length: 11 }, (_, i) => `${css(colour(i / 10))} ${i * 10}%`).join(', ');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => `<span>${(min + f * (max - min)).toFixed(2)}</span>`).join('');
  element.innerHTML = `<div class="legend-caption">${caption}</div>
    <div class="legend-bar" style="background: linear-gradient(to right, ${stops})"></div>
    <div class="legend-ticks">${ticks}</div>`;
}
