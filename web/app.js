// The Attend demo page: pick the languages, then a model of that pair from models.json, translate in a Web Worker
// (on a press, or as the user types), and show the attention maps (heatmap, all heads, alignment lines, head view;
// one layer, or the layers' mean or rollout). The page states what it is doing in data attributes on <body>
// (data-model-state: loading-list | loading | ready | error; data-translate-state: idle | busy | done | error;
// data-shown-text: the text whose translation is on screen).
//
// Query parameters: ?models=URL (another models.json), ?model=ID (which entry to load first; ?from=&to= pick one
// of that pair where the id is not in the list), ?text=… and ?beam=N (what to translate once the model is ready),
// ?view=, ?map=, ?layer= (1-based), ?across=mean|rollout, ?head= (1-based or mean) and ?live=1: the page writes
// them back after each translation and change of view, so that its address is a link to what it shows.
// ?trained=PRESET: the model web/train.html trained in this browser and stored for the demo (trained.js), listed
// first; where it is no longer stored, the page says so and uses the list's model.
import { AttendWorker } from '../wasm/attend-client.js';
import { simdSupported, storedModelBytes } from '../wasm/attend.js';
import { trainedModelUrl } from './trained.js';
import { Heatmap, renderLegend, drawPanel, maxOf } from './heatmap.js';
import { Alignment } from './alignment.js';
import { registerServiceWorker } from './register-sw.js';
import { JOINER, tokenLabels, wordsOf } from './tokens.js';
import { attentionJson, heatmapSvg, heatmapPng } from './export.js';
import { watchOverflow } from './overflow.js';
import { HeadView, HEAD_COLOURS } from './headview.js';
import { NeuronPanel } from './neuronview.js';
import { canRollout, layerMap, meanOfLayers, rollout } from './aggregate.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const modelsUrl = new URL(params.get('models') || 'models/models.json', location.href);
// The worker script lives beside the page, inside the service worker's scope, so that it works offline too.
const WORKER_URL = new URL('./worker.js', import.meta.url);

const LANGUAGES = { en: 'English', de: 'German', fr: 'French', cs: 'Czech', zh: 'Chinese' };

// Example sentences in each source language the shipped models read (the same scenes in each).
const EXAMPLES = {
  en: [
    'A dog runs on the beach.',
    'Two young men are playing soccer in a park.',
    'A woman in a red dress is walking down the street.',
    'A little girl is climbing a wooden staircase.',
    'A man is riding a bicycle on a dirt road.',
    'People are sitting at tables outside a restaurant.',
  ],
  de: [
    'Ein Hund rennt am Strand.',
    'Zwei junge Männer spielen Fußball in einem Park.',
    'Eine Frau in einem roten Kleid geht die Straße entlang.',
    'Ein kleines Mädchen klettert eine Holztreppe hinauf.',
    'Ein Mann fährt auf einem Feldweg Fahrrad.',
    'Menschen sitzen an Tischen vor einem Restaurant.',
  ],
  fr: [
    'Un chien court sur la plage.',
    'Deux jeunes hommes jouent au football dans un parc.',
    'Une femme en robe rouge marche dans la rue.',
    'Une petite fille monte un escalier en bois.',
    'Un homme fait du vélo sur un chemin de terre.',
    'Des gens sont assis à des tables devant un restaurant.',
  ],
  zh: [
    '我喜欢吃鱼。',
    '两只狗在海滩上跑。',
    '我明天要去图书馆。',
    '你今天晚上有空吗？',
  ],
};

const state = {
  models: [],
  model: null,          // the models.json entry being shown
  translator: null,     // AttendWorker, once loaded
  loading: null,        // the AbortController of the load under way
  loadSeq: 0,
  busy: false,
  pending: null,        // the AbortController of the translation under way
  translateSeq: 0,      // counts translations asked for: only the latest one's result is shown
  doc: null,            // the last translation: translateDocument's result, with beam, ms and source
  sentence: 0,          // which of its sentences the word lines and the attention views show
  result: null,         // that sentence's translation (with attention)
  kind: 'cross',
  // The last layer, averaged over its heads, is where a trained model's cross attention reads most like an
  // alignment (the first layers attend by position and to punctuation); Infinity is clamped to the last layer.
  layer: Infinity,
  across: '',           // '' (the layer above), or every layer's 'mean' or 'rollout'
  head: 'mean',         // a head index, or 'mean'
  view: 'heatmap',
  threshold: 0.1,       // the head view hides weights under this
  headsShown: [],       // the head view's toggles, one per head
  word: null,           // the output word picked (clicked, tapped, Enter), or null: { index, tokens }
  autoTranslate: !!params.get('text'),
  start: null,          // { text, lang } of the sentence the page opened with, while the user has not changed it
};

// What a model was trained on, from the data set its card names ("multi30k en-de train (tok), BPE 10000"), for
// models.json entries that do not say (trained_on).
const KNOWN_DATA = {
  multi30k: '29,000 image captions (Multi30K)',
  tatoeba: 'short English–French sentence pairs (Tatoeba)',
};
const trainedOnFromCard = (card) => KNOWN_DATA[String(card?.data ?? '').split(/\s/)[0].toLowerCase()] ?? '';

// ---------- formatting

