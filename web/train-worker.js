// The trainer of web/train.html, in a Worker so that the page stays responsive while it trains: batches run in
// short slices, and a message that arrives between two slices (pause, probe, export) is answered there. A
// translator is followed by translating a few sentences; a character language model by continuing a prefix.
import { AttendTrainer, threadsSupported } from '../wasm/attend-train.js';

const SLICE_MS = 50;  // a slice of steps at most this long (at least one step), then the queue is read
let trainer = null;
let running = false;
let probes = [];
let probeEvery = 20;
let epochs = 0;  // the run's length: training stops after that epoch
let kind = 'translator';  // or 'lm'
let prompt = { prefix: 'time traveller', length: 50 };  // what a language model continues

// probes: [{ text, reference }] (reference '' when none). A language model's: its continuation of the prefix.
function probe() {
  if (kind === 'lm') return { prefix: prompt.prefix, text: trainer.predict(prompt.prefix, prompt.length) };
  return probes.map(({ text, reference }) => trainer.translate(text, { reference }));
}

function slice() {
  if (!running) return;
  const records = [];
  const start = performance.now();
  try {
    do records.push(...trainer.step(1));
    while (performance.now() - start < SLICE_MS && !(records.at(-1).epochDone && records.at(-1).epoch + 1 >= epochs));
  } catch (e) {
    running = false;
    postMessage({ type: 'error', message: e.message, records });
    return;
  }
  const last = records[records.length - 1];
  const message = { type: 'steps', records };
  if (records.some((r) => r.step % probeEvery === 0) || records.some((r) => r.epochDone)) message.probes = probe();
  if (kind === 'translator' && records.some((r) => r.epochDone) && trainer.info().validPairs > 0) {
    message.validation = trainer.validate();
  }
  postMessage(message);
  if (last.epochDone && last.epoch + 1 >= epochs) {
    running = false;
    postMessage({ type: 'finished', epochs });
    return;
  }
  setTimeout(slice, 0);
}

onmessage = async ({ data }) => {
  try {
    switch (data.type) {
      case 'create':
        running = false;
        trainer?.dispose();
        trainer = null;
        kind = data.kind ?? 'translator';
        if (kind === 'lm') {
          trainer = await AttendTrainer.createLanguageModel(data.preset, data.text, data.options ?? {});
          prompt = data.prompt ?? prompt;
        } else {
          trainer = await AttendTrainer.create(data.preset, data.pairs, data.options ?? {});
        }
        probes = data.probes ?? [];
        probeEvery = data.probeEvery ?? 20;
        epochs = trainer.info().options.epochs;
        postMessage({ type: 'created', info: trainer.info(), probes: probe(), threadsSupported: threadsSupported() });
        break;
      case 'run':
        if (!trainer) throw new Error('no trainer: create one first');
        if (!running) {
          running = true;
          setTimeout(slice, 0);
        }
        break;
      case 'pause':
        running = false;
        postMessage({ type: 'paused' });
        break;
      case 'probe':
        if (data.probes) probes = data.probes;
        if (data.prompt) prompt = data.prompt;
        if (trainer) postMessage({ type: 'probes', probes: probe() });
        break;
      case 'export': {
        if (!trainer) throw new Error('no trainer: create one first');
        const bytes = trainer.exportModel();
        postMessage({ type: 'model', bytes }, [bytes.buffer]);
        break;
      }
      default:
        throw new Error(`unknown message ${data.type}`);
    }
  } catch (e) {
    postMessage({ type: 'error', message: e.message });
  }
};
