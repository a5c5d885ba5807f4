// Two columns of tokens joined by lines (bertviz-style): queries on the left, keys on the right. This module owns
// what the alignment view and the head view share: the layout, the labels, and picking a token by pointer, tap or
// keyboard. A view says which lines to draw, which labels to mark and what the readout says.

export const FONT = '13px system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Zen Hei", sans-serif';
export const BOLD = 'bold 13px system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Zen Hei", sans-serif';
const ROW = 22;
export const short = (s) => (s.length > 16 ? s.slice(0, 15) + '…' : s);

// Sizes the canvas for the labels and the screen (the columns spread over the taller side), paints its
// background, and says where each token sits and which colours to use.
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

// A view over two token columns. Subclasses give
//   paint(ctx, layout, data, pick) -> facts   draws the lines; the facts land on the canvas's data attributes
//   marked(data, pick) -> { query, key }      Sets of token indices whose labels are marked (default: the pick)
//   readout(data, pick) -> string             what the readout says of the pick (called only with one)
// `data` holds at least { rows, cols, rowLabels, colLabels }; a pick is { side: 'query' | 'key', index }.
export class TokenColumns {
  #canvas; #ctx; #readout;
  #data = null;
  #layout = null;
  #pick = null;     // shown now: under the pointer, or else the kept pick
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
    Object.assign(this.#canvas.dataset, { rows: data.rows, cols: data.cols,
      rowLabels: JSON.stringify(data.rowLabels), colLabels: JSON.stringify(data.colLabels) });
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
    Object.assign(this.#canvas.dataset, this.paint(ctx, L, d, this.#pick));
    const marked = this.marked(d, this.#pick);
    const label = (on, text, x, y) => {
      ctx.font = on ? BOLD : FONT;
      ctx.fillStyle = on ? L.accent : L.ink;
      ctx.fillText(short(text), x, y);
    };
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let i = 0; i < d.rows; i++) label(marked.query.has(i), d.rowLabels[i], L.x0 - 6, L.yq(i));
    ctx.textAlign = 'left';
    for (let j = 0; j < d.cols; j++) label(marked.key.has(j), d.colLabels[j], L.x1 + 6, L.yk(j));
  }

  marked(d, pick) {
    const marked = { query: new Set(), key: new Set() };
    if (pick) marked[pick.side].add(pick.index);
    return marked;
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

  #describe() {
    if (!this.#readout || !this.#data) return;
    this.#readout.textContent = this.#pick ? this.readout(this.#data, this.#pick) : '';
  }
}
