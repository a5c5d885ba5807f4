// `attend translate` on files with empty, invalid and over-long lines: one output line per input line, a warning
// naming each line that was skipped, truncated or cut, exit status 3 when there was one, and every other line
// translated as it would be alone. Options out of range are errors that name them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { nativeBin, requireFile, root } from './lib/paths.mjs';

const model = path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors');

function attend(args, input) {
  const r = spawnSync(requireFile(nativeBin('attend')), ['translate', '-m', model, ...args],
    { input, env: { ...process.env, OMP_WAIT_POLICY: 'passive' } });
  return { status: r.status, out: r.stdout.toString('utf8'), err: r.stderr.toString('utf8') };
}
const lines = (out) => out.split('\n').slice(0, -1);
const alone = (sentence, args = []) => {
  const r = attend(['-t', sentence, ...args]);
  assert.equal(r.status, 0, r.err);
  return lines(r.out)[0];
};

for (const beam of ['5', '1']) {
  test(`beam ${beam}: an empty line gives an empty line and loses nothing`, () => {
    const r = attend(['-b', beam], 'A dog runs.\n\nA cat sleeps.\n');
    assert.equal(r.status, 0, r.err);
    assert.equal(r.err, '');
    const out = lines(r.out);
    assert.equal(out.length, 3);
    assert.equal(out[0], alone('A dog runs.', ['-b', beam]));
    assert.equal(out[1], '');
    assert.equal(out[2], alone('A cat sleeps.', ['-b', beam]));
    assert.notEqual(out[0], '');
    assert.notEqual(out[2], '');
  });

  test(`beam ${beam}: an invalid UTF-8 line is skipped with a warning naming it; exit status 3`, () => {
    const input = Buffer.concat([Buffer.from('A dog runs.\nA man \xff'), Buffer.from([0xff]),
      Buffer.from(' rides.\nA cat sleeps.\n')]);
    const r = attend(['-b', beam], input);
    assert.equal(r.status, 3, r.err);
    assert.match(r.err, /warning: line 2: invalid UTF-8 at byte \d+ of the line: skipped/);
    assert.doesNotMatch(r.err, /line [13]:/);
    const out = lines(r.out);
    assert.deepEqual(out, [alone('A dog runs.', ['-b', beam]), '', alone('A cat sleeps.', ['-b', beam])]);
  });
}

for (const beam of ['5', '1']) {
  test(`beam ${beam}: a line the core refuses (control characters alone: no text) is skipped; the batch around it is kept`, () => {
    const r = attend(['-b', beam], 'A dog runs.\n\x01\x02\nA cat sleeps.\n');
    assert.equal(r.status, 3, r.err);
    assert.match(r.err, /warning: line 2: the text to translate is empty: skipped/);
    assert.match(r.err, /1 of 3 lines skipped, 1 with warnings \(exit status 3\)/);
    assert.deepEqual(lines(r.out), [alone('A dog runs.', ['-b', beam]), '', alone('A cat sleeps.', ['-b', beam])]);
  });
}

test('the last line counts the lines flagged low confidence apart from the skipped and warned ones', () => {
  // --min-confidence 1 flags every translated line; the line the core refuses is skipped, not flagged.
  const r = attend(['--min-confidence', '1'], 'A dog runs.\n\x01\x02\nA cat sleeps.\n');
  assert.equal(r.status, 3, r.err);
  assert.match(r.err, /1 of 3 lines skipped, 1 with warnings, 2 flagged low confidence \(exit status 3\)/);
  const flaggedOnly = attend(['--min-confidence', '1'], 'A dog runs.\nA cat sleeps.\n');
  assert.equal(flaggedOnly.status, 0, flaggedOnly.err);
  assert.match(flaggedOnly.err, /2 of 2 lines translated, 2 flagged low confidence \(exit status 0\)/);
});

test('a line longer than the model accepts is translated from its start, with a warning; the others as alone', () => {
  const long = Array.from({ length: 300 }, (_, i) => ['a', 'dog', 'runs', 'on', 'the', 'beach'][i % 6]).join(' ');
  const r = attend(['-b', '2'], `A dog runs.\n${long}\nA cat sleeps.\n`);
  assert.equal(r.status, 3, r.err);
  assert.match(r.err, /warning: line 2: the text is 301 tokens long \(with <eos>\); this model accepts at most 256: only the first 255 were translated/);
  const out = lines(r.out);
  assert.equal(out.length, 3);
  assert.equal(out[0], alone('A dog runs.', ['-b', '2']));
  assert.ok(out[1].length > 0);
  assert.equal(out[2], alone('A cat sleeps.', ['-b', '2']));
});

