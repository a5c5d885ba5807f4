// Tokens as people read them. The core's Moses tokenizer escapes eight characters (&amp; &#124; &lt; &gt; &apos;
// &quot; &#91; &#93;, see core/text/tokenizer.cpp) and BPE marks a piece that continues with "@@"; the page shows
// the characters themselves. A raw-text subword model (SentencePiece, core/text/sentencepiece.h) marks a piece that
// starts a word with "▁" and spells a character it has no piece for in byte pieces ("<0xE9>"); the page shows
// the words and the characters.

const SPACE_MARK = '\u2581';
const BYTE_PIECE = /^<0x([0-9A-F]{2})>$/;
// Scripts written without spaces: each of their pieces is a word of its own.
const UNSPACED = /^[\u2E80-\u2FDF\u3040-\u30FF\u3100-\u312F\u3190-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\u0E00-\u0EFF]/u;

function isSubwordPieces(tokens) {
  return tokens.some((t) => t.startsWith(SPACE_MARK) || BYTE_PIECE.test(t));
}

// The characters of each run of byte pieces: the first piece of a character shows it, the others "⋯" (they are
// the rest of its UTF-8 bytes). An invalid sequence shows U+FFFD, as the core's decoder writes it.
function byteRunLabels(tokens) {
  const labels = tokens.slice();
  for (let i = 0; i < tokens.length;) {
    if (!BYTE_PIECE.test(tokens[i])) { i++; continue; }
    let end = i;
    while (end < tokens.length && BYTE_PIECE.test(tokens[end])) end++;
    const bytes = tokens.slice(i, end).map((t) => parseInt(BYTE_PIECE.exec(t)[1], 16));
    for (let k = 0; k < bytes.length;) {
      const lead = bytes[k];
      const n = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
      const text = new TextDecoder('utf-8').decode(new Uint8Array(bytes.slice(k, k + n)));
      labels[i + k] = text;
      for (let j = 1; j < n && k + j < bytes.length; j++) labels[i + k + j] = '\u22EF';
      k += n;
    }
    i = end;
  }
  return labels;
}

const MOSES_ESCAPES = {
  '&amp;': '&', '&#124;': '|', '&lt;': '<', '&gt;': '>', '&apos;': "'", '&quot;': '"', '&#91;': '[', '&#93;': ']',
};
const ESCAPE = /&(?:amp|#124|lt|gt|apos|quot|#91|#93);/g;

// One pass, so that an escaped escape ("&amp;lt;", from a literal "&lt;" in the text) comes back as "&lt;".
export function unescapeMoses(text) {
  return String(text).replace(ESCAPE, (m) => MOSES_ESCAPES[m]);
}

// What a piece that goes on in the next one of its word ends with in a label, as the word chips join them: a middle
// dot, quieter than a hyphen (which words have of their own) and never the tokenizer's "@@" or "▁".
export const JOINER = '\u00B7';
// The label of a piece that holds no character of its own: the rest of an escape or of a character's bytes.
const REST = '\u22EF';

// A label for one token taken alone (a token with no neighbours to join): escapes undone, the BPE mark dropped.
export function tokenLabel(token) {
  return unescapeMoses(String(token).replace(/@@$/, ''));
}

// The labels of one BPE word's pieces: each piece shows the characters that start in it, escapes undone across
// pieces ("&@@ #@@ 9@@ 1@@ ;" shows "[" then ⋯), and ends in the joiner where the word goes on.
function bpeWordLabels(pieces) {
  const texts = pieces.map((p) => p.replace(/@@$/, ''));
  const starts = [];
  let at = 0;
  for (const t of texts) { starts.push(at); at += t.length; }
  const raw = texts.join('');
  const labels = texts.map(() => '');
  const pieceAt = (offset) => { let k = 0; while (k + 1 < starts.length && starts[k + 1] <= offset) k++; return k; };
  for (let i = 0; i < raw.length;) {
    const escape = raw[i] === '&' ? /^&(?:amp|#124|lt|gt|apos|quot|#91|#93);/.exec(raw.slice(i)) : null;
    const text = escape ? MOSES_ESCAPES[escape[0]] : String.fromCodePoint(raw.codePointAt(i));
    const length = escape ? escape[0].length : text.length;
    labels[pieceAt(i)] += text;
    i += length;
  }
  return withJoiners(labels.map((l) => l || REST));
}

// The joiner after every label of a word but its last, and not before a piece that is the rest of a character.
function withJoiners(labels) {
  return labels.map((l, k) => (k + 1 < labels.length && labels[k + 1] !== REST && l !== '\u2423' ? l + JOINER : l));
}

// Labels for a whole token list, as the word chips read them (a label depends on its neighbours): a word's pieces
// show their characters, joined by JOINER; escapes are undone; never "@@" or "▁". SentencePiece pieces drop "▁" (a
// lone one, a space, shows "␣") and byte pieces show the character they spell (its other bytes "⋯").
export function tokenLabels(tokens) {
  if (!isSubwordPieces(tokens)) {
    const labels = [];
    let word = [];
    tokens.forEach((t, i) => {
      word.push(t);
      if (!t.endsWith('@@') || i + 1 === tokens.length) { labels.push(...bpeWordLabels(word)); word = []; }
    });
    return labels;
  }
  const labels = byteRunLabels(tokens).map((t, i) => {
    if (t !== tokens[i]) return t;
    if (t === SPACE_MARK) return '\u2423';
    return t.startsWith(SPACE_MARK) ? t.slice(1) : t;
  });
  for (const w of subwordWordsOf(tokens)) {
    const joined = withJoiners(w.tokens.map((k) => labels[k]));
    w.tokens.forEach((k, j) => { labels[k] = joined[j]; });
  }
  return labels;
}

// Words from BPE tokens: pieces ending in "@@" join the next one; <eos> is not a word. An escape split across
// pieces ("&ap@@ os;") is undone once the word is whole.
export function wordsOf(tokens) {
  if (isSubwordPieces(tokens)) return subwordWordsOf(tokens);
  const words = [];
  let current = null;
  tokens.forEach((t, i) => {
    if (t === '<eos>') return;
    const piece = t.endsWith('@@') ? t.slice(0, -2) : t;
    current ??= { text: '', tokens: [] };
    current.text += piece;
    current.tokens.push(i);
    if (!t.endsWith('@@')) { words.push(current); current = null; }
  });
  if (current) words.push(current);
  for (const w of words) w.text = unescapeMoses(w.text);
  return words;
}

// Words from subword pieces: "▁" starts a word; in a script without spaces every piece is a word; byte pieces
// belong to the word they are in, and read as their characters.
function subwordWordsOf(tokens) {
  const labels = byteRunLabels(tokens);
  const words = [];
  let current = null;
  tokens.forEach((t, i) => {
    if (t === '<eos>' || t === '<bos>' || t === '<pad>') return;
    const text = labels[i] === '\u22EF' ? '' : labels[i] === t ? t.replace(/\u2581/g, ' ') : labels[i];
    const starts = t.startsWith(SPACE_MARK) || UNSPACED.test(text.trim()) || (current && UNSPACED.test(current.text.trim().slice(-1)));
    if (starts && current) { words.push(current); current = null; }
    current ??= { text: '', tokens: [] };
    current.text += text;
    current.tokens.push(i);
  });
  if (current) words.push(current);
  for (const w of words) w.text = w.text.trim();
  return words.filter((w) => w.text.length > 0);
}
