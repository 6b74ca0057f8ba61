#!/bin/sh
# What the device-code mode leaves in a kernel (cmake/OffloadFlags.cmake's
# OMPREF_DEVICE_CODE): tests/device_code/copy_kernel.cpp compiled for sm_90
# by CLANG per file (-fno-offload-lto) and with device LTO (-foffload-lto),
# the device PTX of each read from -save-temps. Per file, the device runtime's
# bitcode is inlined into the kernel but its team state stays: shared-memory
# globals that only the whole program could prove unused (IsSPMDMode, the
# variable-sharing space, the data-transfer storage; about 700 bytes a team),
# kept, initialised and synchronised by every team. With device LTO the
# runtime is optimised with the program and none is left. file-lto (the GPU
# presets' mode) compiles the file for device LTO, links its device code alone
# with `clang -r` (a relocatable device link: the file and the runtime as one
# program), marks the image's section as plain data as cmake/compile_step.cmake
# does, and links the program from that object: its kernel must keep no
# runtime state either, and the program's link must not take the image for
# device code again. Fails when LTO or file-lto leaves runtime shared state or
# a runtime call, when the file-lto program does not link, or when per file
# has none (then the build's default mode needs a fresh look).
#   device_code_check.sh CLANG RT_PREFIX CUDA_PATH SOURCE
# Exit 77 (skipped) without CLANG.
set -eu
clang=$1 rt=$2 cuda=$3 src=$4
[ -d "$rt" ] && rt=$(cd "$rt" && pwd)
case $src in /*) ;; *) src=$PWD/$src ;; esac
command -v "$clang" >/dev/null 2>&1 || { echo "no $clang: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-O3 -fopenmp --offload-arch=sm_90 --cuda-path=$cuda -Wno-pass-failed"
if [ -d "$rt/lib/nvptx64-nvidia-cuda" ]; then
  flags="$flags --libomptarget-nvptx-bc-path=$rt/lib/nvptx64-nvidia-cuda -isystem$rt/include -L$rt/lib"
  flags="$flags -Xoffload-linker -L$rt/lib/nvptx64-nvidia-cuda -Wno-unused-command-line-argument"
fi
for mode in per-file lto; do
  mkdir "$work/$mode"
  lto=-fno-offload-lto; [ "$mode" = lto ] && lto=-foffload-lto
  (cd "$work/$mode" && $clang $flags $lto -save-temps "$src" -o copy 2>/dev/null) ||
    { echo "$mode: $clang could not build $src"; exit 1; }
done
mkdir "$work/file-lto"
objcopy=$(dirname "$(readlink -f "$(command -v "$clang")")")/llvm-objcopy
(cd "$work/file-lto" && $clang $flags -foffload-lto -c "$src" -o copy.tu.o 2>/dev/null &&
   $clang $flags -foffload-lto -r -save-temps copy.tu.o -o copy.o 2>/dev/null &&
   "$objcopy" --set-section-type=.llvm.offloading.relocatable=1 copy.o &&
   $clang $flags -foffload-lto copy.o -o copy 2>/dev/null) ||
  { echo "file-lto: $clang could not compile, link the device code of, or link the program from $src"; exit 1; }
# The kernel's PTX: per file the compile's own .s, with LTO the device link's.
perfile=$(ls "$work"/per-file/*openmp-nvptx64*.s)
lto=$(ls "$work"/lto/*.nvptx64.sm_90.s)
filelto=$(ls "$work"/file-lto/copy.o.nvptx64.sm_90.s)
shared() { grep -E '^[[:space:]]*(\.weak[[:space:]]+)?\.shared' "$1" | sed 's/[[:space:]]*\[.*//; s/.* //' | tr '\n' ' '; }
calls() { grep -o 'call[^;]*__kmpc_[a-z_0-9]*' "$1" | grep -o '__kmpc_[a-z_0-9]*' | sort -u | tr '\n' ' '; }
echo "per-file: shared memory declared: $(shared "$perfile")| runtime calls: $(calls "$perfile")"
echo "lto:      shared memory declared: $(shared "$lto")| runtime calls: $(calls "$lto")"
echo "file-lto: shared memory declared: $(shared "$filelto")| runtime calls: $(calls "$filelto")"
[ -n "$(shared "$perfile")" ] || { echo "per-file device code keeps no runtime state: recheck the default mode"; exit 1; }
[ -z "$(shared "$lto")" ] || { echo "device LTO left the runtime's shared state in the kernel"; exit 1; }
[ -z "$(calls "$lto")" ] || { echo "device LTO left runtime calls in the kernel"; exit 1; }
[ -z "$(shared "$filelto")" ] || { echo "file-lto left the runtime's shared state in the kernel"; exit 1; }
[ -z "$(calls "$filelto")" ] || { echo "file-lto left runtime calls in the kernel"; exit 1; }
echo ok