test('--json gives one object a line: text, score, tokens, finished, warnings; a cut output says so', () => {
  // Greedy, so that the first line is cut: under a limit this short a beam may end on a finished hypothesis
  // (<eos> alone) instead.
  const r = attend(['--json', '--max-length', '3', '-b', '1'], 'A man in a blue shirt is standing on a ladder.\n\nA dog.\n');
  assert.equal(r.status, 3, r.err);
  const out = lines(r.out).map((l) => JSON.parse(l));
  assert.equal(out.length, 3);
  assert.equal(out[0].line, 1);
  assert.equal(out[0].finished, false);
  assert.equal(out[0].tokens.length, 3);
  assert.ok(Number.isFinite(out[0].score));
  assert.match(out[0].warnings[0], /cut at 3 tokens/);
  assert.match(r.err, /warning: line 1: the translation was cut at 3 tokens/);
  assert.deepEqual(out[1], { line: 2, text: '', warnings: [], skipped: false });
  assert.equal(typeof out[2].text, 'string');
  // Its warnings are exactly the ones its fields call for: a cut output, and a confidence below the model's own.
  const cut = out[2].warnings.filter((w) => /cut at 3 tokens/.test(w));
  const doubted = out[2].warnings.filter((w) => /^low confidence/.test(w));
  assert.equal(cut.length, out[2].finished ? 0 : 1);
  assert.equal(doubted.length, out[2].low_confidence ? 1 : 0);
  assert.equal(out[2].warnings.length, cut.length + doubted.length);
  const plain = attend(['--max-length', '3', '-b', '1'], 'A man in a blue shirt is standing on a ladder.\n');
  assert.equal(lines(plain.out)[0], out[0].text);
});

test('options out of range are errors naming the option (exit status 1)', () => {
  for (const [args, message] of [
    [['-b', '0'], /beam size must be between 1 and 64, got 0/],
    [['-b', '1000'], /beam size must be between 1 and 64, got 1000/],
    [['--length-penalty', 'nan'], /length penalty must be a finite number, got NaN/],
    [['--max-length', '-1'], /max length must be between 0 and 4096, got -1/],
    [['--threads', '0'], /--threads must be at least 1, got 0/],
    [['--threads', '-2'], /--threads must be at least 1, got -2/],
    [['--batch', '0'], /--batch: must be at least 1, got 0/],
    [['--repetition-penalty', '0'], /repetition penalty must be a finite number above 0, got 0/],
    [['--no-repeat-ngram-size', '-1'], /no_repeat_ngram_size must be between 0 and 64, got -1/],
    [['--no-adjacent-repeat-size', '-1'], /no_adjacent_repeat_size must be between 0 and 64, got -1/],
    [['--max-piece-run', '1001'], /max piece run must be between 0 and 1000, got 1001/],
  ]) {
    const r = attend(['-t', 'A dog.', ...args]);
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message, args.join(' '));
    assert.equal(r.out, '');
  }
});

for (const beam of ['5', '1']) {
  test(`beam ${beam}: a paragraph on one line is translated sentence by sentence and joined with spaces`, () => {
    const sentences = ['A man is walking.', 'A woman is sitting on a bench.', 'Two children play.'];
    const r = attend(['-b', beam], `${sentences.join(' ')}\n\nA dog runs.\n`);
    assert.equal(r.status, 0, r.err);
    const out = lines(r.out);
    assert.equal(out.length, 3);
    assert.equal(out[0], sentences.map((s) => alone(s, ['-b', beam])).join(' '));
    assert.equal(out[1], '');
    assert.equal(out[2], alone('A dog runs.', ['-b', beam]));
    const json = lines(attend(['-b', beam, '--json'], `${sentences.join(' ')}\n`).out).map((l) => JSON.parse(l));
    assert.equal(json[0].tokens.filter((t) => t === '<eos>').length, 3);  // one search per sentence
    assert.equal(json[0].text, out[0]);
  });
}
