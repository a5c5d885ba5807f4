// The trainer of web/train.html, in a Worker so that the page stays responsive while it trains: batches run in
// short slices, and a message that arrives between two slices (pause, probe, export) is answered there. A
// translator is followed by translating a few sentences; a character language model by continuing a prefix.
import { AttendTrainer, threadsSupported } from '../wasm/attend-train.js';

// A slice of steps at most this long (at least one step), then the queue is read: a pause waits at most this, and
// the page gets ten messages a second.
const SLICE_MS = 100;
// Validation (greedy translation of every validation pair) costs as much as a few epochs of the seeds' small
// models: run at every epoch it took a fifth of the page's time. It runs after the first epoch, after the last, and
// between them once the training since the last one has taken VALIDATION_SHARE^-1 times what that one took.
const VALIDATION_SHARE = 1 / 20;
let trainer = null;
let running = false;
let probes = [];
let probeEvery = 20;
let epochs = 0;  // the run's length: training stops after that epoch
let kind = 'translator';  // or 'lm'
let validPairs = 0;
let prompt = { prefix: 'time traveller', length: 50 };  // what a language model continues
let validation = { cost: 0, trainedSince: 0 };  // the last validation's milliseconds, and the training's since

// The next slice as soon as the messages already queued (pause, probe, export) are answered: a MessageChannel
// message is a task like theirs, without the 4 ms a chain of setTimeout(0) waits.
// One slice at most is waiting: a pause and a resume between two slices must not start a second chain of them.
const next = new MessageChannel();
let waiting = false;
next.port1.onmessage = () => {
  waiting = false;
  slice();
};
function schedule() {
  if (waiting) return;
  waiting = true;
  next.port2.postMessage(null);
}

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
  validation.trainedSince += performance.now() - start;
  const last = records[records.length - 1];
  const finished = last.epochDone && last.epoch + 1 >= epochs;
  const message = { type: 'steps', records };
  if (records.some((r) => r.step % probeEvery === 0) || records.some((r) => r.epochDone)) message.probes = probe();
  if (kind === 'translator' && records.some((r) => r.epochDone) && validPairs > 0 &&
      (validation.cost === 0 || finished || validation.trainedSince * VALIDATION_SHARE >= validation.cost)) {
    const t0 = performance.now();
    message.validation = { ...trainer.validate(), epoch: last.epoch + 1 };
    validation = { cost: performance.now() - t0, trainedSince: 0 };
  }
  postMessage(message);
  if (finished) {
    running = false;
    postMessage({ type: 'finished', epochs });
    return;
  }
  schedule();
}

onmessage = async ({ data }) => {
  try {
    switch (data.type) {
      case 'create': {
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
        const info = trainer.info();
        validPairs = info.validPairs ?? 0;  // a language model has none
        epochs = info.options.epochs;
        validation = { cost: 0, trainedSince: 0 };
        postMessage({ type: 'created', info, probes: probe(), threadsSupported: threadsSupported() });
        break;
      }
      case 'run':
        if (!trainer) throw new Error('no trainer: create one first');
        if (!running) {
          running = true;
          schedule();
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
