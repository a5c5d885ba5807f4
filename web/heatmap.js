// Attention heatmaps on a canvas: labelled rows (queries) and columns (keys), a colour legend, hover and keyboard
// highlighting of a row/column with a tooltip, and the small unlabelled panels of the "all heads" grid.

// Viridis: perceptually even and readable in grey; dark is 0, yellow is the largest weight.
const VIRIDIS = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b',
  '#fde725'].map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));

export function colour(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const a = VIRIDIS[i];
  const b = VIRIDIS[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f));
}

export const css = ([r, g, b]) => `rgb(${r},${g},${b})`;

export function maxOf(values) {
  let m = 0;
  for (const v of values) if (v > m) m = v;
  return m > 0 ? m : 1;
}

// A horizontal colour bar from 0 to max, with ticks.
export function renderLegend(element, max, caption = 'attention weight') {
  const stops = Array.from({ length: 11 }, (_, i) => `${css(colour(i / 10))} ${i * 10}%`).join(', ');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => `<span>${(f * max).toFixed(2)}</span>`).join('');
  element.innerHTML = `<div class="legend-caption">${caption}</div>
    <div class="legend-bar" style="background: linear-gradient(to right, ${stops})"></div>
    <div class="legend-ticks">${ticks}</div>`;
}

const FONT = '12px system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Zen Hei", sans-serif';
const BOLD = 'bold 12px system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Zen Hei", sans-serif';
const short = (s) => (s.length > 14 ? s.slice(0, 13) + '…' : s);

export class Heatmap {
  #canvas; #ctx; #tooltip; #readout; #onHover; #onPick;
  #data = null;        // { values, rows, cols, rowLabels, colLabels, max }
  #layout = null;      // { left, top, cell, width, height }
  #hover = { row: -1, col: -1 };   // shown now: under the pointer, or else the pick
  #pick = { row: -1, col: -1 };    // clicked, tapped or reached with the keyboard; stays when the pointer leaves
  #at = { x: 0, y: 0 };            // where the tooltip points
  #external = { rows: [], cols: [] };  // set by the page (hovering an output word)

