// The attention lab's scoring-function view (seed 000, "attention scoring functions"): additive (Bahdanau) and
// scaled dot-product attention on the same queries, keys, values and valid lengths, side by side.
import { $, fmt, readNumber, showError, fillTable } from './lab-dom.js';
import { MatrixView, renderScale } from './lab-matrix.js';

const B = 2, TQ = 1, TK = 10, D = 2, DV = 4, H = 8;

export function setupScoring(lab) {
  const section = $('scoring');
  let seed = 11;
  // values = arange(40).reshape(1, 10, 4).repeat(2, 1, 1), as in the seed.
  const values = Float32Array.from({ length: B * TK * DV }, (_, i) => i % (TK * DV));
  const maps = ['additive', 'dot'].map((kind) => new MatrixView($(`scoring-${kind}-map`), {
    readout: $(`scoring-${kind}-readout`), xLabel: 'Keys', yLabel: 'Queries', maxCell: 34, firstTick: 1,
    rowName: (r) => `query of sequence ${r + 1}`, colName: (k) => `key ${k + 1}`, format: (v) => `weight ${v.toFixed(4)}`,
  }));

  // nn.Linear's initialisation: uniform in +-1/sqrt(fan_in), from the core's generator.
  const linearInit = (n, fanIn, offset) => Array.from(lab.uniform(n, seed, offset), (u) => (2 * u - 1) / Math.sqrt(fanIn));

  function update() {
    let lens;
    try {
      lens = [0, 1].map((b) => readNumber($(`scoring-len-${b}`), `Valid length ${b + 1}`));
      showError($('scoring-error'));
    } catch (e) {
      showError($('scoring-error'), e.message);
      return;
    }
    const queries = lab.normal(B * TQ * D, seed, 0);
    const keys = $('scoring-keys').value === 'ones' ? new Float32Array(B * TK * D).fill(1) : lab.normal(B * TK * D, seed, 1000);
    const additive = lab.additiveAttention({
      queries, keys, values, validLens: lens,
      Wq: linearInit(H * D, D, 2000), Wk: linearInit(H * D, D, 3000), wv: linearInit(H, H, 4000),
      shape: { B, Tq: TQ, Tk: TK, Dq: D, Dk: D, H, Dv: DV },
    });
    const dot = lab.dotProductAttention({ queries, keys, values, validLens: lens, shape: { B, Tq: TQ, Tk: TK, D, Dv: DV } });
    const results = { additive, dot };
    maps[0].set({ values: additive.weights, rows: B * TQ, cols: TK, min: 0, max: 1, title: 'additive attention weights' });
    maps[1].set({ values: dot.weights, rows: B * TQ, cols: TK, min: 0, max: 1, title: 'scaled dot-product attention weights' });
    renderScale($('scoring-legend'), 0, 1, 'attention weight (both maps)');

    const rows = [];
    for (let b = 0; b < B; b++) {
      for (const [kind, name] of [['additive', 'additive'], ['dot', 'dot product']]) {
        const r = results[kind];
        const scoreCells = Array.from(r.scores.slice(b * TK, b * TK + TK), (v) => fmt(v, 3));
        const weightCells = Array.from(r.weights.slice(b * TK, b * TK + TK), (v, k) => ({
          text: fmt(v, 3), className: k >= lens[b] ? 'masked' : 'weight' }));
        const output = `[${Array.from(r.output.slice(b * DV, b * DV + DV), (v) => fmt(v, 2)).join(', ')}]`;
        rows.push([{ text: `query ${b + 1}, ${name}: scores`, header: true }, ...scoreCells, '']);
        rows.push([{ text: `query ${b + 1}, ${name}: weights`, header: true }, ...weightCells, output]);
      }
    }
    fillTable($('scoring-table'), ['', ...Array.from({ length: TK }, (_, k) => `key ${k + 1}`), 'output (weights × values)'], rows);
    section.dataset.outputs = JSON.stringify({
      additive: Array.from(additive.output, (v) => +v.toFixed(5)), dot: Array.from(dot.output, (v) => +v.toFixed(5)) });
    section.dataset.weights = JSON.stringify({
      additive: Array.from(additive.weights, (v) => +v.toFixed(5)), dot: Array.from(dot.weights, (v) => +v.toFixed(5)) });
    section.dataset.ready = 'true';
  }

  for (const id of ['scoring-keys', 'scoring-len-0', 'scoring-len-1']) $(id).addEventListener('input', update);
  $('scoring-keys').addEventListener('change', update);
  $('scoring-redraw').addEventListener('click', () => { seed += 1; update(); });
  update();
  return { redraw: () => maps.forEach((m) => m.draw()) };
}