function formatCount(n) {
  if (!Number.isFinite(n)) return '?';
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function formatBytes(n) {
  if (!Number.isFinite(n) || n <= 0) return '?';
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} kB`;
  return `${n} B`;
}

const setBody = (key, value) => { document.body.dataset[key] = value; };

// ---------- the model list

const numberOrNaN = (v) => (v == null || v === '' ? NaN : Number(v));

// A language as a lowercase code where it is one the page knows by name ("German" -> "de"), so that entries that
// give codes and entries that only give a pair ("English → German") can be matched against each other.
function languageCode(value) {
  const v = String(value ?? '').trim().toLowerCase();
  return Object.keys(LANGUAGES).find((code) => LANGUAGES[code].toLowerCase() === v) ?? v;
}
// Any other language by the browser's own names ("zh" -> "Chinese"), so a model of any pair reads well.
const displayNames = typeof Intl?.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'language' }) : null;
const languageName = (code) => {
  if (LANGUAGES[code]) return LANGUAGES[code];
  try { return displayNames?.of(code) ?? code; } catch { return code; }
};

function entryFrom(raw, i) {
  if (!raw || typeof raw.file !== 'string') throw new Error(`entry ${i + 1} of ${modelsUrl.pathname} has no "file"`);
  const [pairSource, pairTarget] = String(raw.pair ?? '').split(/\s*(?:→|->)\s*/);
  const source = languageCode(raw.source ?? raw.source_language ?? pairSource);
  const target = languageCode(raw.target ?? raw.target_language ?? pairTarget);
  return {
    id: String(raw.id ?? raw.file.replace(/\.safetensors$/, '')),
    pair: raw.pair ?? (source && target ? `${languageName(source)} → ${languageName(target)}` : raw.file),
    source,
    target,
    name: raw.name ?? '',
    parameters: numberOrNaN(raw.parameters),
    bleu: numberOrNaN(raw.bleu),
    bleuSet: raw.bleu_set ?? raw.bleuSet ?? '',
    size: numberOrNaN(raw.size ?? raw.bytes),
    url: new URL(raw.file, modelsUrl).href,
    file: raw.file,
    trainedOn: raw.trained_on ?? raw.trainedOn ?? '',
    goodAt: raw.good_at ?? raw.goodAt ?? '',
    limits: raw.limits ?? '',  // what the model does not do that others do, said plainly
    // The threshold of its check for source words the translation left out (TranslateOptions.omissionGain),
    // chosen on validation data; none: not checked.
    omissionGain: Number.isFinite(raw.omission_gain) && raw.omission_gain > 0 ? raw.omission_gain : 0,
  };
}

const omissionGainOf = (m) => m?.omissionGain ?? 0;

async function loadModelList() {
  setBody('modelState', 'loading-list');
  hideModelError();
  let list;
  try {
    const response = await fetch(modelsUrl);
    if (!response.ok) throw new Error(`cannot download ${modelsUrl.href}: HTTP ${response.status} ${response.statusText}`);
    let json;
    try { json = await response.json(); } catch (e) { throw new Error(`${modelsUrl.href} is not valid JSON: ${e.message}`); }
    const raw = Array.isArray(json) ? json : json.models;
    if (!Array.isArray(raw) || raw.length === 0) throw new Error(`${modelsUrl.href} lists no models (expected {"models": [...]})`);
    list = raw.map(entryFrom);
  } catch (e) {
    showModelError(`The model list could not be read. ${e.message}`, loadModelList);
    return;
  }
  state.models = list;
  $('model-select').disabled = false;
  $('source-language').disabled = false;
  $('target-language').disabled = false;
  // The model a link names; else one of the pair it names (?from=&to=), so that a link outlives a renamed model.
  const asked = params.get('model');
  const from = params.get('from');
  const to = params.get('to');
  const wanted = list.find((m) => m.id === asked)
    ?? list.find((m) => m.source === from && m.target === to) ?? list.find((m) => m.source === from) ?? list[0];
  const instead = `${wanted.pair}${wanted.name ? ` (${wanted.name})` : ''} is used instead.`;
  const trained = params.get('trained');
  if (trained !== null) {
    const entry = await trainedEntry(trained);
    if (entry) {
      showModelNotice('');
      state.insteadOfTrained = wanted;  // what the list gives if the stored bytes do not load
      loadModel(entry);
      return;
    }
    // Cleared with the browser's data, or trained in another browser: said, with the way to have it again.
    const link = document.createElement('a');
    link.href = 'train.html';
    link.textContent = 'the training page';
    showModelNotice(['The model trained in this browser is no longer stored here: train it again on ', link,
      ` (it was “${trained}”). ${instead}`]);
  } else {
    // A link may name a model this list does not have (renamed, or another site's): say so, and which one is used.
    showModelNotice(asked && wanted.id !== asked ? `There is no model “${asked}” in this list: ${instead}` : '');
  }
  fillPickers(wanted);
  loadModel(wanted);
}

// The entry of the model train.html stored for `preset`, its bytes read from the model cache, or null where none
// is stored. Its languages are the model's own, filled in once it loads (loadModel).
async function trainedEntry(preset) {
  const url = trainedModelUrl(preset);
  const stored = await storedModelBytes(url);
  if (!stored) return null;
  const step = stored.note?.step;
  return {
    id: `trained:${preset}`, trained: preset, bytes: stored.bytes,
    pair: 'the model trained in this browser', source: '', target: '',
    name: `Trained in this browser: ${preset}${Number.isInteger(step) ? ` (step ${step})` : ''}`,
    parameters: NaN, bleu: NaN, bleuSet: '', size: NaN, url: url.href, file: `${preset}.safetensors`,
    trainedOn: 'the sentence pairs given to the training page of this browser',
    goodAt: 'Sentences like the pairs it was trained on', limits: '', omissionGain: 0,
  };
}

// parts: a text, or texts and elements (a link) in order.
function showModelNotice(parts) {
  const shown = [parts].flat().filter((part) => part !== '');
  $('model-notice').replaceChildren(...shown);
  $('model-notice').hidden = shown.length === 0;
}

// ---------- the pickers: languages first, then a model of that pair

const languageLabel = (code) => (code ? languageName(code) : 'not said');
const pairOf = (m) => `${m.source}>${m.target}`;

// The source menu offers every language some model reads; the target menu the languages the chosen source is
// translated into; the model menu every model, grouped by pair, the chosen pair's group first.
function fillPickers(m) {
  const sources = [...new Set(state.models.map((o) => o.source))];
  const targets = [...new Set(state.models.filter((o) => o.source === m.source).map((o) => o.target))];
  $('source-language').replaceChildren(...sources.map((c) => new Option(languageLabel(c), c)));
  $('source-language').value = m.source;
  $('target-language').replaceChildren(...targets.map((c) => new Option(languageLabel(c), c)));
  $('target-language').value = m.target;
  const pairs = [...new Set([pairOf(m), ...state.models.map(pairOf)])];
  $('model-select').replaceChildren(...pairs.map((pair) => {
    const group = document.createElement('optgroup');
    const members = state.models.filter((o) => pairOf(o) === pair);
    group.label = members[0].pair;
    group.append(...members.map((o) => new Option(optionText(o), o.id)));
    return group;
  }));
  $('model-select').value = m.id;
}

// The model for a pair the user picked: one of the current model's family (cased stays cased), else the first.
function modelFor(source, target) {
  const fits = state.models.filter((o) => o.source === source && o.target === target);
  return fits.find((o) => state.model && family(o) === family(state.model)) ?? fits[0] ?? null;
}

function pickLanguages(source, target) {
  const targets = state.models.filter((o) => o.source === source).map((o) => o.target);
  const entry = modelFor(source, targets.includes(target) ? target : targets[0]);
  if (!entry) return;
  showModelNotice('');
  fillPickers(entry);
  if (entry !== state.model) loadModel(entry);
}

// What a model is good at, in plain words: from its list entry (good_at), else from what it was trained on.
function purposeOf(m) {
  if (m.goodAt) return m.goodAt;
  if (/caption/i.test(m.trainedOn)) return 'Short descriptions of scenes: people, animals and places, as in photo captions';
  if (/tatoeba|short .*sentence/i.test(m.trainedOn)) return 'Short everyday sentences';
  return m.trainedOn ? `Text like its training data (${m.trainedOn})` : '';
}

function showDetails(m) {
  const parts = [];
  if (Number.isFinite(m.parameters)) parts.push(`${formatCount(m.parameters)} parameters`);
  if (Number.isFinite(m.bleu)) parts.push(`BLEU ${m.bleu.toFixed(1)}${m.bleuSet ? ` (${m.bleuSet})` : ''}`);
  if (Number.isFinite(m.size)) parts.push(formatBytes(m.size));
  $('model-details').textContent = parts.join(' · ');
  $('model-name').textContent = [m.name, m.trainedOn ? `trained on ${m.trainedOn}` : '',
    m.dtype ? `weights stored as ${m.dtype}` : ''].filter(Boolean).join(', ');
  const purpose = purposeOf(m);
  // A caption model asked about anything else answers in captions: the limit is said with the strength.
  const limit = (/caption/i.test(m.trainedOn) ? ' Other kinds of text (news, chat, questions) come out as captions.' : '') +
    (m.limits ? ` ${m.limits}` : '');
  $('model-purpose').textContent = purpose ? `Good at: ${purpose[0].toLowerCase()}${purpose.slice(1)}.${limit}` : '';
  // What the model knows, beside the text box: a caption model asked about anything else answers in captions.
  $('model-knows').hidden = !m.trainedOn;
  // A caption model asked about anything else answers in captions: say what it knows best.
  const advice = /caption/i.test(m.trainedOn) ? ' Short descriptions of a scene translate best.' : '';
  $('model-knows').textContent = m.trainedOn ? `${m.pair}: trained on ${m.trainedOn}.${advice}${m.limits ? ` ${m.limits}` : ''}` : '';
  const option = [...$('model-select').options].find((o) => o.value === m.id);
  if (option) option.textContent = optionText(m);
}

// What the model menu says of each model: what it is good at, in plain words; its name (without a BLEU score in
// it) only where the pair has more than one model to tell apart. The figures are in the details.
function optionText(m) {
  if (m.trained) return m.name;
  const name = m.name.replace(/\s*\(\s*(?:BLEU\s*)?[\d.]+(?:\s*BLEU)?\s*\)/i, '').trim();
  const several = state.models.filter((o) => pairOf(o) === pairOf(m)).length > 1;
  const purpose = purposeOf(m);
  return [purpose, several || !purpose ? name : ''].filter(Boolean).join(' — ') || m.pair;
}

// ---------- loading a model (the library's model cache first, then the network with a progress bar)

function showProgress(text, loaded = 0, total = 0) {
  $('model-progress').hidden = false;
  const bar = $('progress-bar');
  if (total > 0) { bar.max = total; bar.value = loaded; } else bar.removeAttribute('value');
  $('progress-text').textContent = text;
}

async function loadModel(entry) {
  const seq = ++state.loadSeq;
  const switching = state.model && state.model !== entry;
  state.model = entry;
  // Another model's translation and maps must not stay under this one's name.
  if (switching) { clearResult(); writeAddress(); }
  showDetails(entry);
  showDirection(entry);
  showShareStatus('');
  hideModelError();
  setBody('modelState', 'loading');
  $('translate-button').disabled = true;
  const old = state.translator;
  state.translator = null;
  old?.dispose().catch(() => {});
  // A model picked while another still downloads: that download stops (its worker ends) rather than finish unseen.
  state.loading?.abort();
  const loading = state.loading = new AbortController();
  showProgress(`loading ${entry.pair}…`);
  try {
    // The worker loads the model through attend.js, which keeps it in its Cache API cache ('attend-models'):
    // the page keeps no copy of its own. models.json's size makes a cached copy of a replaced file count as old.
    // A model trained in this browser is loaded from its bytes (a copy: the worker takes them), never fetched.
    const translator = await AttendWorker.load(entry.bytes ? entry.bytes.slice().buffer : entry.url, {
      name: entry.file,
      workerUrl: WORKER_URL,
      size: Number.isFinite(entry.size) ? entry.size : undefined,
      signal: loading.signal,
      onProgress: (loaded, total, from) => {
        if (seq !== state.loadSeq) return;
        if (from === 'network') {
          showProgress(`downloading ${entry.pair}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`, loaded, total);
        } else {
          showProgress(`starting ${entry.pair} from the browser cache…`, loaded, total);
        }
      },
    });
    if (seq !== state.loadSeq) { translator.dispose().catch(() => {}); return; }
    state.translator = translator;
    const { min: beamMin, max: beamMax } = translator.optionBounds().beam;
    $('beam-size').min = String(beamMin);
    $('beam-size').max = String(beamMax);
    const info = translator.info();
    const fromCache = translator.loadedFrom === 'cache' || !!entry.trained;
    if (entry.trained && !state.models.includes(entry)) {
      // Its pair as the model says, and its place in the pickers, first.
      entry.source = languageCode(info.sourceLanguage);
      entry.target = languageCode(info.targetLanguage);
      entry.pair = entry.source && entry.target ? `${languageName(entry.source)} → ${languageName(entry.target)}`
        : 'Languages not said by the model';
      state.models.unshift(entry);
      showDirection(entry);
    }
    if (!Number.isFinite(entry.parameters)) entry.parameters = info.parameters;
    if (!Number.isFinite(entry.size)) entry.size = info.fileBytes;
    if (!entry.trainedOn) entry.trainedOn = trainedOnFromCard(info.card);
    entry.dtype = info.dtype;
    showDetails(entry);
    $('output-text').lang = info.targetLanguage || 'de';
    showProgress(`${entry.pair} ready (${fromCache ? 'from the browser cache' : 'downloaded'}, ${formatBytes(info.fileBytes)})`, 1, 1);
    setBody('modelSource', fromCache ? 'cache' : 'network');
    setBody('modelState', 'ready');
    $('translate-button').disabled = false;
    if (state.autoTranslate) { state.autoTranslate = false; translate(); }
  } catch (e) {
    if (seq !== state.loadSeq) return;
    $('model-progress').hidden = true;
    const other = entry.trained ? state.insteadOfTrained : null;
    if (other) {
      // Stored bytes that do not load (cut short, or from another version) cannot be retried into working: the
      // list's model is loaded instead, and the reason said.
      state.insteadOfTrained = null;
      showModelNotice(`The model trained in this browser could not be loaded (${e.message}). ` +
        `${other.pair}${other.name ? ` (${other.name})` : ''} is used instead.`);
      fillPickers(other);
      loadModel(other);
      return;
    }
    showModelError(e.message, () => loadModel(entry));
  }
}

let retryAction = null;

function showModelError(message, retry) {
  retryAction = retry;
  $('model-error-text').textContent = message;
  $('model-error').hidden = false;
  setBody('modelErrors', Number(document.body.dataset.modelErrors || 0) + 1);
  setBody('modelState', 'error');
}

function hideModelError() {
  $('model-error').hidden = true;
}

// ---------- the direction, and swapping it

// The part of a model's name after its last comma ("Transformer 4+4, d 128, cased" -> "cased"): models of one
// family share it, so that swapping keeps cased output cased.
const family = (m) => m.name.split(',').pop().trim().toLowerCase();

// The model that translates the other way: the same name first, then the same family, then any.
function reverseOf(m) {
  if (!m?.source || !m?.target) return null;
  const back = state.models.filter((o) => o !== m && o.source === m.target && o.target === m.source);
  return back.find((o) => o.name === m.name) ?? back.find((o) => family(o) === family(m)) ?? back[0] ?? null;
}

function showDirection(m) {
  const from = languageName(m.source);
  const to = languageName(m.target);
  if (state.models.includes(m)) fillPickers(m);
  $('source-text-lang').textContent = from || 'Source';
  $('source-text').lang = m.source;
  const button = $('swap-languages');
  const back = reverseOf(m);
  button.disabled = !back;
  if (back) {
    button.title = `Translate ${to} → ${from} instead (${back.name || back.pair})`;
    button.setAttribute('aria-label', `Swap languages: translate from ${to} to ${from}`);
  } else {
    button.title = m.source && m.target ? `No ${to} → ${from} model is listed` : 'The list does not say which languages this model translates';
    button.setAttribute('aria-label', `Swap languages (unavailable: ${button.title})`);
  }
  // The examples, and the starting sentence while it is untouched, are in the language the model reads.
  const examples = EXAMPLES[m.source] ?? [];
  $('examples').replaceChildren(...examples.map((text) => {
    const li = document.createElement('li');
    const example = document.createElement('button');
    example.type = 'button';
    example.className = 'example';
    example.textContent = text;
    example.addEventListener('click', () => { $('source-text').value = text; translate(); });
    li.append(example);
    return li;
  }));
  $('examples').parentElement.hidden = examples.length === 0;
  const input = $('source-text');
  if (examples.length && state.start && input.value === state.start.text && m.source !== state.start.lang) {
    input.value = examples[0];
    state.start = { text: input.value, lang: m.source };
  }
}

// The translation becomes the text (without one, the text stays), and the reverse model translates it.
function swapLanguages() {
  const back = reverseOf(state.model);
  if (!back) return;
  showModelNotice('');
  if (state.doc?.text) $('source-text').value = state.doc.text;
  state.start = null;   // what the box holds now is what the user swapped: it stays
  $('model-select').value = back.id;
  state.autoTranslate = $('source-text').value.trim() !== '';
  loadModel(back);
}

// ---------- translating

// The most characters one translation takes: a few pages, sentence by sentence (each sentence's maps are kept).
const MAX_CHARS = 10000;
const count = (n) => n.toLocaleString('en-US');

// The part of `text` that is translated: all of it when it fits, else up to the last end of a sentence (or line,
// else space) within MAX_CHARS, so that nothing is cut mid-word.
function translatablePart(text) {
  if (text.length <= MAX_CHARS) return text;
  const head = text.slice(0, MAX_CHARS + 1);
  const ends = [...head.matchAll(/[.!?。？！…]["'”’)\]]*(?=\s)|\n/g)].map((m) => m.index + m[0].length);
  const end = ends.length ? ends[ends.length - 1] : Math.max(head.lastIndexOf(' '), 0) || MAX_CHARS;
  return text.slice(0, Math.min(end, MAX_CHARS)).trimEnd();
}

// Beside the box, while the text is over the limit: how much of it a translation leaves out.
function showLengthNote() {
  const text = $('source-text').value.trim();
  const note = $('length-note');
  note.hidden = text.length <= MAX_CHARS;
  note.textContent = note.hidden ? '' : `The text is ${count(text.length)} characters long: the first ${count(MAX_CHARS)} `
    + '(to the end of a sentence) are translated, the rest is left out.';
}

// Translating as the user types: a pause this long after the last keystroke starts a translation. A newer one
// cancels the one under way (its result, when it comes, is dropped), so that a stale result never replaces a newer.
const LIVE_DELAY_MS = 180;
let liveTimer = 0;

function scheduleLive() {
  clearTimeout(liveTimer);
  if (!$('live-translate').checked) return;
  liveTimer = setTimeout(() => translate({ live: true }), LIVE_DELAY_MS);
}


// A translation that failed: said under the input, the status cleared.
function showTranslateError(e) {
  const error = $('translate-error');
  error.textContent = `The translation failed: ${e.message}`;
  error.hidden = false;
  $('translate-status').textContent = '';
  setBody('translateState', 'error');
}

// The end of translation `mine`, whatever became of it: the page is free again unless a newer one started.
function endTranslation(mine) {
  if (mine === state.translateSeq) {
    state.busy = false;
    state.pending = null;
  }
}
async function translate({ live = false } = {}) {
  clearTimeout(liveTimer);
  if (!state.translator) {
    if (!live) {
      $('translate-status').textContent = document.body.dataset.modelState === 'error'
        ? 'no model is loaded: see the message above' : 'the model is still loading…';
    }
    return;
  }
  const whole = $('source-text').value.trim();
  const text = translatablePart(whole);
  const error = $('translate-error');
  const beamInput = $('beam-size');
  // Within the range the module gives the beam (its optionBounds, set on the box when the model loaded).
  const beam = Math.min(Number(beamInput.max) || Infinity,
    Math.max(Number(beamInput.min) || 1, Math.round(Number(beamInput.value)) || 5));
  if (live && (!text || (state.doc && state.doc.source === text && state.doc.beam === beam && !state.busy))) return;
  // Whatever runs now is for an older text (or the same one asked again): it is cancelled.
  state.pending?.abort();
  const mine = ++state.translateSeq;
  if (!text) {
    state.busy = false;
    clearResult();
    error.textContent = 'Type a sentence to translate first.';
    error.hidden = false;
    return;
  }
  beamInput.value = beam;
  const controller = state.pending = new AbortController();
  state.busy = true;
  showShareStatus('');
  setBody('translateState', 'busy');
  $('translate-status').textContent = 'translating…';
  const started = performance.now();
  // A model switch while this runs makes its result (or the error of the disposed worker) another model's; a
  // newer translation makes it stale.
  const seq = state.loadSeq;
  const current = () => seq === state.loadSeq && mine === state.translateSeq;
  try {
    const doc = await state.translator.translateDocument(text, {
      beam, attention: true, neurons: true, alternatives: ALTERNATIVES, omissionGain: omissionGainOf(state.model),
      signal: controller.signal,
    });
    if (!current()) return;
    const ms = performance.now() - started;
    error.hidden = true;
    state.doc = { ...doc, beam, ms, source: text, leftOut: whole.length - text.length, whole };
    // The maps open on the first sentence that has them (one that could not be translated has none).
    state.sentence = Math.max(0, doc.sentences.findIndex((x) => hasMaps(x.attention?.cross)));
    showResult();
    // Typing goes on where it is: only a translation asked for by a press brings the output into view.
    if (!live) revealOutput();
    const warned = warningsOf(state.doc).length;
    $('translate-status').textContent = `done in ${ms.toFixed(0)} ms${warned ? `, with ${countWarnings(warned)}` : ''}`;
    writeAddress();
    setBody('shownText', text);
    setBody('translateState', 'done');
  } catch (e) {
    if (current()) showTranslateError(e);
  } finally {
    endTranslation(mine);
  }
}

// On a phone the output lies below the fold (the text box, the button and the keyboard fill the screen): it is
// brought into view, to the middle of the window (the text box above it stays in sight where there is room).
function revealOutput() {
  const box = $('output-text').getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  $('output-text').scrollIntoView({ block: box.height > window.innerHeight / 2 ? 'start' : 'center' });
}

// No result on screen: the output, the maps, the status line and the selection go together.
function clearResult() {
  state.doc = null;
  state.result = null;
  state.word = null;
  showAlternatives();
  $('output').hidden = true;
  $('attention-panel').hidden = true;
  $('translate-error').hidden = true;
  $('translate-status').textContent = '';
  showWarnings([]);
  showOmissions(null);
  heatmap.reset();
  alignment.reset();
  headView.reset();
  neuronPanel.reset();
  setBody('translateState', 'idle');
}

// What the translator warned about: one sentence's own warnings when there is one sentence, else the document's,
// which say where each comes from ("line 2, sentence 1: …").
function warningsOf(d) {
  if (!d) return [];
  if (d.sentences.length === 1) return d.sentences[0].warnings ?? [];
  return d.warnings ?? d.sentences.flatMap((x) => x.warnings ?? []);
}

const countWarnings = (n) => `${n} warning${n === 1 ? '' : 's'}`;

// Source words the translation may have left out (the core's omission check), said in plain words under the
// translation: a fluent, confident translation of part of a sentence is what the confidence does not catch.
function showOmissions(d) {
  const box = $('omission-note');
  const words = [...new Set((d?.sentences ?? []).flatMap((x) => x.omittedWords ?? []))];
  box.hidden = words.length === 0;
  box.dataset.words = JSON.stringify(words);
  box.textContent = words.length
    ? `This translation may have left out ${words.map((w) => `“${w}”`).join(', ')}: the model finds its translation `
      + `as likely without ${words.length === 1 ? 'that word' : 'those words'}. Check that the meaning is all there.`
    : '';
}

// The chip beside the output: hidden without warnings; a button that opens and closes their list.
function showWarnings(warnings) {
  const box = $('output-warnings');
  box.hidden = warnings.length === 0;
  $('warnings-count').textContent = countWarnings(warnings.length);
  $('warnings-list').replaceChildren(...warnings.map((w) => {
    const li = document.createElement('li');
    li.textContent = w;
    return li;
  }));
  // A new set of warnings opens closed, so that a chip never shows an old list already unfolded.
  setWarningsOpen(false);
}

function setWarningsOpen(open) {
  $('warnings-toggle').setAttribute('aria-expanded', String(open));
  $('warnings-list').hidden = !open;
}

// The address names the model, the text and the beam of what is on screen, so that it can be shared or kept.
function writeAddress() {
  const url = new URL(location.href);
  const set = (key, value) => (value === null || value === undefined || value === '' ? url.searchParams.delete(key) : url.searchParams.set(key, value));
  if (state.model) {
    set('trained', state.model.trained || null);
    set('model', state.model.id);
    set('from', state.model.source);
    set('to', state.model.target);
  }
  // The view of the maps: which picture, which kind of map, which layer and head (1-based, as the menus say).
  const shown = state.doc && state.result;
  set('text', state.doc ? state.doc.source : null);
  set('beam', state.doc ? String(state.doc.beam) : null);
  set('live', $('live-translate').checked ? '1' : null);
  set('view', shown ? state.view : null);
  set('map', shown ? state.kind : null);
  set('layer', shown && Number.isFinite(state.layer) ? String(state.layer + 1) : null);
  set('across', shown ? state.across : null);
  set('head', shown ? (state.head === 'mean' ? 'mean' : String(state.head + 1)) : null);
  history.replaceState(null, '', url);
  $('share-link').href = url.href;
}

// A link's view, before its translation arrives: the maps open on it.
function readViewFromAddress() {
  const view = params.get('view');
  if (TABS.includes(view)) state.view = view;
  if (['cross', 'encoderSelf', 'decoderSelf'].includes(params.get('map'))) state.kind = params.get('map');
  const layer = Number(params.get('layer'));
  if (Number.isInteger(layer) && layer >= 1) state.layer = layer - 1;
  if (['mean', 'rollout'].includes(params.get('across'))) state.across = params.get('across');
  const head = params.get('head');
  if (head === 'mean') state.head = 'mean';
  else if (Number.isInteger(Number(head)) && Number(head) >= 1) state.head = Number(head) - 1;
}

function showResult() {
  const d = state.doc;
  $('output').hidden = false;
  const note = $('output-note');
  note.hidden = !d.leftOut;
  note.dataset.translatedChars = String(d.source.length);
  const rest = d.whole.slice(d.source.length).trim();
  note.textContent = d.leftOut
    ? `Only the first ${count(d.source.length)} characters are translated (the page takes up to ${count(MAX_CHARS)}): `
      + `the last ${count(d.leftOut)} characters, from “${rest.length > 40 ? `${rest.slice(0, 39)}…` : rest}”, are left out.`
    : '';
  const spans = sentenceSpans(d);
  if (spans) $('output-text').replaceChildren(...spans);
  else $('output-text').textContent = d.text;
  showWarnings(warningsOf(d));
  showOmissions(d);
  const several = d.sentences.length > 1;
  $('sentence-choice').hidden = !several;
  $('output-text').classList.toggle('several', several);
  $('sentence-select').replaceChildren(...d.sentences.map((x, i) => {
    const source = d.source.slice(x.begin, x.end);
    return new Option(`${i + 1}: ${source.length > 60 ? `${source.slice(0, 59)}…` : source}`, i);
  }));
  showSentence(state.sentence);
}

// The translated text as one span per sentence or clause (the attention views show the one chosen), laid out as
// the translator joins them: on each of the input's lines, every sentence's joiner (a space, or the comma and
// conjunction between clauses) and its placed text. Any other layout of the text (which this page does not know) is
// shown as plain text, with the sentence menu still there. A lone sentence is a span only when it carries warnings,
// so that it can be marked.
function sentenceSpans(d) {
  if (d.sentences.length === 0) return null;
  if (d.sentences.length === 1 && !d.sentences[0].warnings?.length) return null;
  const lines = d.source.split('\n').map(() => '');
  const nodes = lines.map(() => []);
  d.sentences.forEach((x, i) => {
    if (!x.placedText || lines[x.line] === undefined) return;
    const span = document.createElement('span');
    span.className = 'sentence';
    span.dataset.index = i;
    span.textContent = x.placedText;
    if (x.warnings?.length) {
      span.classList.add('warned');
      span.title = x.warnings.join('\n');
    }
    span.addEventListener('click', () => showSentence(i));
    lines[x.line] += x.joiner + x.placedText;
    if (x.joiner) nodes[x.line].push(x.joiner);
    nodes[x.line].push(span);
  });
  if (lines.join('\n') !== d.text) return null;
  return nodes.flatMap((n, l) => (l > 0 ? ['\n', ...n] : n));
}

// One sentence of the translation in the word lines and the attention views.
function showSentence(index) {
  const d = state.doc;
  state.sentence = index;
  const r = d.sentences[index] ?? null;
  state.result = r;
  $('sentence-select').value = String(index);
  for (const span of $('output-text').querySelectorAll('.sentence')) {
    span.classList.toggle('chosen', Number(span.dataset.index) === index);
  }
  const search = d.sentences.reduce((sum, x) => sum + (x.timings?.searchMs ?? 0), 0);
  // The model's confidence in what it wrote (the geometric mean of its tokens' probabilities): low on text unlike its
  // training captions, where the translator also warns.
  const confidence = r && !r.untranslated && r.targetTokens.length ? `, confidence ${r.confidence.toFixed(2)}` : '';
  const counts = (r ? `${r.sourceTokens.length} source and ${r.targetTokens.length} target tokens` : 'no tokens')
    + confidence;
  $('output-timing').textContent = `${d.ms.toFixed(0)} ms in all (search ${search.toFixed(1)} ms) · beam ${d.beam}`
    + (d.sentences.length > 1 ? ` · ${d.sentences.length} sentences; sentence ${index + 1}: ${counts}` : ` · ${counts}`);

  const source = wordsOf(r?.sourceTokens ?? []);
  const target = wordsOf(r?.targetTokens ?? []);
  $('source-words').replaceChildren(...source.map((w, i) => {
    const span = document.createElement('span');
    span.className = 'word';
    span.textContent = w.text;
    span.dataset.index = i;
    return span;
  }));
  $('target-words').replaceChildren(...target.map((w, i) => {
    const span = document.createElement('span');
    span.className = 'word target';
    span.tabIndex = 0;
    span.textContent = w.text;
    span.dataset.tokens = w.tokens.join(',');
    span.setAttribute('aria-pressed', 'false');
    // Hover and focus show a word for as long as they last; a click, a tap or Enter picks it until the next pick.
    const on = () => highlightFromTarget(w.tokens, span);
    span.addEventListener('pointerenter', on);
    span.addEventListener('focus', on);
    span.addEventListener('pointerleave', showPickedWord);
    span.addEventListener('blur', showPickedWord);
    span.addEventListener('click', () => pickWord(i));
    span.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pickWord(i); }
      if (e.key === 'Escape') { state.word = null; showPickedWord(); }
      if (e.key === 'ArrowDown' && state.word?.index === i && !$('alternatives').hidden) {
        e.preventDefault();
        $('alternatives-list').querySelector('button:not([disabled])')?.focus();
      }
    });
    return span;
  }));
  state.sourceWords = source;
  state.targetWords = target;
  state.word = null;
  showAlternatives();
  if (!hasMaps(r?.attention?.cross)) {
    $('attention-panel').hidden = true;
    return;
  }
  $('attention-panel').hidden = false;
  // A new sentence: nothing from the last one (its picked cell, its readouts) stays on screen.
  state.word = null;
  heatmap.reset();
  alignment.reset();
  headView.reset();
  fillSelectors();
  renderViews();
}

function pickWord(index) {
  const w = state.targetWords?.[index];
  state.word = w && state.word?.index !== index ? { index, tokens: w.tokens } : null;
  if (state.word) heatmap.reset();   // one pick at a time: a picked word replaces a picked cell
  showPickedWord();
}

function showPickedWord() {
  const spans = [...$('target-words').children];
  spans.forEach((s, i) => s.setAttribute('aria-pressed', String(state.word?.index === i)));
  if (state.word) highlightFromTarget(state.word.tokens, spans[state.word.index] ?? null);
  else highlightFromTarget([], null);
  showAlternatives();
}

// ---------- the other words the model weighed at a picked output word, and translating again from one

// How many of each target token's most probable alternatives a translation brings.
const ALTERNATIVES = 5;

// A probability as people read one: whole percent, tenths below 10%, and under 0.1% said so rather than as 0.
const percent = (p) => (p < 0.0005 ? '<0.1%' : `${(100 * p).toFixed(p < 0.095 ? 1 : 0)}%`);

// A piece as a word: its characters as the chips show them, and a joiner and an ellipsis where the word goes on.
function alternativeLabel(token) {
  if (token === '<eos>') return 'end of the sentence';
  const [label] = tokenLabels([token]);
  return token.endsWith('@@') ? `${label}${JOINER}…` : label;
}

// The picked word's alternatives: those of the distribution its first piece came from. Shown again only for
// another word, so that focus inside the list stays where it is.
function showAlternatives() {
  const box = $('alternatives');
  const index = state.word?.index;
  const w = index === undefined ? null : state.targetWords?.[index];
  const position = w?.tokens[0];
  const a = w ? state.result?.alternatives?.[position] : null;
  if (!a || !a.tokens.length) {
    box.hidden = true;
    delete box.dataset.word;
    return;
  }
  if (!box.hidden && box.dataset.word === String(index)) return;
  box.dataset.word = String(index);
  box.dataset.position = String(position);
  $('alternatives-title').textContent = `“${w.text}”: ${percent(a.probability)}. The model's ${a.tokens.length} likeliest words here:`;
  $('alternatives-list').replaceChildren(...a.tokens.map((token, j) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'alternative';
    button.dataset.token = token;
    const word = document.createElement('span');
    // The word shown is the chip's (copy-through may have put a name or number back where the model wrote a
    // stand-in), where the word is this one piece.
    word.textContent = token === a.token && w.tokens.length === 1 ? w.text : alternativeLabel(token);
    const p = document.createElement('span');
    p.className = 'p';
    p.textContent = percent(a.probabilities[j]);
    button.append(word, p);
    if (token === a.token) {
      button.setAttribute('aria-current', 'true');
      button.disabled = true;
      button.title = 'the word the translation has';
    } else if (token === '<eos>') {
      button.disabled = true;
      button.title = 'a translation cannot be asked to end here';
    } else {
      button.title = 'translate again with this word here';
      button.addEventListener('click', () => translateFrom(position, token));
    }
    button.addEventListener('keydown', (e) => {
      const buttons = [...$('alternatives-list').querySelectorAll('button:not([disabled])')];
      const k = buttons.indexOf(button);
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        buttons[(k + (e.key === 'ArrowDown' ? 1 : buttons.length - 1)) % buttons.length]?.focus();
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        const chip = $('target-words').children[index];
        state.word = null;
        showPickedWord();
        chip?.focus();
      }
    });
    item.append(button);
    return item;
  }));
  box.hidden = false;
  // The card starts under the word where it fits, and its caret points at the word.
  const chip = $('target-words').children[index];
  const line = $('target-words');
  const chipLeft = chip.offsetLeft - line.offsetLeft;
  const left = Math.max(0, Math.min(chipLeft, line.clientWidth - box.offsetWidth));
  box.style.marginLeft = `${left}px`;
  box.style.setProperty('--caret', `${Math.max(6, Math.min(box.offsetWidth - 16, chipLeft - left + chip.offsetWidth / 2 - 5))}px`);
}