  // onHover(row, col): what is shown changed; onPick(row, col): the pick changed (by pointer or keyboard).
  constructor(canvas, { tooltip, readout, onHover, onPick } = {}) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext('2d');
    this.#tooltip = tooltip;
    this.#readout = readout;
    this.#onHover = onHover;
    this.#onPick = onPick;
    // A tap has no hover: pointerdown picks (mouse, pen and touch alike), and the pick shows until the next one.
    canvas.addEventListener('pointermove', (e) => this.#pointer(e));
    canvas.addEventListener('pointerdown', (e) => this.#pointer(e, true));
    canvas.addEventListener('pointerleave', () => this.#showPick());
    canvas.addEventListener('keydown', (e) => this.#key(e));
  }

  // What is picked (row and/or column, -1 for none).
  get selected() { return { ...this.#pick }; }

  // Forgets the pick and clears the tooltip and the readout (a new sentence, another model).
  reset() {
    this.#pick = { row: -1, col: -1 };
    this.#hover = { row: -1, col: -1 };
    if (this.#tooltip) { this.#tooltip.hidden = true; this.#tooltip.textContent = ''; }
    if (this.#readout) this.#readout.textContent = '';
    this.draw();
  }

  // values: Float32Array rows x cols (row-major).
  set(data) {
    this.#data = { ...data, max: data.max ?? maxOf(data.values) };
    const c = this.#canvas;
    c.dataset.rows = data.rows;
    c.dataset.cols = data.cols;
    c.dataset.rowLabels = JSON.stringify(data.rowLabels);
    c.dataset.colLabels = JSON.stringify(data.colLabels);
    // What each row of the map shown adds up to (1 for attention, a mean of it, or its rollout), for tools and tests.
    c.dataset.rowSums = JSON.stringify(Array.from({ length: data.rows }, (_, r) => {
      let sum = 0;
      for (let k = 0; k < data.cols; k++) sum += data.values[r * data.cols + k];
      return Number(sum.toFixed(5));
    }));
    c.dataset.title = data.title ?? '';
    c.setAttribute('aria-label', `${data.title || 'attention'}: ${data.rows} query tokens (rows) by ${data.cols} key tokens (columns)`);
    if (this.#pick.row >= data.rows || this.#pick.col >= data.cols) this.#pick = { row: -1, col: -1 };
    // The pick holds across layers and heads: its tooltip, readout and marks are worked out again from the new
    // weights rather than left over from the old ones.
    this.#hover = { ...this.#pick };
    this.draw();
    this.#describe(true);
  }

  get max() { return this.#data?.max ?? 1; }

  highlight({ rows = [], cols = [] } = {}) {
    this.#external = { rows, cols };
    this.draw();
  }

  #measure() {
    const d = this.#data;
    const ctx = this.#ctx;
    ctx.font = BOLD;
    const widest = (labels) => labels.reduce((m, s) => Math.max(m, ctx.measureText(short(s)).width), 0);
    const left = Math.ceil(widest(d.rowLabels)) + 12;
    const top = Math.ceil(widest(d.colLabels)) + 12;
    const avail = (this.#canvas.parentElement?.clientWidth || 600) - left - 8;
    const cell = Math.max(14, Math.min(34, Math.floor(avail / Math.max(1, d.cols))));
    return { left, top, cell, width: left + cell * d.cols + 4, height: top + cell * d.rows + 4 };
  }

  draw() {
    const d = this.#data;
    if (!d) return;
    const L = (this.#layout = this.#measure());
    const dpr = window.devicePixelRatio || 1;
    const c = this.#canvas;
    c.width = Math.round(L.width * dpr);
    c.height = Math.round(L.height * dpr);
    c.style.width = `${L.width}px`;
    c.style.height = `${L.height}px`;
    // Where the cells are (CSS pixels), for tests and tools that read the picture.
    Object.assign(c.dataset, { cell: L.cell, gridLeft: L.left, gridTop: L.top });
    const ctx = this.#ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = getComputedStyle(c).getPropertyValue('--canvas-bg').trim() || '#fff';
    ctx.fillRect(0, 0, L.width, L.height);

    for (let r = 0; r < d.rows; r++) {
      for (let k = 0; k < d.cols; k++) {
        ctx.fillStyle = css(colour(d.values[r * d.cols + k] / d.max));
        ctx.fillRect(L.left + k * L.cell, L.top + r * L.cell, L.cell, L.cell);
      }
    }

    const { row, col } = this.#hover;
    const rows = new Set([...this.#external.rows, ...(row >= 0 ? [row] : [])]);
    const cols = new Set([...this.#external.cols, ...(col >= 0 ? [col] : [])]);
    // The keys the hovered row attends to most (over half its largest weight) get their labels marked too.
    const strong = new Set();
    if (row >= 0 && col < 0) {
      let m = 0;
      for (let k = 0; k < d.cols; k++) m = Math.max(m, d.values[row * d.cols + k]);
      for (let k = 0; k < d.cols; k++) if (d.values[row * d.cols + k] >= 0.5 * m) strong.add(k);
    }
    const accent = getComputedStyle(c).getPropertyValue('--accent').trim() || '#d6336c';
    const ink = getComputedStyle(c).getPropertyValue('--ink').trim() || '#222';
    ctx.lineWidth = 2;
    ctx.strokeStyle = accent;
    for (const r of rows) ctx.strokeRect(L.left + 1, L.top + r * L.cell + 1, d.cols * L.cell - 2, L.cell - 2);
    for (const k of cols) ctx.strokeRect(L.left + k * L.cell + 1, L.top + 1, L.cell - 2, d.rows * L.cell - 2);
    for (const k of strong) ctx.strokeRect(L.left + k * L.cell + 1, L.top + row * L.cell + 1, L.cell - 2, L.cell - 2);

    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let r = 0; r < d.rows; r++) {
      const on = rows.has(r);
      ctx.font = on ? BOLD : FONT;
      ctx.fillStyle = on ? accent : ink;
      ctx.fillText(short(d.rowLabels[r]), L.left - 6, L.top + (r + 0.5) * L.cell);
    }
    ctx.textAlign = 'left';
    for (let k = 0; k < d.cols; k++) {
      const on = cols.has(k) || strong.has(k);
      ctx.save();
      ctx.translate(L.left + (k + 0.5) * L.cell, L.top - 6);
      ctx.rotate(-Math.PI / 2);
      ctx.font = on ? BOLD : FONT;
      ctx.fillStyle = on ? accent : ink;
      ctx.fillText(short(d.colLabels[k]), 0, 0);
      ctx.restore();
    }
  }

  #pointer(e, pick = false) {
    const L = this.#layout;
    const d = this.#data;
    if (!L || !d) return;
    const rect = this.#canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const col = Math.floor((x - L.left) / L.cell);
    const row = Math.floor((y - L.top) / L.cell);
    const inCols = col >= 0 && col < d.cols;
    const inRows = row >= 0 && row < d.rows;
    let at = [-1, -1];
    if (inRows && inCols) at = [row, col];
    else if (inRows && x < L.left) at = [row, -1];      // a row label: the whole row
    else if (inCols && y < L.top) at = [-1, col];       // a column label: the whole column
    if (pick) {
      // Picking the picked cell again lets it go.
      const again = at[0] === this.#pick.row && at[1] === this.#pick.col;
      this.#pick = again ? { row: -1, col: -1 } : { row: at[0], col: at[1] };
      this.#onPick?.(this.#pick.row, this.#pick.col);
      if (again) { this.#showPick(); return; }
    }
    if (at[0] < 0 && at[1] < 0) this.#showPick();
    else this.#setHover(at[0], at[1], x, y);
  }

  #showPick() {
    const L = this.#layout;
    const { row, col } = this.#pick;
    if (!L || (row < 0 && col < 0)) { this.#setHover(-1, -1); return; }
    this.#setHover(row, col, L.left + (Math.max(0, col) + 1) * L.cell, L.top + (Math.max(0, row) + 1) * L.cell);
  }

  #key(e) {
    const d = this.#data;
    if (!d) return;
    let { row, col } = this.#hover;
    if (row < 0 || col < 0) { row = Math.max(0, row); col = Math.max(0, col); }
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (e.key === 'Escape') { this.#pick = { row: -1, col: -1 }; this.#onPick?.(-1, -1); this.#setHover(-1, -1); return; }
    if (!moves[e.key] && !(this.#hover.row < 0 && (e.key === 'Enter' || e.key === ' '))) return;
    e.preventDefault();
    const [dr, dc] = moves[e.key] ?? [0, 0];
    if (this.#hover.row >= 0 && this.#hover.col >= 0) {
      row = Math.min(d.rows - 1, Math.max(0, row + dr));
      col = Math.min(d.cols - 1, Math.max(0, col + dc));
    }
    this.#pick = { row, col };
    this.#onPick?.(row, col);
    this.#showPick();
  }

  #setHover(row, col, x = 0, y = 0) {
    const same = row === this.#hover.row && col === this.#hover.col;
    this.#hover = { row, col };
    this.#at = { x, y };
    if (!same) this.draw();
    this.#describe(!same);
  }

  // The tooltip and the readout for what is shown; notify: tell the page (onHover) too.
  #describe(notify) {
    const d = this.#data;
    const { row, col } = this.#hover;
    const { x, y } = this.#at;
    let text = '';
    if (d && row >= 0 && col >= 0) {
      text = `${d.rowLabels[row]} → ${d.colLabels[col]}: ${d.values[row * d.cols + col].toFixed(3)}`;
    } else if (d && row >= 0) {
      let best = 0;
      for (let k = 1; k < d.cols; k++) if (d.values[row * d.cols + k] > d.values[row * d.cols + best]) best = k;
      text = `${d.rowLabels[row]} attends most to ${d.colLabels[best]} (${d.values[row * d.cols + best].toFixed(3)})`;
    } else if (d && col >= 0) {
      let sum = 0;
      for (let r = 0; r < d.rows; r++) sum += d.values[r * d.cols + col];
      text = `${d.colLabels[col]}: total weight ${sum.toFixed(3)} over ${d.rows} queries`;
    }
    if (this.#tooltip) {
      this.#tooltip.hidden = !text;
      this.#tooltip.textContent = text;
      if (text) {
        const maxLeft = Math.max(0, this.#canvas.offsetLeft + this.#canvas.offsetWidth - 200);
        this.#tooltip.style.left = `${Math.min(this.#canvas.offsetLeft + x + 12, maxLeft)}px`;
        this.#tooltip.style.top = `${this.#canvas.offsetTop + y + 14}px`;
      }
    }
    if (this.#readout) this.#readout.textContent = text;
    if (notify) this.#onHover?.(row, col);
  }
}

// One small panel of the all-heads grid: one pixel block per weight, no labels (the grid says which is which).
export function drawPanel(canvas, values, rows, cols, max) {
  const scale = Math.max(2, Math.min(8, Math.floor(96 / Math.max(rows, cols))));
  canvas.width = cols * scale;
  canvas.height = rows * scale;
  const ctx = canvas.getContext('2d');
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < cols; k++) {
      ctx.fillStyle = css(colour(values[r * cols + k] / max));
      ctx.fillRect(k * scale, r * scale, scale, scale);
    }
  }
}
