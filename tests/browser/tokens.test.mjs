// How the page labels tokens and groups them into words (web/tokens.js), for the two kinds of subwords a model may
// have: BPE with "@@" continuations, and SentencePiece pieces with "▁" word starts and byte pieces for characters
// the model has no piece for. No subword mark or byte piece is shown raw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenLabels, wordsOf } from '../../web/tokens.js';

test('SentencePiece pieces: "▁" dropped, a lone one shown as ␣, byte pieces as their character', () => {
  assert.deepEqual(tokenLabels(['▁我', '喜欢', '吃', '鱼', '<eos>']), ['我', '喜欢', '吃', '鱼', '<eos>']);
  // A word's pieces are joined as the word chips join them: a quiet dot where the word goes on.
  assert.deepEqual(tokenLabels(['▁I', '▁like', '▁eat', 'ing', '▁fish', '.', '<eos>']),
    ['I', 'like', 'eat·', 'ing', 'fish·', '.', '<eos>']);
  // 🐟 is four UTF-8 bytes: the first piece shows it, the rest say they belong to it.
  assert.deepEqual(tokenLabels(['▁', '<0xF0>', '<0x9F>', '<0x90>', '<0x9F>', '▁and']), ['␣', '🐟', '⋯', '⋯', '⋯', 'and']);
  // A byte that starts no character shows U+FFFD, as the decoder writes it.
  assert.deepEqual(tokenLabels(['▁a', '<0xFF>']), ['a·', '\uFFFD']);
});

test('SentencePiece words: "▁" starts a word, every piece of Chinese is a word, byte pieces join their word', () => {
  assert.deepEqual(wordsOf(['▁I', '▁like', '▁eat', 'ing', '▁fish', '.', '<eos>']).map((w) => w.text),
    ['I', 'like', 'eating', 'fish.']);
  assert.deepEqual(wordsOf(['▁我', '喜欢', '吃', '鱼', '<eos>']).map((w) => [w.text, w.tokens]),
    [['我', [0]], ['喜欢', [1]], ['吃', [2]], ['鱼', [3]]]);
  assert.deepEqual(wordsOf(['▁caf', '<0xC3>', '<0xA9>', '▁ok']).map((w) => [w.text, w.tokens]),
    [['café', [0, 1, 2]], ['ok', [3]]]);
});

test('BPE tokens: labels without "@@", joined as the words are; escapes undone across pieces', () => {
  assert.deepEqual(tokenLabels(['wal@@', 'king', '&amp;']), ['wal·', 'king', '&']);
  assert.deepEqual(tokenLabels(['Groß@@', 'm@@', 'utter', '.', '<eos>']), ['Groß·', 'm·', 'utter', '.', '<eos>']);
  // An escape in five pieces shows its character once, the other pieces as its rest.
  assert.deepEqual(tokenLabels(['&@@', '#@@', '9@@', '1@@', ';', 'x']), ['[', '⋯', '⋯', '⋯', '⋯', 'x']);
  assert.deepEqual(tokenLabels(['d&ap@@', 'os;un']), ["d'·", 'un']);
  assert.deepEqual(wordsOf(['wal@@', 'king', 'home', '<eos>']).map((w) => w.text), ['walking', 'home']);
});
