# Source on the GPU machine, from the checkout root (scripts/gpu-bundle.sh
# copies this file into the bundle as env.sh):
#   . .gpu/env.sh
# Unpacks the bundle's runtimes once (into $OMPREF_GPU_RT, default
# /tmp/ompref-gpu-rt) and defines:
#   with_clang19_rt CMD...   CMD with libomptarget 19 (the `gpu` build)
#   with_clang22_rt CMD...   CMD with libomptarget 22 (the `gpu-aot` build)
#   with_gcc12_rt CMD...     CMD with gcc-12's libgomp and nvptx plugin (`gcc-offload`)
_ompref_bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_ompref_rt=${OMPREF_GPU_RT:-/tmp/ompref-gpu-rt}
export PATH=/usr/local/cuda/bin:$PATH   # clang's JIT calls ptxas
# Each runtime unpacked once, where the bundle carries it (a partial copy of
# .gpu/ serves the builds whose runtimes it has).
mkdir -p "$_ompref_rt"
for _ompref_pair in rt:llvm19-rt gomp:gomp-nvptx rt22:llvm22-rt; do
  [ -d "$_ompref_rt/${_ompref_pair%%:*}" ] || [ ! -f "$_ompref_bundle/${_ompref_pair#*:}.tar.xz" ] ||
    tar -C "$_ompref_rt" -xJf "$_ompref_bundle/${_ompref_pair#*:}.tar.xz"
done
with_clang19_rt() { LD_LIBRARY_PATH=$_ompref_rt/rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }
with_clang22_rt() { LD_LIBRARY_PATH=$_ompref_rt/rt22${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }
with_gcc12_rt() { LD_LIBRARY_PATH=$_ompref_rt/gomp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }
_ompref_missing=$(for _ompref_lib in rt/libomptarget.so.19.1 rt22/libomptarget.so.22.1; do
                    [ ! -f "$_ompref_rt/$_ompref_lib" ] ||
                      LD_LIBRARY_PATH=$_ompref_rt/${_ompref_lib%%/*} ldd "$_ompref_rt/$_ompref_lib"
                  done | grep 'not found' | sort -u || true)
[ -z "$_ompref_missing" ] || echo "env.sh: libraries missing on this machine: $_ompref_missing" >&2