// Translates the shown sentence again, its target tokens before `position` kept and `token` there (the
// translator's targetPrefix), the rest as the model goes on from it; the other sentences stay as they are.
async function translateFrom(position, token) {
  const d = state.doc;
  const index = state.sentence;
  const x = d?.sentences[index];
  if (!state.translator || !x?.alternatives) return;
  const prefix = [...x.alternatives.slice(0, position).map((a) => a.token), token];
  state.pending?.abort();
  const mine = ++state.translateSeq;
  const controller = state.pending = new AbortController();
  state.busy = true;
  setBody('translateState', 'busy');
  $('translate-status').textContent = 'translating again from the chosen word…';
  const started = performance.now();
  const seq = state.loadSeq;
  const current = () => seq === state.loadSeq && mine === state.translateSeq && state.doc === d;
  const error = $('translate-error');
  try {
    const again = await state.translator.translateDocument(d.source.slice(x.begin, x.end), {
      beam: d.beam, attention: true, neurons: true, alternatives: ALTERNATIVES, targetPrefix: prefix,
      omissionGain: omissionGainOf(state.model), signal: controller.signal,
    });
    if (!current()) return;
    if (again.sentences.length !== 1) throw new Error('the sentence no longer reads as one sentence');
    const y = again.sentences[0];
    const sentences = d.sentences.slice();
    sentences[index] = { ...y, begin: x.begin, end: x.end, line: x.line, joiner: x.joiner };
    // The document's text and warnings as the translator puts them together: each line's sentences, and each
    // warning after where it is.
    const lines = d.source.split('\n').map(() => '');
    const warnings = [];
    let line = -1, inLine = 0;
    for (const s of sentences) {
      inLine = s.line === line ? inLine + 1 : 1;
      line = s.line;
      if (lines[s.line] !== undefined) lines[s.line] += s.joiner + s.placedText;
      for (const w of s.warnings ?? []) warnings.push(`line ${s.line + 1}, sentence ${inLine}: ${w}`);
    }
    const ms = performance.now() - started;
    state.doc = { ...d, sentences, text: lines.join('\n'), warnings, ms };
    error.hidden = true;
    showResult();
    // The chosen word, now in the translation, keeps the focus that chose it.
    const chip = [...$('target-words').children].find((c) => c.dataset.tokens.split(',').map(Number).includes(position));
    chip?.focus({ preventScroll: true });
    $('translate-status').textContent = `translated again from “${alternativeLabel(token)}” in ${ms.toFixed(0)} ms`;
    setBody('translateState', 'done');
  } catch (e) {
    if (current()) showTranslateError(e);
  } finally {
    endTranslation(mine);
  }
}

