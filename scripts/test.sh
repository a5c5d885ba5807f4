#!/usr/bin/env bash
# Runs every test suite: the doctest binaries of the -march=native, portable and sanitized trees (a queue of pieces,
# one lane a core), each fuzz harness for a minute, then the wasm tests in Node, the demo server's tests (with the
# check of the documentation's links) and the browser tests.
# Assumes `scripts/build.sh native wasm portable sanitize` has run (npm test does both).
#   FUZZ_SECONDS=N   seconds per fuzz harness (default 60; 0 skips fuzzing, say so when you do)
#   TEST_LANES=N     pieces of the doctest queue run at once (default: the number of cores)
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
# The queue runs two doctest pieces side by side on 2 cores: threads that spin while they wait for each other
# (OpenMP's default) then slow everything down many times over; passive waiting does not.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# What CTest gives each test: the checkout, where the tests find their fixtures and the data beside it.
export ATTEND_SOURCE_DIR=$PWD
stage() { echo "== $1 ($(date -u +%H:%M:%S))"; }

# ---------------------------------------------------------------- the doctest queue
# The doctest binaries of the three trees are cut into pieces (a binary, or part of one chosen by source file) that
# run as a queue over one lane a core, the longest first, so that no core idles while the other finishes a long
# binary: most cases are one thread. Each piece's output is shown whole when it ends, with its wall and CPU
# seconds, and the pieces that failed are named at the end. The seconds given to `piece` come from per-case durations
# (doctest --duration=true) measured with the trees' binaries running at once on 2 busy cores, a few estimated
# from another tree's: they only order the queue.
#   piece NAME SECONDS DIR COMMAND...   (COMMAND runs in DIR, as CTest runs a test in its tree)
piece_names=() piece_costs=() piece_dirs=() piece_cmds=()
piece() {
  piece_names+=("$1") piece_costs+=("$2") piece_dirs+=("$3")
  shift 3
  piece_cmds+=("$(printf '%q ' "$@")")
}

run_queue() {
  local logs lanes=${TEST_LANES:-$(nproc)} next=0 i pid rc
  logs=$(mktemp -d)
  local -a order failed=() started=()
  local -A running=()
  mapfile -t order < <(for i in "${!piece_names[@]}"; do echo "${piece_costs[$i]} $i"; done | sort -k1,1nr -k2,2n |
                       cut -d' ' -f2)
  while [ "$next" -lt "${#order[@]}" ] || [ "${#running[@]}" -gt 0 ]; do
    while [ "${#running[@]}" -lt "$lanes" ] && [ "$next" -lt "${#order[@]}" ]; do
      i=${order[$next]}
      next=$((next + 1))
      started[$i]=$SECONDS
      # `times` leaves the CPU seconds of the piece's processes (user, system) on its last line.
      ( cd "${piece_dirs[$i]}" && eval "${piece_cmds[$i]}"; rc=$?; times > "$logs/$i.cpu"; exit $rc ) \
        > "$logs/$i.log" 2>&1 &
      running[$!]=$i
    done
    rc=0
    wait -n -p pid "${!running[@]}" || rc=$?
    i=${running[$pid]}
    unset "running[$pid]"
    local verdict=passed
    [ "$rc" -eq 0 ] || { verdict="FAILED (exit status $rc)"; failed+=("${piece_names[$i]}"); }
    echo "== ${piece_names[$i]}: $verdict, $((SECONDS - started[$i])) s," \
         "CPU (user, system) $(tail -n 1 "$logs/$i.cpu" 2>/dev/null)" \
         "($(date -u +%H:%M:%S))"
    cat "$logs/$i.log"
  done
  rm -rf "$logs"
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "== doctest pieces FAILED: ${failed[*]}"
    return 1
  fi
  echo "== doctest pieces: all ${#order[@]} passed"
}

# Every case of test_native runs in the native tree: the groups below name source files, and the last piece is
# everything they do not name, so that a new file runs without being listed here.
#   group TREE NAME SECONDS FILES [DOCTEST OPTION...]   FILES: doctest --source-file patterns, comma-separated
native_named=""
group() {
  local tree=$1 name=$2 seconds=$3 files=$4
  shift 4
  piece "$tree/ test_native: $name" "$seconds" "$tree" bin/test_native --source-file="$files" "$@"
  [ "$tree" != build ] || native_named+=${native_named:+,}$files
}
group build "transformer-base and the trainer" 450 "*/test_trainer.cpp"
group build "shipped models" 295 "*/test_shipped_models.cpp,*/test_hostile_inputs.cpp"
group build "the seeds' tables" 230 "*/test_trainer_d2l.cpp"
group build "command line" 175 \
  "*/test_cli_options.cpp,*/test_lm_cli.cpp,*/test_translate_streaming.cpp,*/test_translation_flags.cpp,\
*/test_trainer_kill.cpp"
group build "training" 95 \
  "*/test_training_session.cpp,*/test_thread_ranks.cpp,*/test_train_mpi.cpp,*/test_train_device.cpp,*/test_lm.cpp,\
*/test_lm_session.cpp"
piece "build/ test_native: the rest" 125 build bin/test_native --source-file-exclude="$native_named"
# test_core, install_and_example, test_sentencepiece_parity and (with a CUDA compiler) test_cuda: what CTest has
# registered in the tree apart from test_native.
piece "build/ ctest: all but test_native" 230 build ctest --output-on-failure -E '^test_native$'

