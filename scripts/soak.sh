#!/usr/bin/env bash
# Soak test (not part of npm test; about 20-40 minutes on 2 cores): 100,000 lines through `attend translate` as a
# pipe, with its RSS sampled every 10 s, then 10,000 calls through the JS API with random aborts (bench/soak_js.mjs),
# with the process's RSS and the module's WebAssembly memory every 1,000 calls. A leak shows as a column that keeps
# growing; the CLI's output must have one line per input line.
#   scripts/soak.sh [lines] [js-calls]       (needs `npm run build` first and ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-100000}
calls=${2:-10000}
data=${ATTEND_DATA:-../shared/data}
model=web/models/multi30k-en-de-cased.safetensors
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_WAIT_POLICY=passive

# The Multi30K training captions, repeated to the length asked for.
touch "$work/in.txt"
while [ "$(wc -l < "$work/in.txt")" -lt "$lines" ]; do zcat "$data/multi30k/train.en.gz" >> "$work/in.txt"; done
head -n "$lines" "$work/in.txt" > "$work/input.txt"

echo "== attend translate: $lines lines through a pipe (greedy), RSS every 10 s"
start=$(date +%s)
cat "$work/input.txt" | build/bin/attend translate -m "$model" -b 1 > "$work/out.txt" 2> "$work/err.txt" &
pid=$!
sleep 1
echo "  s     rss_MB  lines_out"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(ps -o rss= -p "$(pgrep -n -x attend || echo 0)" 2>/dev/null || echo 0)
  printf '%4d  %8d  %9d\n' "$(( $(date +%s) - start ))" "$(( ${rss:-0} / 1024 ))" "$(wc -l < "$work/out.txt")"
  sleep 10
done
status=0
wait "$pid" || status=$?
out=$(wc -l < "$work/out.txt")
echo "exit status $status, $out of $lines lines out in $(( $(date +%s) - start )) s; $(tail -n 1 "$work/err.txt")"
[ "$out" -eq "$lines" ] || { echo "soak: lines lost"; exit 1; }

echo "== JS API: $calls calls, about 30% of them aborted at random"
node bench/soak_js.mjs "$calls"