// The map of the selected layer (or the mean of the layers, or their rollout) and head (or the mean of the
// heads) as a rows x cols array.
function mapValues(maps, layer, head) {
  if (layer === 'mean') return meanOfLayers(maps, head);
  if (layer === 'rollout') return rollout(maps, head);
  return layerMap(maps, layer, head);
}

// The layer a view shows: one (an index), or every layer's mean or rollout (state.across).
const shownLayer = () => state.across || state.layer;
const layerTitle = (layer) => (layer === 'mean' ? 'mean of all layers' : layer === 'rollout' ? 'rollout of all layers' : `layer ${layer + 1}`);

// Hovering or focusing an output word (or a heatmap row): mark the source words its tokens attend to most.
function highlightFromTarget(rows, span, fromHeatmap = false) {
  const r = state.result;
  for (const s of $('target-words').children) s.classList.toggle('active', s === span);
  const sourceSpans = $('source-words').children;
  if (!hasMaps(r?.attention?.cross) || rows.length === 0) {
    for (const s of sourceSpans) { s.classList.remove('strong'); s.style.removeProperty('--w'); }
    if (!fromHeatmap && state.kind === 'cross') heatmap.highlight({});
    return;
  }
  const cross = r.attention.cross;
  const [layers, , , cols] = cross.shape;
  const values = mapValues(cross, state.across || Math.min(state.layer, layers - 1), state.head);
  const perToken = new Float32Array(cols);
  for (const row of rows) for (let k = 0; k < cols; k++) perToken[k] += values[row * cols + k] / rows.length;
  const perWord = state.sourceWords.map((w) => w.tokens.reduce((s, k) => s + perToken[k], 0));
  const top = Math.max(...perWord, 1e-9);
  const strongTokens = [];
  state.sourceWords.forEach((w, i) => {
    const s = sourceSpans[i];
    s.style.setProperty('--w', (perWord[i] / top).toFixed(3));
    const strong = perWord[i] >= 0.5 * top;
    s.classList.toggle('strong', strong);
    if (strong) strongTokens.push(...w.tokens);
  });
  if (!fromHeatmap && state.kind === 'cross') heatmap.highlight({ rows, cols: strongTokens });
}

