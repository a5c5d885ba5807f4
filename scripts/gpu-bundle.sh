#!/usr/bin/env bash
# Packs what a bare GPU machine lacks into one compressed file that can travel with the working tree: the CUDA
# build's binaries, the shared libraries they and OpenMPI's launcher load (OpenBLAS, OpenMPI and theirs), OpenMPI's
# launcher, helpers and plugins, and the data that training and its tests read (Multi30K, prefix lists, Tatoeba).
#   scripts/gpu-bundle.sh <build folder> <bundle.tar.xz>
# On the GPU machine, as root, from the checkout's root:
#   tar xJf <bundle.tar.xz> && eval "$(gpu-bundle/install.sh)" && scripts/gpu-check.sh <build folder>
# install.sh copies the libraries and launcher to the paths they were built for, never over a file already there
# (the machine's own libraries win), links the paths compiled into the test binaries (this checkout and the build
# folder's bin/) to the bundle where the machine lacks them, and prints the variables to export (ATTEND_DATA, and
# LD_LIBRARY_PATH where NCCL lies outside the linker's paths). CUDA's runtime, cuBLAS and NCCL are the machine's.
# GPU_BUNDLE_TATOEBA="deu fra cmn" (the default) names the Tatoeba pairs to carry, with their test sets: the working
# tree and what it carries travel together under 64 MiB, so a call that also carries models may take fewer.
# Configure the build folder for that machine's CPU and GPU, e.g.
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTEND_MARCH=x86-64-v3 -DCMAKE_CUDA_ARCHITECTURES=90
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then sed -n 2,13p "$0"; exit 2; fi
build=$(cd "$1" && pwd) tarball=$2
data=${ATTEND_DATA:-../shared/data}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
out=$stage/gpu-bundle
mkdir -p "$out/bin" "$out/root" "$out/data"
cp "$build"/bin/{attend,test_cuda,test_native} "$out/bin/"
cp -r "$data/multi30k" "$data/nonbreaking_prefixes" "$out/data/"
mkdir -p "$out/data/tatoeba/test"  # the everyday presets' pairs and test sets (not the seeds' slice)
for pair in ${GPU_BUNDLE_TATOEBA:-deu fra cmn}; do
    cp "$data/tatoeba/eng-$pair.tsv.gz" "$out/data/tatoeba/"
    cp "$data/tatoeba/test/tatoeba-test-v2021-08-07.eng-$pair.tsv" "$out/data/tatoeba/test/"
done
# Text packs smaller under xz than under gzip: the data sets' .gz files travel unpacked (named in gzipped.txt) and
# install.sh packs them again in place.
(cd "$out/data" && find . -name '*.gz' | sort > gzipped.txt && xargs -r -a gzipped.txt gunzip)

# Copies a file (a link and the file it names) under root/, at its path on a merged-/usr system (/lib is usr/lib).
put() {
    local dest=$1
    [[ $dest == /lib/* || $dest == /lib64/* || $dest == /bin/* ]] && dest=/usr$dest
    mkdir -p "$out/root$(dirname "$dest")"
    cp -a "$1" "$out/root$dest"
    if [ -L "$1" ]; then put "$(readlink -f "$1")"; fi
}
ompi=/usr/lib/x86_64-linux-gnu/openmpi
# Every library the binaries, the launcher and its plugins load, except the C library's own and CUDA's.
libs=$( { ldd "$out"/bin/* /usr/bin/orterun /usr/bin/orted "$ompi"/lib/openmpi3/*.so 2> /dev/null || true; } |
        awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
        grep -v -E '/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64)\.so|/usr/local/cuda' || true)
for f in /usr/bin/orterun /usr/bin/mpirun /etc/alternatives/mpirun /usr/bin/mpirun.openmpi /usr/bin/orted \
         "$ompi" /usr/share/openmpi /etc/openmpi $libs; do
    put "$f"
done

cat > "$out/install.sh" << EOF
#!/usr/bin/env bash
# Installs this bundle on a GPU machine (see scripts/gpu-bundle.sh); prints the variables to export.
set -euo pipefail
here=\$(cd "\$(dirname "\$0")" && pwd)
cp -a --update=none "\$here"/root/. / 2> /dev/null || cp -a -n "\$here"/root/. /
ldconfig
(cd "\$here/data" && while read -r f; do [ -f "\${f%.gz}" ] && gzip -1 -n "\${f%.gz}"; done < gzipped.txt) || true
# The test binaries run the CLI and read fixtures at the paths they were compiled with.
[ -e "$PWD" ] || { mkdir -p "$(dirname "$PWD")"; ln -s "\$PWD" "$PWD"; }
[ -e "$build/bin" ] || { mkdir -p "$build"; ln -s "\$here/bin" "$build/bin"; }
echo "export ATTEND_DATA=\$here/data OMP_WAIT_POLICY=passive"
if ! ldconfig -p | grep -q 'libnccl.so.2 '; then
    nccl=\$(find / -xdev -name 'libnccl.so.2*' -print -quit 2> /dev/null)
    [ -z "\$nccl" ] || echo "export LD_LIBRARY_PATH=\$(dirname "\$nccl")\\\${LD_LIBRARY_PATH:+:\\\$LD_LIBRARY_PATH}"
fi
EOF
chmod +x "$out/install.sh"
tar cf - -C "$stage" gpu-bundle | xz -T0 -9e > "$tarball"
ls -la "$tarball"
tree_bytes=$(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)
echo "gpu-bundle: the working tree ($((tree_bytes >> 20)) MiB) and this bundle ($(($(stat -c %s "$tarball") >> 20)) MiB)" \
    "travel together to the device: at most 64 MiB with whatever else a call carries"
