// The attention lab's worked Bahdanau step (seed 003): translating 我 喜欢 吃 鱼, the decoder is about to write
// "eating". Editable encoder states h_i, decoder state s and scores e_i; the weights are the softmax of the
// scores and the context vector the weighted sum of the h_i, both computed by the core.
import { $, fmt, readNumber, showError } from './lab-dom.js';

const WORDS = ['我', '喜欢', '吃', '鱼'];
const GLOSSES = ['I', 'like', 'eat', 'fish'];
const ARTICLE = {
  s: [0.6, 0.4],
  h: [[0.9, 0.1], [0.7, 0.3], [0.2, 0.8], [0.1, 0.9]],
  scores: [0.58, 0.54, 0.44, 0.42],
};

export function setupBahdanau(lab) {
  const section = $('bahdanau');
  const input = (id, value, label) => {
    const el = document.createElement('input');
    Object.assign(el, { id, type: 'number', step: '0.01', value: String(value), className: 'num' });
    el.setAttribute('aria-label', label);
    el.addEventListener('input', id.startsWith('bd-e-') ? () => { fromState = false; update(); } : update);
    return el;
  };
  // The scores are s · h_i (as the article's are) until one is typed by hand; editing s makes them so again.
  let fromState = true;

  $('bd-rows').replaceChildren(...WORDS.map((word, i) => {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    const zh = document.createElement('span');
    zh.lang = 'zh';
    zh.textContent = word;
    const gloss = document.createElement('span');
    gloss.className = 'gloss';
    gloss.textContent = GLOSSES[i];
    th.append(zh, ' ', gloss);
    const h = document.createElement('td');
    h.className = 'vector';
    h.append('[', input(`bd-h-${i}-0`, ARTICLE.h[i][0], `encoder state of ${word}, component 1`), ', ',
      input(`bd-h-${i}-1`, ARTICLE.h[i][1], `encoder state of ${word}, component 2`), ']');
    const e = document.createElement('td');
    e.append(input(`bd-e-${i}`, ARTICLE.scores[i], `score of ${word}`));
    const a = document.createElement('td');
    a.id = `bd-a-${i}`;
    a.className = 'weight';
    const ah = document.createElement('td');
    ah.id = `bd-ah-${i}`;
    // Column names for the narrow-screen layout (lab.css), where the table's head is not shown.
    Object.assign(h.dataset, { label: 'encoder state h' });
    Object.assign(e.dataset, { label: 'score e' });
    Object.assign(a.dataset, { label: 'weight α' });
    Object.assign(ah.dataset, { label: 'α h' });
    tr.append(th, h, e, a, ah);
    return tr;
  }));
  $('bd-bars').replaceChildren(...WORDS.map((word, i) => {
    const row = document.createElement('div');
    row.className = 'bar-row';
    row.innerHTML = `<span class="bar-label"><span lang="zh"></span> <span class="gloss"></span></span>`
      + `<span class="bar"><span class="bar-fill" id="bd-bar-${i}"></span></span><span class="bar-value" id="bd-bar-value-${i}"></span>`;
    row.querySelector('[lang]').textContent = word;
    row.querySelector('.gloss').textContent = GLOSSES[i];
    return row;
  }));

  const states = () => WORDS.map((w, i) => [0, 1].map((d) => readNumber($(`bd-h-${i}-${d}`), `Encoder state of ${w}`)));

  function update() {
    let h, scores;
    try {
      h = states();
      if (fromState) scoreFromState(h);
      scores = WORDS.map((w, i) => readNumber($(`bd-e-${i}`), `Score of ${w}`));
      showError($('bd-error'));
    } catch (e) {
      showError($('bd-error'), e.message);
      return;
    }
    const { weights, context } = lab.attentionPool(scores, h.flat(), 2);
    WORDS.forEach((_, i) => {
      $(`bd-a-${i}`).textContent = fmt(weights[i], 3);
      $(`bd-ah-${i}`).textContent = `[${fmt(weights[i] * h[i][0])}, ${fmt(weights[i] * h[i][1])}]`;
      $(`bd-bar-${i}`).style.width = `${(weights[i] * 100).toFixed(1)}%`;
      $(`bd-bar-value-${i}`).textContent = fmt(weights[i], 3);
    });
    $('bd-sum').textContent = `Σ α = ${fmt(weights.reduce((a, v) => a + v, 0), 3)}`;
    $('bd-context').textContent = `[${fmt(context[0])}, ${fmt(context[1])}]`;
    section.dataset.weights = JSON.stringify(Array.from(weights, (v) => +v.toFixed(6)));
    section.dataset.context = JSON.stringify(Array.from(context, (v) => +v.toFixed(6)));
    section.dataset.ready = 'true';
  }

  // Scores from the decoder state: e_i = s . h_i, by the core's dot-product attention (scale 1, as the article).
  function scoreFromState(h) {
    const s = [0, 1].map((d) => readNumber($(`bd-s-${d}`), 'Decoder state'));
    const r = lab.dotProductAttention({ queries: s, keys: h.flat(), values: h.flat(), scale: 1,
      shape: { B: 1, Tq: 1, Tk: WORDS.length, D: 2, Dv: 2 } });
    WORDS.forEach((_, i) => { $(`bd-e-${i}`).value = String(+r.scores[i].toFixed(6)); });
  }
  const fromDecoderState = () => { fromState = true; update(); };
  $('bd-dot').addEventListener('click', fromDecoderState);
  for (const d of [0, 1]) $(`bd-s-${d}`).addEventListener('input', fromDecoderState);
  $('bd-reset').addEventListener('click', () => {
    ARTICLE.s.forEach((v, d) => { $(`bd-s-${d}`).value = String(v); });
    WORDS.forEach((_, i) => {
      ARTICLE.h[i].forEach((v, d) => { $(`bd-h-${i}-${d}`).value = String(v); });
      $(`bd-e-${i}`).value = String(ARTICLE.scores[i]);
    });
    for (const el of section.querySelectorAll('input')) el.setAttribute('aria-invalid', 'false');
    fromState = true;
    update();
  });
  update();
  return { redraw: () => {} };
}