// ---------- the attention views

const heatmap = new Heatmap($('heatmap'), {
  tooltip: $('heatmap-tooltip'),
  readout: $('heatmap-readout'),
  onHover: (row) => {
    if (state.kind !== 'cross') return;
    const spans = [...$('target-words').children];
    const span = spans.find((s) => s.dataset.tokens.split(',').map(Number).includes(row)) ?? null;
    if (row >= 0) highlightFromTarget([row], span, true);
    else showPickedWord();
  },
  // One pick at a time: a picked cell replaces a picked output word.
  onPick: (row) => {
    if (row >= 0 && state.word) {
      state.word = null;
      for (const s of $('target-words').children) s.setAttribute('aria-pressed', 'false');
      showAlternatives();
    }
  },
});
const alignment = new Alignment($('alignment'), { readout: $('alignment-readout') });
const headView = new HeadView($('headview'), { readout: $('headview-readout') });

// One checkbox per head, in its colour; a model with another number of heads gets a new set, all on.
function fillHeadToggles(heads) {
  if (state.headsShown.length === heads) return;
  state.headsShown = new Array(heads).fill(true);
  const box = $('head-toggles');
  box.replaceChildren(box.querySelector('legend'), ...state.headsShown.map((_, h) => {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = true;
    input.id = `head-toggle-${h}`;
    input.addEventListener('change', () => { state.headsShown[h] = input.checked; renderViews(); });
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = HEAD_COLOURS[h % HEAD_COLOURS.length];
    label.append(input, swatch, `head ${h + 1}`);
    return label;
  }));
}

