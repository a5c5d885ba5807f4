// The attention lab page: loads the lab module (the C++ core in WebAssembly) and sets up each view. The page
// states its progress in <body data-lab-state> (loading | ready | error); each view's <section> gets
// data-ready="true" and data attributes with the numbers it shows.
import { AttendLab } from '../wasm/attend-lab.js';
import { $ } from './lab-dom.js';
import { setupNadarayaWatson } from './lab-nw.js';
import { setupMaskedSoftmax } from './lab-masked.js';
import { setupScoring } from './lab-scoring.js';
import { setupPositionalEncoding } from './lab-positional.js';
import { setupBahdanau } from './lab-bahdanau.js';
import { setupLanguageModels } from './lab-lm.js';
import { registerServiceWorker } from './register-sw.js';

let views = [];

async function start() {
  document.body.dataset.labState = 'loading';
  $('lab-error').hidden = true;
  $('lab-status').textContent = 'Loading the WebAssembly core…';
  let lab;
  try {
    lab = await AttendLab.load();
  } catch (e) {
    document.body.dataset.labState = 'error';
    $('lab-status').textContent = '';
    $('lab-error-text').textContent = `${e.message}. Check your connection, then retry.`;
    $('lab-error').hidden = false;
    return;
  }
  views = [setupNadarayaWatson, setupMaskedSoftmax, setupScoring, setupPositionalEncoding, setupBahdanau]
    .map((setup) => setup(lab));
  // The language models run in the translator's WebAssembly module, which loads beside the lab's.
  views.push(setupLanguageModels());
  $('lab-status').textContent = '';
  $('lab-engine').textContent = `This browser runs the ${lab.simd ? 'WebAssembly SIMD' : 'plain WebAssembly'} build.`;
  document.body.dataset.labState = 'ready';
}

$('lab-retry').addEventListener('click', start);
let pending = 0;
window.addEventListener('resize', () => {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(() => views.forEach((v) => v.redraw()));
});
start();
registerServiceWorker();