# The portable tree (SSE2, no FMA) is there to show that the suite holds on any x86-64 CPU, so it runs what an
# instruction set can change: test_core (the kernels, the numerics of search and of the text pipeline) and the
# test_native files that tests/native/instruction_set.txt names, and says why (build.sh compiles only those there;
# the filter keeps a tree configured before that to the same cases). The rest of test_native (the command line,
# loaders, whole-corpus text pipelines, the trainer's plumbing, MPI) and install_and_example (it installs and builds
# the examples: no computation of its own) run in the native tree only.
portable_files=$(grep -v '^#' tests/native/instruction_set.txt | sed 's|^|*/|' | paste -sd, -)
group build-portable "shipped models" 285 "*/test_shipped_models.cpp"
group build-portable "the seeds' tables" 250 "*/test_trainer_d2l.cpp"
piece "build-portable/ test_native: the rest of tests/native/instruction_set.txt" 75 build-portable bin/test_native \
  --source-file="$portable_files" --source-file-exclude="*/test_shipped_models.cpp,*/test_trainer_d2l.cpp" \
  --test-case-exclude="mpi:*"
piece "build-portable/ test_core" 20 build-portable bin/test_core

# AddressSanitizer + UndefinedBehaviorSanitizer: any report fails the run. Under ASan (at -O1, where the
# tokenizer's string work runs a hundred times slower) some cases would take most of an hour, so they are left
# out here and run in the native tree: the full-length training runs of the seeds' presets and the 49M-parameter
# transformer-base steps (their code paths run under the sanitizers in the shortened runs: the interrupted and
# resumed bahdanau-d2l run, the shrunk Multi30K runs), and the cases that push whole Multi30K files or test sets
# through the text pipeline and the shipped models (the same code runs here on a few hundred sentences in the BPE,
# tokenizer, translator and trainer cases).
# The character language model's two trainings to a perplexity (60 epochs on 10,000 characters, and a
# bidirectional against a unidirectional model) are left out too: the same forward and backward passes run here in
# the finite-difference and PyTorch parity cases, and the same training loop in the language model's training
# sessions and the one-epoch `attend lm train` runs.
# So is `attend train --train-target, --with-references, --train-source`, minutes under ASan: the test and each of
# its sanitized `attend train` runs read the whole Multi30K training split (29,000 pairs); the same options' files
# are read, checked and put after the references here in test_translation_corpus.cpp's cases (the library the
# command calls), and the command's flags are parsed here in the other `attend train` cases.
# The MPI cases are left out too: they start `mpirun attend`, and LeakSanitizer reports OpenMPI's own allocations
# that live until exit as leaks of every rank.
asan=(env "ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}"
      "UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}")
skip="*reproduces the seeds' table*,cased pipeline*,shipped models*,*hostile inputs*"
skip+=",BPE learner agrees with a full recount*,joint BPE on Multi30K train*,mpi:*,transformer-base is seed 001*"
skip+=",A short training on the book's first 10*,d2l's warning about bidirectional language models*"
skip+=",attend train --train-target*"
# test_cli_options, the longest file under ASan (every case starts the sanitized `attend`), in two pieces; the
# last piece is every file the others do not name.
piece "build-asan/ test_native: attend train options" 90 build-asan "${asan[@]}" bin/test_native \
  --source-file="*/test_cli_options.cpp" --test-case="attend train*" --test-case-exclude="$skip"
piece "build-asan/ test_native: other command line options" 570 build-asan "${asan[@]}" bin/test_native \
  --source-file="*/test_cli_options.cpp" --test-case-exclude="attend train*,$skip"
asan_named="*/test_cli_options.cpp"
asan_group() {
  piece "build-asan/ test_native: $1" "$2" build-asan "${asan[@]}" bin/test_native --source-file="$3" \
    --test-case-exclude="$skip"
  asan_named+=,$3
}
asan_group "command line programs" 500 \
  "*/test_lm_cli.cpp,*/test_translate_streaming.cpp,*/test_translation_flags.cpp,*/test_trainer_kill.cpp"
asan_group "training" 280 \
  "*/test_trainer.cpp,*/test_trainer_d2l.cpp,*/test_training_session.cpp,*/test_thread_ranks.cpp,\
*/test_train_device.cpp"
asan_group "models and translators" 100 "*/test_lm.cpp,*/test_lm_session.cpp,*/test_translator.cpp,\
*/test_rnn_translator.cpp,*/test_transformer_model.cpp,*/test_transformer_parity.cpp"
piece "build-asan/ test_native: the rest" 350 build-asan "${asan[@]}" bin/test_native \
  --source-file-exclude="$asan_named" --test-case-exclude="$skip"
piece "build-asan/ test_core" 120 build-asan "${asan[@]}" bin/test_core

stage "doctest queue: build/ (-march=native), build-portable/ (x86-64: SSE2), build-asan/ (ASan + UBSan)"
run_queue || status=1

fuzz_seconds=${FUZZ_SECONDS:-60}
if [ "$fuzz_seconds" -gt 0 ]; then
  stage "fuzzing (scripts/fuzz.sh $fuzz_seconds: each harness $fuzz_seconds s)"
  bash scripts/fuzz.sh "$fuzz_seconds" || status=1
else
  stage "fuzzing SKIPPED (FUZZ_SECONDS=0)"
fi

stage "wasm tests (node --test)"
wasm_tests=(tests/wasm/*.test.mjs)
if [ -e "${wasm_tests[0]}" ]; then
  node --test "${wasm_tests[@]}" || status=1
fi

stage "demo server and documentation link tests (node --test tests/server)"
node --test tests/server/*.test.mjs || status=1

if [ -d tests/browser ]; then
  browser_tests=(tests/browser/*.test.mjs)
  if [ -e "${browser_tests[0]}" ]; then
    stage "browser tests (chromium + playwright-core)"
    node --test --test-concurrency=1 "${browser_tests[@]}" || status=1
  fi
fi

stage "done"
exit $status