function renderHeadView() {
  const maps = state.result.attention[state.kind];
  const [, heads, rows, cols] = maps.shape;
  const labels = labelsFor(state.kind);
  fillHeadToggles(heads);
  // Every head of the layer; over all layers, each head's mean (rollout is of the heads' mean: not offered here).
  const perHead = state.across ? Array.from({ length: heads }, (_, h) => meanOfLayers(maps, h)) : maps.layers[state.layer];
  headView.set({ heads: perHead, rows, cols, rowLabels: labels.rows, colLabels: labels.cols,
    threshold: state.threshold, shown: state.headsShown });
}

function labelsFor(kind) {
  const r = state.result;
  // Decoder self-attention: row i is the step that produced target token i; its keys are the decoder inputs so
  // far, <bos> then the tokens produced before.
  const source = tokenLabels(r.sourceTokens);
  const target = tokenLabels(r.targetTokens);
  if (kind === 'cross') return { rows: target, cols: source };
  if (kind === 'encoderSelf') return { rows: source, cols: source };
  return { rows: target, cols: ['<bos>', ...target.slice(0, -1)] };
}

const KIND_TITLES = { cross: 'cross attention', encoderSelf: 'encoder self-attention', decoderSelf: 'decoder self-attention' };

// A model may lack some kinds of maps: a GRU encoder-decoder with Bahdanau attention has one cross-attention map
// (1 layer x 1 head) and no self-attention (an empty list, or none).
function hasMaps(maps) {
  return !!maps && Array.isArray(maps.layers) && maps.layers.length > 0 && maps.layers[0]?.length > 0
    && Array.isArray(maps.shape) && maps.shape[0] > 0 && maps.shape[1] > 0;
}

