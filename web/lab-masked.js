// The attention lab's masked softmax view (seed 000): masked_softmax(torch.rand(2, 2, 4), valid_lens) with the
// valid lengths editable, one per sequence (1-D) or one per query (2-D).
import { $, fmt, readNumber, showError, fillTable } from './lab-dom.js';
import { MatrixView, renderScale } from './lab-matrix.js';

const B = 2, TQ = 2, TK = 4;
const DEFAULTS = { batch: [2, 3], query: [1, 3, 2, 4] };

export function setupMaskedSoftmax(lab) {
  const section = $('masked');
  let seed = 7;
  let x = lab.uniform(B * TQ * TK, seed);
  const map = new MatrixView($('masked-map'), {
    readout: $('masked-readout'), xLabel: 'keys', yLabel: 'queries', maxCell: 44, firstTick: 1,
    rowName: (r) => `sequence ${Math.floor(r / TQ) + 1}, query ${(r % TQ) + 1}`,
    colName: (k) => `key ${k + 1}`, format: (v) => `weight ${v.toFixed(4)}`,
  });

  function lengthInputs() {
    const mode = $('masked-mode').value;
    const wanted = DEFAULTS[mode];
    const holder = $('masked-lens');
    if (holder.dataset.mode !== mode) {
      holder.dataset.mode = mode;
      holder.replaceChildren(...wanted.map((v, i) => {
        const label = document.createElement('label');
        const name = mode === 'batch' ? `sequence ${i + 1}` : `sequence ${Math.floor(i / TQ) + 1}, query ${(i % TQ) + 1}`;
        label.className = 'len';
        label.append(`${name} `);
        const input = document.createElement('input');
        Object.assign(input, { type: 'number', min: 0, max: TK, step: 1, value: v, inputMode: 'numeric' });
        input.id = `masked-len-${i}`;
        input.className = 'num';
        input.addEventListener('input', update);
        label.append(input);
        return label;
      }));
    }
    return [...holder.querySelectorAll('input')];
  }

  function update() {
    let lens;
    try {
      lens = lengthInputs().map((input, i) => readNumber(input, `Valid length ${i + 1}`));
      showError($('masked-error'));
    } catch (e) {
      showError($('masked-error'), e.message);
      return;
    }
    const perQuery = lens.length === B * TQ;
    const out = lab.maskedSoftmax(x, [B, TQ, TK], lens);
    const rows = [];
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < TQ; i++) {
        const len = perQuery ? lens[b * TQ + i] : lens[b];
        const r = b * TQ + i;
        const cells = [{ text: `${b + 1}`, header: true }, `${i + 1}`, String(len)];
        for (let k = 0; k < TK; k++) cells.push(fmt(x[r * TK + k]));
        for (let k = 0; k < TK; k++) {
          cells.push({ text: fmt(out[r * TK + k]), className: k >= len ? 'masked' : 'weight' });
        }
        const sum = out.slice(r * TK, r * TK + TK).reduce((a, v) => a + v, 0);
        cells.push(fmt(sum));
        rows.push(cells);
      }
    }
    fillTable($('masked-table'), ['sequence', 'query', 'valid length',
      ...Array.from({ length: TK }, (_, k) => `x, key ${k + 1}`),
      ...Array.from({ length: TK }, (_, k) => `weight, key ${k + 1}`), 'row sum'], rows);
    map.set({ values: out, rows: B * TQ, cols: TK, min: 0, max: 1, title: 'masked softmax weights' });
    renderScale($('masked-legend'), 0, 1, 'attention weight');
    section.dataset.lens = JSON.stringify(lens);
    section.dataset.weights = JSON.stringify(Array.from(out, (v) => +v.toFixed(6)));
    section.dataset.ready = 'true';
  }

  $('masked-mode').addEventListener('change', update);
  $('masked-redraw').addEventListener('click', () => { x = lab.uniform(B * TQ * TK, ++seed); update(); });
  update();
  return { redraw: () => map.draw() };
}
