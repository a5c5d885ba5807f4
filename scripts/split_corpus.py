#!/usr/bin/env python3
"""Splits a TSV corpus into train, valid and test files by one column's sentence, reproducibly.

Tatoeba-style data holds several translations of one sentence on separate lines; a split by line would put the
same English sentence in training and in test. Here every pair whose key sentence (e.g. the English column) is
chosen for valid or test goes there with all its siblings, the choice being a SHA-256 of the sentence and the seed
(the same on every machine, whatever the file's order), and a training pair that shares either side with a valid
or test pair is dropped (counted). Writes DIR/train.tsv, DIR/valid.tsv, DIR/test.tsv (source and target columns
as in the input, the other columns kept) and DIR/split.json (the command, counts, and each file's SHA-256).

  python3 scripts/split_corpus.py ../shared/data/tatoeba/eng-cmn.tsv.gz --key-column 1 --valid 1000 --test 1500 \\
      --seed 1 --out /work/runs/data/eng-cmn
"""
import argparse
import gzip
import hashlib
import json
import os
import sys


def open_text(path):
    with open(path, 'rb') as f:
        magic = f.read(2)
    return gzip.open(path, 'rt', encoding='utf-8', newline='\n') if magic == b'\x1f\x8b' else \
        open(path, encoding='utf-8', newline='\n')


def rank(sentence, seed):
    return hashlib.sha256(f'{seed}\t{sentence}'.encode('utf-8')).hexdigest()


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('tsv')
    p.add_argument('--key-column', type=int, default=1, help='1-based column whose sentence decides the split')
    p.add_argument('--columns', default='1,2', help='the two sentence columns (1-based), checked for overlaps')
    p.add_argument('--valid', type=int, required=True, help='distinct key sentences for validation')
    p.add_argument('--test', type=int, required=True, help='distinct key sentences for test')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--out', required=True)
    a = p.parse_args()
    cols = [int(c) - 1 for c in a.columns.split(',')]
    key = a.key_column - 1

    with open_text(a.tsv) as f:
        rows = [line.rstrip('\n').split('\t') for line in f]
    bad = [i + 1 for i, r in enumerate(rows) if len(r) <= max(cols + [key])]
    if bad:
        sys.exit(f'{a.tsv}: {len(bad)} lines lack the named columns (first: line {bad[0]})')
    keys = sorted({r[key] for r in rows}, key=lambda s: rank(s, a.seed))
    if a.valid + a.test >= len(keys) // 2:
        sys.exit(f'{a.tsv}: {len(keys)} distinct key sentences, too few for {a.valid} + {a.test} held out')
    test_keys = set(keys[:a.test])
    valid_keys = set(keys[a.test:a.test + a.valid])
    parts = {'train': [], 'valid': [], 'test': []}
    for r in rows:
        parts['test' if r[key] in test_keys else 'valid' if r[key] in valid_keys else 'train'].append(r)
    held = {r[c] for part in ('valid', 'test') for r in parts[part] for c in cols}
    kept = [r for r in parts['train'] if not any(r[c] in held for c in cols)]
    dropped = len(parts['train']) - len(kept)
    parts['train'] = kept

    os.makedirs(a.out, exist_ok=True)
    record = {'command': ' '.join(['scripts/split_corpus.py'] + sys.argv[1:]), 'input': a.tsv,
              'input_lines': len(rows), 'key_sentences': len(keys), 'seed': a.seed,
              'dropped_from_train_sharing_a_sentence': dropped, 'files': {}}
    for name, part in parts.items():
        path = os.path.join(a.out, name + '.tsv')
        data = ''.join('\t'.join(r) + '\n' for r in part).encode('utf-8')
        with open(path, 'wb') as f:
            f.write(data)
        record['files'][name] = {'pairs': len(part), 'key_sentences': len({r[key] for r in part}),
                                 'sha256': hashlib.sha256(data).hexdigest()}
    with open(os.path.join(a.out, 'split.json'), 'w') as f:
        json.dump(record, f, indent=2, ensure_ascii=False)
        f.write('\n')
    print(json.dumps(record, indent=2, ensure_ascii=False))


if __name__ == '__main__':
    main()
