#!/usr/bin/env bash
# Makes the synthetic training data of the en→de diversification recipe (web/models/multi30k-en-de-cased.md) from
# the models that made it, taken from this repository's history, and checks each file against the sha256 its card
# records: the distilled en→de model's German of the 29,000 English captions (fwd-ende.de), the first diversified
# model's German of them (fwd2-ende.de), and the H100 de→en model's English of the German references (bt-deen.en).
# The files were made by the translator of commit 66fbfe4; later copy-through rules (names) translate some captions
# otherwise, so this builds `attend` of that commit (a git worktree in <out folder>/src, built in <out folder>/build)
# and translates with it.
#   scripts/dd-data.sh <out folder>      (a few minutes to build, then 2 to 3 minutes a file on 2 cores; THREADS sets
#                                         the count)
# `scripts/gpu-train.sh <build> <runs> <minutes> dd2-ende` reads them from <runs>/dd.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then sed -n 2,11p "$0"; exit 2; fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
train=$(cd "${ATTEND_DATA:-../shared/data}" && pwd)/multi30k
maker=66fbfe4
if [ ! -x "$out/build/bin/attend" ]; then
    [ -d "$out/src" ] || git worktree add --detach "$out/src" "$maker"
    cmake -S "$out/src" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/build.log"
    cmake --build "$out/build" --target attend -j "${THREADS:-2}" >> "$out/build.log"
fi
attend=$out/build/bin/attend
git show 9fb6714:web/models/multi30k-en-de-cased.safetensors > "$out/distilled-ende.safetensors"
git show fa71f4b:web/models/multi30k-en-de-cased.safetensors > "$out/diversified-ende.safetensors"
git show d22fecc:web/models/multi30k-de-en-cased.safetensors > "$out/h100-deen.safetensors"
translate() {  # model, input, output: beam 5, whole lines (no clause splitting); warnings go to output.log
    [ -f "$out/$3" ] && return
    local status=0
    "$attend" translate -m "$out/$1" -b 5 --clause-split-words 0 --threads "${THREADS:-2}" --progress off \
        -i "$train/$2" > "$out/$3.tmp" 2> "$out/$3.log" || status=$?
    # Exit status 3 says some lines carry warnings (low confidence, a cut translation); every line was translated.
    if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then tail -3 "$out/$3.log" >&2; exit 1; fi
    mv "$out/$3.tmp" "$out/$3"
}
translate distilled-ende.safetensors train.en.gz fwd-ende.de
translate diversified-ende.safetensors train.en.gz fwd2-ende.de
translate h100-deen.safetensors train.de.gz bt-deen.en
cd "$out" && sha256sum -c << 'SUMS'
fe6ecd3c30fad794184ce82154836c5d43505d06f6aaf61fc266e000522df49d  fwd-ende.de
f3e04d2b91ddca34bc791ab5220b258274a60a0463e902aee1937158ede87837  fwd2-ende.de
52c99e67117f1115f4cef2d4e686baa389264dd1409238a4115fd94cd8930374  bt-deen.en
SUMS
