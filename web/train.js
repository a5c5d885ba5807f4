// web/train.html: a translator trained in a Worker (train-worker.js, over attend-train.js), its loss per step plotted
// and the cross attention of a few sentences redrawn as it learns. The body's data attributes say what it shows
// (state, step, epoch, last loss) for tests.
import { drawPlot } from './lab-plot.js';
import { MatrixView } from './lab-matrix.js';
import { $, readNumber, showError } from './lab-dom.js';

const body = document.body;
const worker = new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
const s = { steps: [], losses: [], epochLoss: null, probes: [], info: null };
const attention = new MatrixView($('probe-attention'), {
  readout: $('probe-readout'), xLabel: 'source', yLabel: 'translation', maxHeight: 320,
  rowName: (i) => `“${current()?.targetTokens[i] ?? i}”`, colName: (j) => `“${current()?.sourceTokens[j] ?? j}”`,
});
const current = () => s.probes[$('probe-choice').selectedIndex];

const setState = (state) => {
  body.dataset.state = state;
  $('train-pause').disabled = state === 'idle' || state === 'starting' || state === 'finished';
  $('train-pause').textContent = state === 'paused' ? 'Resume' : 'Pause';
  $('train-export').disabled = state === 'idle' || state === 'starting';
  $('train-start').textContent = state === 'idle' ? 'Start training' : 'Start again';
};

// The followed sentences: "source<TAB>reference" lines (the reference optional), at most eight.
const probeTexts = () => $('train-probes').value.split('\n').filter((l) => l.trim()).slice(0, 8).map((line) => {
  const [text, reference = ''] = line.split('\t');
  return { text: text.trim(), reference: reference.trim() };
});

function drawLoss() {
  // The mean loss per target token of each batch; the seeds' printed epoch figure (the sum of each batch's summed
  // row means over the epoch's tokens) is on another scale and goes in the status line instead.
  drawPlot($('train-loss'), [{ label: 'loss per target token, each batch', x: s.steps, y: s.losses, style: 'line' }],
    { xLabel: 'step', yLabel: 'loss', title: 'training loss', integerX: true });
}

