// The neuron view (after bertviz): for one layer, one head, one kind of attention and one query token, the query
// vector q, each key's vector k, their elementwise product q∘k (whose sum is q·k), the score q·k/√d before the
// softmax and the weight after it. Bars: one per dimension, up for positive, down for negative, on one scale per
// kind of bar. The numbers come from the core's query and key vectors (translate with neurons: true) through
// neuronView() of attend.js.

import { neuronView } from '../wasm/attend.js';

const SVG = 'http://www.w3.org/2000/svg';
const BAR_W = 3;      // px per dimension
const BAR_H = 26;     // px of the picture, half up and half down

// values as bars in an SVG: positive up (blue), negative down (orange), |value| = max fills half the height.
function bars(values, max, label) {
  const svg = document.createElementNS(SVG, 'svg');
  const width = values.length * BAR_W;
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(BAR_H));
  svg.setAttribute('viewBox', `0 0 ${width} ${BAR_H}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.classList.add('neuron-bars');
  const mid = BAR_H / 2;
  const axis = document.createElementNS(SVG, 'line');
  axis.setAttribute('x1', '0');
  axis.setAttribute('x2', String(width));
  axis.setAttribute('y1', String(mid));
  axis.setAttribute('y2', String(mid));
  axis.setAttribute('class', 'axis');
  svg.append(axis);
  values.forEach((v, d) => {
    const h = max > 0 ? Math.min(1, Math.abs(v) / max) * (mid - 1) : 0;
    if (h < 0.25) return;
    const rect = document.createElementNS(SVG, 'rect');
    rect.setAttribute('x', String(d * BAR_W));
    rect.setAttribute('width', String(BAR_W - 0.5));
    rect.setAttribute('y', String(v >= 0 ? mid - h : mid));
    rect.setAttribute('height', String(h));
    rect.setAttribute('class', v >= 0 ? 'pos' : 'neg');
    svg.append(rect);
  });
  return svg;
}

const maxAbs = (arrays) => arrays.reduce((m, a) => a.reduce((n, v) => Math.max(n, Math.abs(v)), m), 0);

export class NeuronPanel {
  // queries: the element of the query-token buttons; rows: the element the key rows go in; readout: a line of text.
  constructor({ queries, query, rows, readout, onPick }) {
    Object.assign(this, { queriesBox: queries, queryBox: query, rowsBox: rows, readoutBox: readout, onPick });
    this.query = 0;
    queries.addEventListener('keydown', (e) => {
      const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -Infinity, End: Infinity };
      if (!(e.key in moves) || !this.data) return;
      e.preventDefault();
      const n = this.data.queryLabels.length;
      const next = Math.max(0, Math.min(n - 1, this.query + moves[e.key]));
      this.pick(next, true);
    });
  }

  reset() {
    this.data = null;
    this.queriesBox.replaceChildren();
    this.queryBox.replaceChildren();
    this.rowsBox.replaceChildren();
    this.readoutBox.textContent = '';
  }

  // data: { neurons, kind, layer, head, queryLabels, keyLabels, map (Float32Array queries x keys: the attention
  // map the heatmap shows for this layer and head) }
  set(data) {
    this.data = data;
    this.query = Math.min(this.query, data.queryLabels.length - 1);
    this.queriesBox.replaceChildren(...data.queryLabels.map((label, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'word neuron-query';
      b.textContent = label;
      b.setAttribute('role', 'radio');
      b.dataset.index = String(i);
      b.addEventListener('click', () => this.pick(i, false));
      return b;
    }));
    this.render();
  }

  pick(index, focus) {
    this.query = index;
    this.render();
    if (focus) this.queriesBox.children[index]?.focus();
    this.onPick?.(index);
  }

  render() {
    const d = this.data;
    if (!d) return;
    [...this.queriesBox.children].forEach((b, i) => {
      const on = i === this.query;
      b.setAttribute('aria-checked', String(on));
      b.tabIndex = on ? 0 : -1;
      b.classList.toggle('active', on);
    });
    const view = neuronView(d.neurons, { kind: d.kind, layer: d.layer, head: d.head, query: this.query });
    // Every row's bars in columns of one width, the header's too.
    for (const box of [this.queryBox, this.rowsBox]) box.style.setProperty('--bars', `${view.dim * BAR_W}px`);
    const kMax = maxAbs(view.rows.map((r) => r.k).concat([view.q]));
    const pMax = maxAbs(view.rows.map((r) => r.product));
    const queryLabel = d.queryLabels[this.query];
    const q = document.createElement('div');
    q.className = 'neuron-row neuron-q';
    const qName = document.createElement('span');
    qName.className = 'neuron-token';
    qName.textContent = `q: ${queryLabel}`;
    q.append(qName, bars(view.q, kMax, `query vector of ${queryLabel}, ${view.dim} dimensions`));
    this.queryBox.replaceChildren(q);

    const head = document.createElement('div');
    head.className = 'neuron-row neuron-head';
    for (const text of ['key', 'k', 'q∘k', 'q·k/√d', 'weight']) {
      const s = document.createElement('span');
      s.textContent = text;
      head.append(s);
    }
    const rows = view.rows.map((r) => {
      const row = document.createElement('div');
      row.className = 'neuron-row';
      row.dataset.key = String(r.key);
      row.dataset.score = String(r.score);
      row.dataset.weight = String(r.weight);
      row.dataset.masked = String(r.masked);
      row.dataset.products = JSON.stringify(r.product);
      row.dataset.mapWeight = String(d.map[this.query * d.keyLabels.length + r.key]);
      const name = document.createElement('span');
      name.className = 'neuron-token';
      name.textContent = d.keyLabels[r.key];
      const score = document.createElement('span');
      score.className = 'neuron-score';
      const weight = document.createElement('span');
      weight.className = 'neuron-weight';
      if (r.masked) {
        row.classList.add('masked');
        score.textContent = '—';
        weight.textContent = 'later';
        weight.title = 'decoder self-attention: a position sees only itself and the positions before it';
      } else {
        score.textContent = r.score.toFixed(3);
        weight.textContent = r.weight.toFixed(3);
        weight.style.setProperty('--w', r.weight.toFixed(3));
      }
      row.append(name, bars(r.k, kMax, `key vector of ${d.keyLabels[r.key]}`),
        bars(r.product, pMax, `q∘k with ${d.keyLabels[r.key]}, summing to ${r.dot.toFixed(3)}`), score, weight);
      return row;
    });
    this.rowsBox.replaceChildren(head, ...rows);
    const best = view.rows.filter((r) => !r.masked).reduce((a, b) => (b.weight > a.weight ? b : a));
    this.readoutBox.textContent = `${queryLabel}: strongest key ${d.keyLabels[best.key]}, score ${best.score.toFixed(3)}`
      + ` (q·k ${best.dot.toFixed(3)} × 1/√${view.dim}), weight ${best.weight.toFixed(3)}`;
  }
}