function fillKinds() {
  const attention = state.result.attention;
  const missing = [];
  for (const option of $('map-kind').options) {
    option.dataset.label ??= option.textContent;
    const ok = hasMaps(attention[option.value]);
    option.disabled = !ok;
    option.textContent = ok ? option.dataset.label : `${option.dataset.label} — not in this model`;
    if (!ok) missing.push(KIND_TITLES[option.value]);
  }
  if (!hasMaps(attention[state.kind])) state.kind = 'cross';
  const note = $('map-note');
  note.hidden = missing.length === 0;
  note.textContent = missing.length
    ? `This model has no ${missing.join(' and no ')} (a recurrent encoder-decoder attends only from the target to the source): only its cross attention is shown.`
    : '';
}

function fillSelectors() {
  fillKinds();
  const maps = state.result.attention[state.kind];
  const [layers, heads] = maps.shape;
  // Rollout needs a layer's keys to be the layer below's queries (self-attention), and is of the heads' mean.
  const rolls = state.kind !== 'cross' && canRollout(maps) && state.view !== 'heads';
  if ((state.across === 'rollout' && !rolls) || layers < 2) state.across = '';
  state.layer = Math.min(state.layer, layers - 1);
  if (state.head !== 'mean') state.head = Math.min(state.head, heads - 1);
  const layerSelect = $('layer-select');
  layerSelect.replaceChildren(...Array.from({ length: layers }, (_, l) => new Option(`${l + 1} of ${layers}`, l)));
  layerSelect.value = state.layer;
  layerSelect.disabled = !!state.across;
  $('across-field').hidden = layers < 2 || state.view === 'grid';
  const rollOption = $('across-select').querySelector('option[value="rollout"]');
  rollOption.disabled = !rolls;
  rollOption.textContent = rolls ? 'rollout' : 'rollout (self-attention only)';
  $('across-select').value = state.across;
  const headSelect = $('head-select');
  headSelect.replaceChildren(...Array.from({ length: heads }, (_, h) => new Option(`${h + 1} of ${heads}`, h)),
    new Option('mean of all heads', 'mean'));
  headSelect.value = state.head;
  $('map-kind').value = state.kind;
}

function currentMap() {
  const maps = state.result.attention[state.kind];
  const [, , rows, cols] = maps.shape;
  const labels = labelsFor(state.kind);
  const headName = state.head === 'mean' ? 'mean of heads' : `head ${state.head + 1}`;
  return {
    values: mapValues(maps, shownLayer(), state.head), rows, cols, rowLabels: labels.rows, colLabels: labels.cols,
    title: `${KIND_TITLES[state.kind]}, ${layerTitle(shownLayer())}, ${headName}`,
  };
}

// The menus and the save buttons that mean something in the view shown: the grid has every layer and head, the
// head view every head of a layer; a PNG saves the picture shown, an SVG only the heatmap (drawn again as vectors).
function matchControls() {
  const view = state.view;
  $('layer-field').hidden = view === 'grid';
  // The neuron view is of one layer and one head: their query and key vectors.
  if (view === 'grid' || view === 'neurons') $('across-field').hidden = true;
  $('layer-select').disabled = !!state.across && view !== 'neurons';
  $('head-field').hidden = view === 'grid' || view === 'heads';
  $('download-png').disabled = view === 'grid' || view === 'neurons';
  $('download-svg').disabled = view !== 'heatmap';
  $('download-png').title = view === 'grid' ? 'Open a panel in the heatmap to save it'
    : view === 'neurons' ? 'The neuron view is not a picture to save' : `Save the ${VIEW_NAMES[view]} shown as a PNG picture`;
  $('download-svg').title = view === 'heatmap' ? 'Save the heatmap shown as an SVG drawing' : 'An SVG is made of the heatmap only';
  $('download-hint').textContent = view === 'grid' ? 'Save a map: open it in the heatmap first;' : 'Save the map shown:';
}

const VIEW_NAMES = { heatmap: 'heatmap', grid: 'grid', alignment: 'alignment lines', heads: 'head view', neurons: 'neuron view' };

function renderViews() {
  matchControls();
  if (!hasMaps(state.result?.attention?.[state.kind])) return;
  const map = currentMap();
  const canvas = $('heatmap');
  canvas.dataset.kind = state.kind;
  canvas.dataset.layer = state.layer;
  canvas.dataset.across = state.across;
  canvas.dataset.head = state.head;
  if (state.view === 'heatmap') {
    heatmap.set(map);
    renderLegend($('heatmap-legend'), heatmap.max, `attention weight (${map.title})`);
  } else if (state.view === 'grid') {
    renderGrid();
  } else if (state.view === 'heads') {
    renderHeadView();
  } else if (state.view === 'neurons') {
    renderNeurons();
  } else {
    alignment.set(map);
  }
  // A picked output word is shown again on the new layer or head (the heatmap re-applies its own pick).
  if (state.word && !(state.view === 'heatmap' && heatmap.selected.row >= 0)) showPickedWord();
  overflowWatch.forEach((w) => w.update());
}

// The neuron view of the layer chosen (whatever "across layers" says) and the head chosen (head 1 for the mean of
// the heads, which has no query and key of its own).
const neuronPanel = new NeuronPanel({
  queries: $('neuron-queries'), query: $('neuron-query'), rows: $('neuron-rows'), readout: $('neuron-readout'),
  onPick: () => overflowWatch.forEach((w) => w.update()),
});

function renderNeurons() {
  const r = state.result;
  const note = $('neuron-note');
  const neurons = r.neurons;
  $('neuron-body').hidden = !neurons;
  if (!neurons) {
    neuronPanel.reset();
    note.hidden = false;
    note.textContent = 'The neuron view does not apply to this model: its attention is additive (Bahdanau): a small '
      + 'network scores each source word from the decoder state, with no query and key vectors to multiply.';
    return;
  }
  const maps = r.attention[state.kind];
  const layer = Math.min(state.layer, maps.shape[0] - 1);
  const head = state.head === 'mean' ? 0 : state.head;
  note.hidden = state.head !== 'mean';
  note.textContent = state.head === 'mean'
    ? `The mean of the heads has no query and key vectors of its own: head 1 of ${maps.shape[1]} is shown (choose another in the Head menu).`
    : '';
  const labels = labelsFor(state.kind);
  neuronPanel.set({
    neurons, kind: state.kind, layer, head, queryLabels: labels.rows, keyLabels: labels.cols,
    map: layerMap(maps, layer, head),
  });
  const panel = $('neuron-rows');
  panel.dataset.kind = state.kind;
  panel.dataset.layer = String(layer);
  panel.dataset.head = String(head);
  panel.dataset.dim = String(neurons[state.kind].dim);
}

