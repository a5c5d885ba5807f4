// Tokens as people read them. The core's Moses tokenizer escapes eight characters (&amp; &#124; &lt; &gt; &apos;
// &quot; &#91; &#93;, see core/text/tokenizer.cpp) and BPE marks a piece that continues with "@@"; the page shows
// the characters themselves.

const MOSES_ESCAPES = {
  '&amp;': '&', '&#124;': '|', '&lt;': '<', '&gt;': '>', '&apos;': "'", '&quot;': '"', '&#91;': '[', '&#93;': ']',
};
const ESCAPE = /&(?:amp|#124|lt|gt|apos|quot|#91|#93);/g;

// One pass, so that an escaped escape ("&amp;lt;", from a literal "&lt;" in the text) comes back as "&lt;".
export function unescapeMoses(text) {
  return String(text).replace(ESCAPE, (m) => MOSES_ESCAPES[m]);
}

// A label for one token (heatmap rows and columns, alignment ends): escapes undone, the BPE mark kept, since it
// says the word goes on in the next token.
export function tokenLabel(token) {
  return unescapeMoses(token);
}

// Words from BPE tokens: pieces ending in "@@" join the next one; <eos> is not a word. An escape split across
// pieces ("&ap@@ os;") is undone once the word is whole.
export function wordsOf(tokens) {
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