function showProbes(probes) {
  s.probes = probes;
  const followed = probeTexts();
  const tbody = $('probe-table').tBodies[0];
  tbody.replaceChildren(...probes.map((p, i) => {
    const tr = document.createElement('tr');
    for (const text of [followed[i]?.text ?? p.sourceTokens.join(' '), p.text, followed[i]?.reference || '—',
      p.bleu === undefined ? '—' : p.bleu.toFixed(3)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  const scored = probes.filter((p) => p.bleu !== undefined);
  $('probe-mean').textContent = scored.length
    ? `Mean BLEU ${(scored.reduce((a, p) => a + p.bleu, 0) / scored.length).toFixed(3)} (the seeds' bleu, k = 2, ` +
      'on the model\'s words)' : '';
  $('probe-table').dataset.bleu = JSON.stringify(probes.map((p) => p.bleu ?? null));
  const choice = $('probe-choice');
  const chosen = Math.min(Math.max(0, choice.selectedIndex), probes.length - 1);
  choice.replaceChildren(...probes.map((p, i) => new Option(followed[i]?.text ?? `sentence ${i + 1}`, String(i))));
  choice.selectedIndex = chosen;
  drawAttention();
}

// The chosen sentence's cross attention, averaged over its layers and heads (the GRU model has one of each).
function drawAttention() {
  const p = current();
  if (!p) return;
  const { layers, heads, rows, cols, weights } = p.attention;
  const mean = new Float32Array(rows * cols);
  for (let m = 0; m < layers * heads; m++)
    for (let i = 0; i < rows * cols; i++) mean[i] += weights[m * rows * cols + i] / (layers * heads);
  attention.set({ values: mean, rows, cols, min: 0, max: 1, title: 'cross attention' });
  $('probe-attention').dataset.rowSums = JSON.stringify(Array.from({ length: rows }, (_, r) =>
    +mean.subarray(r * cols, (r + 1) * cols).reduce((x, y) => x + y, 0).toFixed(4)));
  $('probe-attention').setAttribute('aria-label', `cross attention of “${p.sourceTokens.join(' ')}”: rows ` +
    `${p.targetTokens.join(' ')}; columns ${p.sourceTokens.join(' ')}`);
  $('probe-readout').textContent = `rows: ${p.targetTokens.join(' ')} · columns: ${p.sourceTokens.join(' ')}`;
}

async function readFile(file) {
  const stream = file.name.endsWith('.gz') ? file.stream().pipeThrough(new DecompressionStream('gzip')) : file.stream();
  return new Response(stream).text();
}

$('train-file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  try {
    $('train-pairs').value = await readFile(file);
    showError($('train-error'));
  } catch (err) {
    showError($('train-error'), `cannot read ${file.name}: ${err.message}`);
  }
});

$('train-start').addEventListener('click', () => {
  const pairs = $('train-pairs').value;
  if (!pairs.trim()) {
    showError($('train-error'), 'Give some sentence pairs first: paste them above or choose a file.');
    return;
  }
  let options;
  try {
    options = { trainPairs: readNumber($('train-count'), 'Training pairs'),
      validPairs: readNumber($('valid-count'), 'Validation pairs') };
    if ($('epoch-count').value.trim()) options.epochs = readNumber($('epoch-count'), 'Epochs');
  } catch (e) {
    showError($('train-error'), e.message);
    return;
  }
  Object.assign(s, { steps: [], losses: [], epochLoss: null, validation: null });
  showError($('train-error'));
  setState('starting');
  $('train-status').textContent = 'Preparing the data and the model…';
  worker.postMessage({
    type: 'create', preset: $('train-preset').value, pairs, probes: probeTexts(),
    options,
  });
});

$('train-pause').addEventListener('click', () => {
  if (body.dataset.state === 'paused') {
    worker.postMessage({ type: 'run' });
    setState('training');
  } else {
    worker.postMessage({ type: 'pause' });
  }
});

$('train-probes').addEventListener('change', () => worker.postMessage({ type: 'probe', probes: probeTexts() }));
$('probe-choice').addEventListener('change', drawAttention);
$('train-export').addEventListener('click', () => worker.postMessage({ type: 'export' }));

worker.onmessage = ({ data }) => {
  switch (data.type) {
    case 'created':
      s.info = data.info;
      $('epoch-count').placeholder = String(data.info.options.epochs);
      $('train-status').textContent = `${data.info.parameters.toLocaleString('en')} parameters, ` +
        `${data.info.trainPairs} training and ${data.info.validPairs} validation pairs, vocabularies of ` +
        `${data.info.sourceVocab} and ${data.info.targetVocab} words.`;
      showProbes(data.probes);
      setState('training');
      worker.postMessage({ type: 'run' });
      break;
    case 'steps': {
      for (const r of data.records) {
        s.steps.push(r.step);
        s.losses.push(r.loss);
        if (r.epochDone) s.epochLoss = r.epochLoss;
      }
      const last = data.records[data.records.length - 1];
      Object.assign(body.dataset, { step: last.step, epoch: last.epoch + (last.epochDone ? 1 : 0), loss: last.loss });
      let status = `step ${last.step}, epoch ${last.epoch + 1} (batch ${last.batch + 1} of ${last.batches}), ` +
        `loss ${last.loss.toFixed(3)}`;
      if (s.epochLoss !== null) status += `, the seeds' epoch loss ${s.epochLoss.toFixed(3)}`;
      if (data.validation) {
        body.dataset.valBleu = data.validation.valBleu;
        s.validation = data.validation;
      }
      if (s.validation) status += `, validation BLEU ${s.validation.valBleu.toFixed(1)}`;
      $('train-status').textContent = status;
      drawLoss();
      if (data.probes) showProbes(data.probes);
      break;
    }
    case 'probes':
      showProbes(data.probes);
      break;
    case 'paused':
      setState('paused');
      break;
    case 'finished':
      setState('finished');
      $('train-status').textContent += ` · finished its ${data.epochs} epochs`;
      break;
    case 'model': {
      const url = URL.createObjectURL(new Blob([data.bytes], { type: 'application/octet-stream' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${s.info?.preset ?? 'model'}-step${s.steps.at(-1) ?? 0}.safetensors`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      break;
    }
    case 'error':
      showError($('train-error'), data.message);
      if (body.dataset.state === 'starting') setState('idle');
      else if (body.dataset.state === 'training') setState('paused');
      break;
    default:
      break;
  }
};
setState('idle');
