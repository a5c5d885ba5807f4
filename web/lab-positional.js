// The attention lab's positional-encoding view (seed 000): the sinusoidal table P [positions, dimensions] as a
// heatmap, and columns 6 to 9 (those of them it has) along the positions, for any length and encoding dimension.
import { $, fmt, readNumber, showError } from './lab-dom.js';
import { drawPlot } from './lab-plot.js';
import { MatrixView, renderScale } from './lab-matrix.js';

export function setupPositionalEncoding(lab) {
  const section = $('pe');
  const map = new MatrixView($('pe-map'), {
    readout: $('pe-readout'), xLabel: 'Column (encoding dimension)', yLabel: 'Row (position)', maxCell: 16, maxHeight: 480,
    rowName: (t) => `position ${t}`, colName: (d) => `dimension ${d}`, format: (v) => `P = ${v.toFixed(4)}`,
  });
  let table = null;

  function update() {
    let T, C;
    try {
      T = readNumber($('pe-length'), 'Positions');
      C = readNumber($('pe-dim'), 'Encoding dimension');
      showError($('pe-error'));
    } catch (e) {
      showError($('pe-error'), e.message);
      return;
    }
    const P = lab.positionalEncoding(T, C);
    table = { P, T, C };
    map.set({ values: P, rows: T, cols: C, min: -1, max: 1, title: 'positional encoding' });
    renderScale($('pe-legend'), -1, 1, 'encoding value');
    const positions = Array.from({ length: T }, (_, t) => t);
    const series = [];
    for (let d = 6; d <= 9 && d < C; d++) {
      series.push({ label: `Col ${d}`, x: positions, y: positions.map((t) => P[t * C + d]), style: d % 2 ? 'dashed' : 'line' });
    }
    // The columns shown are the ones of 6 to 9 the table has: a narrow encoding has fewer, or none.
    const last = Math.min(9, C - 1);
    const which = last < 6 ? `no column 6 to 9 (the encoding has columns 0 to ${C - 1})`
      : last === 6 ? 'column 6' : `columns 6 to ${last}`;
    $('pe-plot-caption').textContent = last < 6 ? `${which[0].toUpperCase()}${which.slice(1)}`
      : `${which[0].toUpperCase()}${which.slice(1)} along the positions`;
    drawPlot($('pe-plot'), series, { xLabel: 'Row (position)', yLabel: 'value', xRange: [0, Math.max(1, T - 1)],
      yRange: [-1.1, 1.1], title: `positional encoding, ${which}` });
    section.dataset.rows = T;
    section.dataset.cols = C;
    section.dataset.firstRows = JSON.stringify(Array.from(P.slice(0, Math.min(2, T) * C), (v) => +fmt(v, 5)));
    section.dataset.ready = 'true';
  }

  for (const id of ['pe-length', 'pe-dim']) $(id).addEventListener('input', update);
  update();
  return { redraw: () => table && update() };
}
