#!/usr/bin/env bash
# Regenerates the committed seed corpora of the fuzz harnesses (fuzz/corpus/<harness>/) from tiny models that
# the native `attend` trains for one step (build/bin/attend; the data folder as `attend train` finds it):
#   model_file/     Transformer (F32, F16, I8) and GRU + Bahdanau model files, a few KB each
#   json_metadata/  each model's metadata entries (config, pipelines, vocabularies), one selector byte first
#   text_pipeline/  sentences with hard cases (prefixes, numbers, quotes, markup, scripts), one selector byte first
#   fuzz/regression/model_file/  a small file whose config claims gigabytes of weights (the loader must refuse it
#                           from the header, before allocating); scripts/fuzz.sh replays fuzz/regression/<harness>/
#                           first. fuzz/regression/json_metadata/ holds a config number too large for an int, a
#                           finding of the fuzzer kept by hand.
# The seeds only need to reach the code; their exact bytes do not matter, so regenerating them on another
# machine (other float results) is fine.
set -euo pipefail
cd "$(dirname "$0")/.."
attend=${ATTEND_BIN:-build/bin/attend}
[ -x "$attend" ] || { echo "make_corpus: $attend is missing: build the native tree first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=fuzz/corpus
mkdir -p "$corpus/model_file" "$corpus/json_metadata" "$corpus/text_pipeline" fuzz/regression/model_file

"$attend" train --out "$work/tf" --max-steps 1 --dim 8 --layers 1 --heads 2 --ffn 8 --bpe 30 --max-sentences 40 \
  --max-tokens 300 --val-bleu-sentences 2 --threads 1 > /dev/null
"$attend" train --preset bahdanau-d2l --out "$work/gru" --max-steps 1 --dim 8 --embed 8 --layers 1 \
  --max-sentences 40 --val-bleu-sentences 2 --threads 1 > /dev/null
for dtype in f32 f16 i8; do
  "$attend" export "$work/tf" --dtype "$dtype" -o "$corpus/model_file/transformer-$dtype.safetensors" > /dev/null
done
"$attend" export "$work/gru" --dtype f32 -o "$corpus/model_file/bahdanau-f32.safetensors" > /dev/null

python3 - "$corpus" <<'PY'
import json, struct, sys, pathlib
corpus = pathlib.Path(sys.argv[1])

def read(path):
    b = path.read_bytes()
    n = struct.unpack('<Q', b[:8])[0]
    return json.loads(b[8:8 + n]), b[8 + n:]

def write(path, header, data):
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    path.write_bytes(struct.pack('<Q', len(text)) + text + data)

# The harness's selector byte: 0 Transformer config, 1 Bahdanau config, 2 text pipeline, 3 vocabulary.
for name in ['transformer-f32', 'bahdanau-f32']:
    meta = read(corpus / 'model_file' / f'{name}.safetensors')[0]['__metadata__']
    entries = {'config': 0 if name.startswith('transformer') else 1, 'source_pipeline': 2, 'target_pipeline': 2,
               'source_vocab': 3, 'target_vocab': 3}
    for key, selector in entries.items():
        (corpus / 'json_metadata' / f'{name}-{key}').write_bytes(bytes([selector]) + meta['attend.' + key].encode())

# The harness's selector byte: 0 en, 1 de, 2 fr (Moses + BPE), 3 en, 4 fr (d2l words).
sentences = [
    (0, 'A man in a blue shirt is riding a bike.'),
    (0, 'Mr. Smith paid $3.50 for 2,000 "cheap" apples & pears; isn\'t it odd?'),
    (0, 'The U.S.A. team\u2019s co-captain -- No. 7 -- scored at 5:30 p.m. <b>wow</b> [x] {y} |z|'),
    (1, 'Ein Mann sitzt auf einer \u201eBank\u201c, z.B. im Park (ca. 3 km) \u2013 oder nicht?'),
    (2, "L'homme \u00e0 la chemise bleue fait du v\u00e9lo\u00a0! \u00ab Oui \u00bb, dit-il\u2026"),
    (3, 'Go.\u202fI lost!'),
    (4, "J'ai perdu.\u00a0Va\u00a0!"),
    (0, '\u4e00\u4e2a\u7537\u4eba \u0645\u0631\u062d\u0628\u0627 \U0001F600 e\u0301 \u0130stanbul \u00df'),
]
for i, (selector, text) in enumerate(sentences):
    (corpus / 'text_pipeline' / f'sentence-{i}').write_bytes(bytes([selector]) + text.encode())

# A small file whose config claims a 20,000,000-wide feed-forward layer: a loader that allocates what the
# config says before it checks the tensors asks for gigabytes.
header, data = read(corpus / 'model_file' / 'transformer-f32.safetensors')
config = json.loads(header['__metadata__']['attend.config'])
config['ffn_dim'] = 20000000
header['__metadata__']['attend.config'] = json.dumps(config)
write(pathlib.Path('fuzz/regression/model_file/ffn-dim-20M.safetensors'), header, data)
PY
ls -l "$corpus"/* fuzz/regression/model_file
