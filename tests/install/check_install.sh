#!/usr/bin/env bash
# Installs the build tree into a fresh prefix, builds examples/ against it with find_package(Attend), and checks
# that the example translates as `attend translate` does and shows an attention line for every output token.
#   tests/install/check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/attend-install-XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
test -f "$prefix/include/attend/attend.h"
# The public headers stand alone: nothing from the internal core/ tree.
if grep -rn '#include "' "$prefix/include/attend" | grep -v '"attend/'; then
  echo "check_install: a public header includes an internal one" >&2; exit 1
fi
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$src/examples" -B "$prefix/example" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$prefix/example" > /dev/null
model="$src/web/models/multi30k-en-de-cased.safetensors"
sentence="Two young men are playing soccer in a park."
got=$("$prefix/example/translate" "$model" "$sentence")
expected=$("$build/bin/attend" translate -m "$model" -t "$sentence")
if [ "$got" != "$expected" ]; then
  echo "check_install: the example says '$got', attend translate '$expected'" >&2; exit 1
fi
lines=$("$prefix/example/translate" "$model" "$sentence" --attention | grep -c ' -> ')
[ "$lines" -ge 5 ] || { echo "check_install: $lines attention lines" >&2; exit 1; }
if "$prefix/example/translate" "$src/README.md" "$sentence" 2> "$prefix/err"; then
  echo "check_install: a README loaded as a model" >&2; exit 1
fi
grep -q "README.md" "$prefix/err"
echo "check_install: installed to $prefix, the example built with find_package(Attend) and translated: $got"
