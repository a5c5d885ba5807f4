// The attention lab's Nadaraya-Watson view (seed 000): the seed's data, average pooling vs the non-parametric
// and parametric kernel regressions, the attention heatmap of test x training inputs, and training the
// parametric w in the page with a live loss curve. Every number comes from the core (AttendLab).
import { $, fmt, readNumber } from './lab-dom.js';
import { drawPlot, PALETTE } from './lab-plot.js';
import { MatrixView, renderScale } from './lab-matrix.js';

const LR = 0.5;
const EPOCH_DELAY_MS = 150;   // one epoch per step, so the curve grows visibly

const mse = (a, b) => a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0) / a.length;

export function setupNadarayaWatson(lab) {
  const section = $('nw');
  const s = { data: null, w: 1, losses: [], training: false, timer: 0 };
  const map = new MatrixView($('nw-map'), {
    readout: $('nw-map-readout'), xLabel: 'Sorted training inputs', yLabel: 'Sorted testing inputs', maxCell: 12,
    rowName: (i) => `test x = ${fmt(s.data.xTest[i], 1)}`,
    colName: (j) => `training x = ${fmt(s.data.xTrain[j], 3)}`,
    format: (v) => `weight ${v.toFixed(4)}`,
  });

  function newData() {
    const seed = readNumber($('nw-seed'), 'Data seed');
    stop();
    s.data = lab.nwData({ nTrain: 50, nTest: 50, seed });
    s.w = s.data.w0;
    s.losses = [];
    render();
  }

  function render() {
    const d = s.data;
    const np = lab.nwPredict(d.xTest, d.xTrain, d.yTrain, 1);
    const p = lab.nwPredict(d.xTest, d.xTrain, d.yTrain, s.w);
    const mean = d.yTrain.reduce((a, v) => a + v, 0) / d.yTrain.length;
    $('nw-w').value = fmt(s.w);
    $('nw-epochs').value = String(s.losses.length);
    $('nw-err-mean').value = fmt(mse(d.yTruth.map(() => mean), d.yTruth));
    $('nw-err-np').value = fmt(mse(Array.from(np.output), d.yTruth));
    $('nw-err-p').value = fmt(mse(Array.from(p.output), d.yTruth));
    drawPlot($('nw-plot'), [
      { label: 'Truth', x: d.xTest, y: d.yTruth, style: 'line', color: PALETTE[0] },
      { label: 'Pred, non-parametric (w = 1)', x: d.xTest, y: np.output, style: 'line', color: PALETTE[2] },
      { label: `Pred, parametric (w = ${s.w.toFixed(2)})`, x: d.xTest, y: p.output, style: 'dashed', color: PALETTE[1] },
      { label: 'Training points', x: d.xTrain, y: d.yTrain, style: 'points', color: PALETTE[4] },
    ], { xLabel: 'x', yLabel: 'y', xRange: [0, 5], title: 'Nadaraya-Watson regression' });
    drawLoss();
    const which = $('nw-map-model').value;
    const attention = which === 'p' ? p.attention : np.attention;
    map.set({ values: attention, rows: d.xTest.length, cols: d.xTrain.length, min: 0,
      title: `attention weights of the ${which === 'p' ? 'parametric' : 'non-parametric'} model` });
    renderScale($('nw-map-legend'), ...map.range, 'attention weight');
    section.dataset.w = s.w;
    section.dataset.epochs = s.losses.length;
    section.dataset.losses = JSON.stringify(s.losses);
    section.dataset.ready = 'true';
  }

  function drawLoss() {
    const epochs = s.losses.map((_, i) => i + 1);
    drawPlot($('nw-loss'), s.losses.length
      ? [{ label: 'loss (sum of squared errors)', x: epochs, y: s.losses, style: 'line', markers: true, color: PALETTE[3] }]
      : [], { xLabel: 'epoch', yLabel: 'loss', xRange: [1, Math.max(5, s.losses.length)],
      yRange: s.losses.length ? undefined : [0, 1], title: 'training loss', integerX: true });
    $('nw-losses').replaceChildren(...s.losses.map((l, i) => {
      const li = document.createElement('li');
      li.textContent = `epoch ${i + 1}, loss ${l.toFixed(6)}`;
      return li;
    }));
  }

  function epoch() {
    const r = lab.nwTrainEpoch(s.data.xTrain, s.data.yTrain, s.w, LR);
    s.losses.push(r.loss);
    s.w = r.w;
    render();
  }

  function setBusy(busy) {
    s.training = busy;
    section.dataset.training = String(busy);
    for (const id of ['nw-epoch', 'nw-train', 'nw-reset']) $(id).disabled = busy;
    $('nw-status').textContent = busy ? 'training…' : s.losses.length ? `trained ${s.losses.length} epochs` : '';
  }

  function train(epochs) {
    if (s.training) return;
    setBusy(true);
    let left = epochs;
    const step = guarded(() => {
      epoch();
      if (--left > 0) s.timer = setTimeout(step, EPOCH_DELAY_MS);
      else setBusy(false);
    });
    step();
  }

  function stop() {
    clearTimeout(s.timer);
    if (s.training) setBusy(false);
  }

  function guarded(f) {
    return () => {
      try {
        f();
        $('nw-status').classList.remove('bad');
      } catch (e) {
        stop();
        $('nw-status').textContent = e.message;
        $('nw-status').classList.add('bad');
      }
    };
  }
  $('nw-seed').addEventListener('change', guarded(newData));
  $('nw-epoch').addEventListener('click', guarded(() => train(1)));
  $('nw-train').addEventListener('click', guarded(() => train(5)));
  $('nw-reset').addEventListener('click', guarded(() => { stop(); s.w = s.data.w0; s.losses = []; render(); setBusy(false); }));
  $('nw-map-model').addEventListener('change', guarded(render));
  newData();
  return { redraw: () => s.data && render() };
}