function renderGrid() {
  const maps = state.result.attention[state.kind];
  const [layers, heads, rows, cols] = maps.shape;
  const max = maxOf(maps.data);
  const grid = $('head-grid');
  grid.style.setProperty('--heads', heads);
  grid.dataset.layers = layers;
  grid.dataset.heads = heads;
  const cells = [document.createElement('span')];
  for (let h = 0; h < heads; h++) {
    const th = document.createElement('span');
    th.className = 'grid-head';
    th.textContent = `head ${h + 1}`;
    cells.push(th);
  }
  for (let l = 0; l < layers; l++) {
    const tl = document.createElement('span');
    tl.className = 'grid-layer';
    tl.textContent = `layer ${l + 1}`;
    cells.push(tl);
    for (let h = 0; h < heads; h++) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'panel-button';
      button.setAttribute('aria-label', `${KIND_TITLES[state.kind]}, layer ${l + 1}, head ${h + 1}: open in the heatmap`);
      if (l === state.layer && h === state.head) button.classList.add('current');
      const canvas = document.createElement('canvas');
      drawPanel(canvas, maps.layers[l][h], rows, cols, max);
      button.append(canvas);
      button.addEventListener('click', () => {
        state.layer = l;
        state.head = h;
        fillSelectors();
        selectTab('heatmap', true);
      });
      cells.push(button);
    }
  }
  grid.replaceChildren(...cells);
  renderLegend($('grid-legend'), max, `attention weight (${KIND_TITLES[state.kind]}, one scale for every panel)`);
}

// ---------- sharing and keeping

const overflowWatch = [watchOverflow($('heatmap-scroll')), watchOverflow($('alignment-scroll')), watchOverflow($('heads-scroll')),
  watchOverflow($('neuron-scroll'))];

// A passing message ("The link is on the clipboard."): it goes at the next thing the user does, or after a while.
let statusTimer = 0;
function showShareStatus(text, { lasting = false } = {}) {
  clearTimeout(statusTimer);
  $('share-status').textContent = text;
  if (!text) $('copy-fallback').hidden = true;
  else if (!lasting) statusTimer = setTimeout(() => showShareStatus(''), 8000);
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    showShareStatus(`The ${what} is on the clipboard.`);
  } catch {
    // No clipboard here (an insecure page, or permission refused): select the text so that Ctrl+C copies it; the
    // advice stays until the next action, since the copying is the user's to do.
    showShareStatus(`Press Ctrl+C (⌘C) to copy the ${what}.`, { lasting: true });
    const field = $('copy-fallback');
    field.hidden = false;
    field.value = text;
    field.select();
  }
}

function fileStem() {
  const head = state.head === 'mean' ? 'mean' : `head${state.head + 1}`;
  const layer = state.across ? `layers-${state.across}` : `layer${state.layer + 1}`;
  return `attention-${state.kind}-${layer}-${head}`;
}

function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// ---------- tabs (arrow keys move between them, as the ARIA tab pattern says)

const TABS = ['heatmap', 'grid', 'alignment', 'heads', 'neurons'];

function selectTab(view, focus = false) {
  state.view = view;
  showShareStatus('');
  // The layer menu's choices depend on the view (the head view has no rollout).
  if (hasMaps(state.result?.attention?.[state.kind])) fillSelectors();
  if (state.doc) writeAddress();
  for (const v of TABS) {
    const tab = $(`tab-${v}`);
    const on = v === view;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`view-${v}`).hidden = !on;
    if (on && focus) tab.focus();
  }
  renderViews();
}

// ---------- wiring

function wire() {
  $('translate-form').addEventListener('submit', (e) => { e.preventDefault(); translate(); });
  $('source-text').addEventListener('input', () => { showLengthNote(); scheduleLive(); });
  $('live-translate').addEventListener('change', (e) => { if (e.target.checked) translate({ live: true }); });
  $('source-text').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); translate(); }
  });
  $('retry-button').addEventListener('click', () => retryAction?.());
  $('model-select').addEventListener('change', (e) => {
    showModelNotice('');
    const entry = state.models.find((m) => m.id === e.target.value);
    if (entry) loadModel(entry);
  });
  $('source-language').addEventListener('change', (e) => pickLanguages(e.target.value, $('target-language').value));
  $('target-language').addEventListener('change', (e) => pickLanguages($('source-language').value, e.target.value));
  $('map-kind').addEventListener('change', (e) => { state.kind = e.target.value; fillSelectors(); renderViews(); writeAddress(); });
  $('layer-select').addEventListener('change', (e) => { state.layer = Number(e.target.value); renderViews(); writeAddress(); });
  $('across-select').addEventListener('change', (e) => {
    state.across = e.target.value;
    $('layer-select').disabled = !!state.across;
    renderViews();
    writeAddress();
  });
  $('head-select').addEventListener('change', (e) => {
    state.head = e.target.value === 'mean' ? 'mean' : Number(e.target.value);
    renderViews();
    writeAddress();
  });
  for (const v of TABS) {
    const tab = $(`tab-${v}`);
    tab.addEventListener('click', () => selectTab(v));
    tab.addEventListener('keydown', (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (e.key === 'Home' || e.key === 'End') {
        e.preventDefault();
        selectTab(e.key === 'Home' ? TABS[0] : TABS[TABS.length - 1], true);
      } else if (step) {
        e.preventDefault();
        selectTab(TABS[(TABS.indexOf(v) + step + TABS.length) % TABS.length], true);
      }
    });
  }
  $('swap-languages').addEventListener('click', swapLanguages);
  let pending = 0;
  window.addEventListener('resize', () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => { if (state.view !== 'grid') renderViews(); });
  });
  $('head-threshold').addEventListener('input', (e) => {
    state.threshold = Number(e.target.value);
    $('head-threshold-value').textContent = state.threshold.toFixed(2);
    renderViews();
  });
  readViewFromAddress();
  $('live-translate').checked = params.get('live') === '1';
  selectTab(state.view);
  if (params.get('text')) $('source-text').value = params.get('text');
  else state.start = { text: $('source-text').value, lang: 'en' };  // index.html's sentence
  if (params.get('beam')) $('beam-size').value = params.get('beam');
  showLengthNote();
  $('copy-text').addEventListener('click', () => copy(state.doc?.text ?? '', 'translation'));
  $('sentence-select').addEventListener('change', (e) => showSentence(Number(e.target.value)));
  $('copy-link').addEventListener('click', () => copy($('share-link').href, 'link'));
  $('warnings-toggle').addEventListener('click', (e) => {
    setWarningsOpen(e.currentTarget.getAttribute('aria-expanded') !== 'true');
  });
  $('download-png').addEventListener('click', async () => {
    if (state.view === 'heatmap') {
      download(await heatmapPng(currentMap()), `${fileStem()}.png`);
      return;
    }
    // The lines views: the picture as drawn (with the token picked, if any).
    const canvas = $(state.view === 'heads' ? 'headview' : 'alignment');
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    const stem = state.view === 'heads'
      ? `heads-${state.kind}-${state.across ? 'layers-mean' : `layer${state.layer + 1}`}`
      : fileStem().replace(/^attention-/, 'alignment-');
    if (blob) download(blob, `${stem}.png`);
  });
  $('download-svg').addEventListener('click', () => {
    const map = currentMap();
    download(new Blob([heatmapSvg(map)], { type: 'image/svg+xml' }), `${fileStem()}.svg`);
  });
  $('download-json').addEventListener('click', () => {
    const json = JSON.stringify(attentionJson(state.doc.sentences));
    download(new Blob([json + '\n'], { type: 'application/json' }), 'attention.json');
  });
  $('engine-info').textContent = `This browser runs the ${simdSupported() ? 'WebAssembly SIMD' : 'plain WebAssembly'} build.`;
}

wire();
loadModelList();
registerServiceWorker();
