// The attention lab's language-model view (seed 004): d2l's character language models of The Time Machine, shipped
// in models/lm/ (models.json lists them), loaded by the WebAssembly module (attend.js, not the lab module) when the
// view is first shown. A prefix is continued greedily or by seeded sampling; each written character is a button, and the
// chosen step's next-character distribution is drawn as bars over the 28 tokens. The section's data attributes
// carry what it shows (model, continuation, step, the distribution) for tests.
import { Attend } from '../wasm/attend.js';
import { $, readNumber, showError } from './lab-dom.js';
import { drawBars } from './lab-plot.js';

const LIST = 'models/lm/models.json';
// How a token is drawn under its bar and in the readout: the space and <unk> would be invisible or too wide.
const shown = (token) => (token === ' ' ? '␣' : token === '<unk>' ? '?' : token);
const spoken = (token) => (token === ' ' ? 'space' : token === '<unk>' ? 'unknown' : `“${token}”`);

export function setupLanguageModels() {
  const section = $('lm');
  const s = { models: [], model: null, lm: null, result: null, step: 0, loading: 0 };

  const setBusy = (busy, text = '') => {
    $('lm-generate').disabled = busy || !s.lm;
    $('lm-model').disabled = busy || s.models.length === 0;
    $('lm-status').textContent = text;
    section.dataset.busy = String(busy);
  };

  async function listModels() {
    try {
      const response = await fetch(LIST);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      s.models = ((await response.json()).models ?? []).filter((m) => typeof m.file === 'string');
      if (!s.models.length) throw new Error('it lists no model');
    } catch (e) {
      $('lm-model').replaceChildren(new Option('no language model', ''));
      showError($('lm-error'), `The language models could not be listed (${LIST}: ${e.message}).`);
      section.dataset.ready = 'error';
      return;
    }
    $('lm-model').replaceChildren(...s.models.map((m) => new Option(
      `${m.id}: ${m.name}${m.warning ? ' (d2l’s warning: useless predictions)' : ''}`, m.id)));
    const lstm = s.models.find((m) => m.id === 'lstm-d2l');
    if (lstm) $('lm-model').value = lstm.id;
    await loadModel();
  }

  async function loadModel() {
    const m = s.models.find((x) => x.id === $('lm-model').value);
    if (!m) return;
    const seq = ++s.loading;
    setBusy(true, `loading ${m.file} (${(m.size / 1e6).toFixed(2)} MB)…`);
    showError($('lm-error'));
    delete section.dataset.ready;
    try {
      const lm = await Attend.loadLanguageModel(new URL(`models/lm/${m.file}`, location.href).href,
        { size: m.size ?? null, name: m.file });
      if (seq !== s.loading) { lm.dispose(); return; }
      s.lm?.dispose();
      s.lm = lm;
      s.model = m;
    } catch (e) {
      if (seq !== s.loading) return;
      setBusy(false);
      showError($('lm-error'), `${m.file} could not be loaded: ${e.message}`);
      section.dataset.ready = 'error';
      return;
    }
    $('lm-warning').textContent = m.warning ?? '';
    $('lm-warning').hidden = !m.warning;
    const card = document.createElement('a');
    card.href = `models/lm/${m.id}.md`;
    card.textContent = 'its card';
    $('lm-card').replaceChildren(`${m.name}: ${m.parameters.toLocaleString('en')} parameters, ${m.dtype ?? ''} file of `
      + `${(m.size / 1e6).toFixed(2)} MB; ${m.epochs} epochs, training perplexity ${m.train_perplexity}`
      + `${m.held_out_perplexity ? `, held-out perplexity ${m.held_out_perplexity}` : ''} (`, card, ', ');
    const log = document.createElement('a');
    log.href = `runs.html?run=${encodeURIComponent(`models/lm/${m.log ?? `${m.id}.train.jsonl`}`)}`;
    log.textContent = 'its training curve';
    $('lm-card').append(log, ').');
    section.dataset.model = m.id;
    setBusy(false);
    generate();
  }

  function readOptions() {
    const length = readNumber($('lm-length'), 'Characters');
    if ($('lm-mode').value === 'greedy') {
      // The sampling fields are off and not read: none of them is marked wrong.
      for (const id of ['lm-temperature', 'lm-topk', 'lm-seed']) $(id).setAttribute('aria-invalid', 'false');
      return { length };
    }
    return { length, temperature: readNumber($('lm-temperature'), 'Temperature'),
      topK: readNumber($('lm-topk'), 'Top-k'), seed: readNumber($('lm-seed'), 'Seed') };
  }

  function generate() {
    if (!s.lm) return;
    try {
      const options = readOptions();
      const prefix = $('lm-prefix').value;
      if (!prefix) {
        $('lm-prefix').setAttribute('aria-invalid', 'true');
        throw new Error('Prefix: type at least one character for the model to read');
      }
      $('lm-prefix').setAttribute('aria-invalid', 'false');
      s.result = s.lm.generate(prefix, options);
      showError($('lm-error'));
      Object.assign(section.dataset, { prefix, continuation: s.result.continuation,
        options: JSON.stringify(options), model: s.model.id });
      renderText();
      select(0, false);
      section.dataset.ready = 'true';
    } catch (e) {
      showError($('lm-error'), e.message);
    }
  }

  // The prefix as plain text (how the model read it: unknown characters as '?'), then one button per written
  // character; one of them is in the tab order at a time and the arrow keys move between them.
  function renderText() {
    const r = s.result;
    const prefix = document.createElement('span');
    prefix.className = 'lm-prefix';
    prefix.textContent = r.prefixIds.map((id) => shown(r.vocab[id])).join('');
    const buttons = r.steps.map((step, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'lm-char';
      b.textContent = shown(step.token);
      b.setAttribute('aria-label', `step ${i + 1}: ${spoken(step.token)}`);
      b.addEventListener('click', () => select(i, true));
      b.addEventListener('keydown', (e) => {
        const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: r.steps.length - 1 }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        select(Math.max(0, Math.min(r.steps.length - 1, to)), true);
      });
      return b;
    });
    $('lm-text').replaceChildren(prefix, ...buttons);
    const slider = $('lm-step');
    slider.max = String(Math.max(1, r.steps.length));
    slider.disabled = r.steps.length === 0;
  }

  function select(i, focus) {
    const r = s.result;
    if (!r || !r.steps.length) return;
    s.step = i;
    const buttons = $('lm-text').querySelectorAll('.lm-char');
    buttons.forEach((b, k) => {
      b.tabIndex = k === i ? 0 : -1;
      b.setAttribute('aria-pressed', String(k === i));
    });
    if (focus) buttons[i].focus();
    $('lm-step').value = String(i + 1);
    $('lm-step-label').value = `${i + 1} of ${r.steps.length}`;
    drawStep();
  }

  function drawStep() {
    const r = s.result;
    if (!r || !r.steps.length) return;
    const step = r.steps[s.step];
    const p = Array.from(step.distribution);
    const best = p.indexOf(Math.max(...p));
    const before = r.text.slice(0, [...r.text].length - r.steps.length + s.step);
    const top = p.map((v, k) => [v, k]).sort((a, b) => b[0] - a[0]).slice(0, 5)
      .map(([v, k]) => `${spoken(r.vocab[k])} ${v.toFixed(3)}`).join(', ');
    drawBars($('lm-bars'), r.vocab.map(shown), p, { marked: step.id, yLabel: 'probability',
      title: `next-character distribution at step ${s.step + 1}; most likely: ${top}` });
    $('lm-readout').textContent = `Step ${s.step + 1}: after “…${before.slice(-24)}” the model wrote `
      + `${spoken(step.token)} (p = ${p[step.id].toFixed(4)})`
      + (best === step.id ? ', its most likely character.' : `; its most likely was ${spoken(r.vocab[best])} (p = ${p[best].toFixed(4)}).`);
    Object.assign(section.dataset, { step: s.step, chosen: step.token, distribution: JSON.stringify(p) });
  }

  const modeChanged = () => {
    const greedy = $('lm-mode').value === 'greedy';
    for (const id of ['lm-temperature', 'lm-topk', 'lm-seed']) $(id).disabled = greedy;
  };
  $('lm-form').addEventListener('submit', (e) => { e.preventDefault(); generate(); });
  $('lm-model').addEventListener('change', loadModel);
  $('lm-mode').addEventListener('change', () => { modeChanged(); generate(); });
  $('lm-step').addEventListener('input', () => select(Number($('lm-step').value) - 1, false));
  modeChanged();
  // The models (and the module that runs them) load once the section comes into view, not with the page: a visit
  // to the other views downloads nothing for it, and works offline without it.
  $('lm-status').textContent = 'the models load when this section is shown';
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    observer.disconnect();
    listModels();
  });
  observer.observe(section);
  return { redraw: () => s.result && drawStep() };
}
