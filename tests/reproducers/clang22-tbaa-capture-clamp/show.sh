#!/usr/bin/env bash
# Shows, without a GPU, where clang 22 loses clamp_rows.cpp's row clamp
# std::min(n, c * chunk + chunk): the device code compiled under several
# settings (is the clamp still in the PTX of the parallel region?), the pass
# of the -O2 pipeline after which it is gone (opt-22 -opt-bisect-limit, each
# step's IR compiled by llc-22), that pass's change to the IR, and clamp.ll
# through opt-22. README.md records its output.
#   show.sh              (from anywhere; needs clang++-22, opt-22, llc-22;
#                         clang++-19 and LLVM 19's opt where installed)
# Environment: CUDA_PATH (default /usr/local/cuda; only its version is read).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cuda=${CUDA_PATH:-/usr/local/cuda}
for t in clang++-22 opt-22 llc-22; do
  command -v $t > /dev/null || { echo "show.sh: $t not found" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$here/clamp_rows.cpp" "$here/clamp.ll" .
dev=(-fopenmp --offload-arch=sm_90 --cuda-path="$cuda" -Wno-unknown-cuda-version --offload-device-only)

# The PTX function of the parallel region (the loop over i) of a PTX file.
region() { awk '/^\.func .*_omp_outlined_omp_outlined\(/{f=1} f{print} f&&/End function/{exit}' "$1"; }
# Whether the clamp survives in it: a min, or still a call of std::min.
clamp_state() {
  local n
  n=$(region "$1" | grep -cE 'min\.s32|_ZSt3min' || true)  # (not grep -q: with pipefail, awk's SIGPIPE)
  if [ "$n" -gt 0 ]; then echo "clamp kept"; else echo "clamp LOST"; fi
}

echo "== clamp_rows.cpp, device code for sm_90 (PTX of the parallel region)"
settings=("clang++-22 -O2" "clang++-22 -O3" "clang++-22 -O1" "clang++-22 -O2 -Xarch_device -fno-strict-aliasing"
          "clang++-22 -O2 -mllvm -openmp-opt-disable" "clang++-19 -O2")
for s in "${settings[@]}"; do
  read -r -a cmd <<< "$s"
  command -v "${cmd[0]}" > /dev/null || { printf '%-55s not installed\n' "$s"; continue; }
  "${cmd[0]}" "${dev[@]}" "${cmd[@]:1}" -S clamp_rows.cpp -o out.s
  printf '%-55s %s\n' "$s" "$(clamp_state out.s)"
done
echo
echo "-- clang++-22 -O2: the row loop of the parallel region (bound = c*chunk + chunk, no min)"
clang++-22 "${dev[@]}" -O2 -S clamp_rows.cpp -o o2.s
region o2.s | grep -E '^\$L__BB|mul\.lo\.s32|add\.s32|setp\.(lt|ge)\.s32|min\.s32' | sed -n '/Loop Header/,$p'
echo "-- clang++-22 -O2 -Xarch_device -fno-strict-aliasing: the same loop"
clang++-22 "${dev[@]}" -O2 -Xarch_device -fno-strict-aliasing -S clamp_rows.cpp -o nsa.s
region nsa.s | grep -E '^\$L__BB|mul\.lo\.s32|add\.s32|setp\.(lt|ge)\.s32|min\.s32' | sed -n '/Loop Header/,$p'

echo
echo "== clang's IR before optimisation: n's slot in the parallel region"
clang++-22 "${dev[@]}" -O2 -S -emit-llvm -Xclang -disable-llvm-passes clamp_rows.cpp -o pre.ll
fn=$(grep -oE '@__omp_offloading_[0-9a-f_]+main_l[0-9]+_omp_outlined_omp_outlined\(' pre.ll | head -1 | tr -d '@(')
extract() { awk -v f="$fn" '$0 ~ "^define .*@" f "\\(" {p=1} p{print} p&&/^}/{exit}' "$1"; }
# The type name of a TBAA access tag: tbaa FILE !N.
tbaa() { local t; t=$(grep -E "^$2 = " "$1" | grep -oE '\{![0-9]+' | tr -d '{'); grep -E "^$t = " "$1" | grep -oE '"[^"]+"' | head -1; }
extract pre.ll > region.ll
call=$(grep -E 'call .*@_ZSt3minIiERKT_S2_S2_\(' region.ll)
slot=$(grep -oE '_S2_\(ptr [^%]*%[0-9]+' <<< "$call" | grep -oE '%[0-9]+$')
store=$(grep -E "store i64 %[0-9]+, ptr $slot, " region.ll)
load=$(awk '/^define .*_ZSt3minIiERKT_S2_S2_/{p=1} p&&/load i32, ptr %[0-9]+, align 4, !tbaa/{print; exit}' pre.ll)
echo "$store    ; $(tbaa pre.ll "$(grep -oE '![0-9]+$' <<< "$store")")"
echo "$call"
echo "  in std::min: $load    ; $(tbaa pre.ll "$(grep -oE '![0-9]+$' <<< "$load")")"

echo
echo "== the -O2 pipeline pass by pass: opt-22 -O2 -opt-bisect-limit=N, then llc-22 -mcpu=sm_90"
opt-22 -O2 -opt-bisect-limit=-1 -disable-output pre.ll 2> bisect.txt
total=$(grep -c 'BISECT: running pass' bisect.txt)
ok_at() { opt-22 -O2 -opt-bisect-limit="$1" pre.ll 2> /dev/null | llc-22 -mcpu=sm_90 -o "step$1.s" && [ "$(clamp_state "step$1.s")" = "clamp kept" ]; }
lo=0 hi=$total  # clamp kept after lo passes, lost after hi
ok_at $lo || { echo "show.sh: the clamp is missing before any pass ran" >&2; exit 1; }
! ok_at $hi || { echo "show.sh: the clamp survives the whole pipeline (clang 22 fixed?)" >&2; exit 1; }
while [ $((hi - lo)) -gt 1 ]; do
  mid=$(((lo + hi) / 2))
  if ok_at $mid; then lo=$mid; else hi=$mid; fi
done
echo "$total passes; clamp kept after $lo of them, lost from pass $hi:"
grep "running pass ($hi)" bisect.txt
echo "-- n's slot around that pass: std::min inlined is a select of two slots, read through addrspace(5)"
opt-22 -O2 -opt-bisect-limit=$lo -S pre.ll -o before.ll 2> /dev/null
opt-22 -O2 -opt-bisect-limit=$hi -S pre.ll -o after.ll 2> /dev/null
sel=$(extract before.ll | grep -E '= select i1 %[0-9]+, ptr %[0-9]+, ptr %' | head -1)
nslot=$(grep -oE 'ptr %[^ ,]+$' <<< "$sel" | cut -d' ' -f2)
selv=$(grep -oE '^ *%[^ ]+' <<< "$sel" | tr -d ' ')
for f in before after; do
  echo "   $f ($([ $f = before ] && echo "$lo" || echo "$hi") passes):"
  extract $f.ll | grep -E "(store .*, ptr \\$nslot,|alloca .*|= select i1 .*\\$nslot$|addrspacecast ptr \\$selv |load i32, ptr addrspace\\(5\\) %[0-9]+, align 4, !tbaa)" |
    grep -E "\\$nslot|$(extract $f.ll | grep -oE "%[0-9]+ = addrspacecast ptr \\$selv " | cut -d' ' -f1 | head -1)" | sed 's/^/     /'
done
echo "   (there $(for m in $(extract before.ll | grep -oE '!tbaa ![0-9]+' | sort -u | cut -d' ' -f2); do printf '%s is %s, ' "$m" "$(tbaa before.ll "$m")"; done | sed 's/, $//'))"
echo "-- OpenMPOpt's casts to addrspace(5) in the module after the whole pipeline: LLVM 22: $(opt-22 -O2 pre.ll -S 2> /dev/null | grep -c 'addrspacecast ptr .* to ptr addrspace(5)')"
opt19=/usr/lib/llvm-19/bin/opt
if command -v clang++-19 > /dev/null && [ -x $opt19 ]; then
  clang++-19 "${dev[@]}" -O2 -S -emit-llvm -Xclang -disable-llvm-passes clamp_rows.cpp -o pre19.ll
  echo "   clang-19 + LLVM 19 (the same TBAA in its IR: $(grep -cE 'store i64 %[0-9]+, ptr %[0-9]+, align 8, !tbaa' pre19.ll) stores of i64 captures): $($opt19 -O2 pre19.ll -S 2> /dev/null | grep -c 'addrspacecast ptr .* to ptr addrspace(5)')"
fi

echo
echo "== clamp.ll"
echo "-- opt-22 -passes=dse: store of n kept? $(opt-22 -S -passes=dse clamp.ll | grep -c 'store i32 %n,') (1 kept, 0 deleted)"
echo "-- opt-22 -passes=dse -aa-pipeline=basic-aa: $(opt-22 -S -passes=dse -aa-pipeline=basic-aa clamp.ll | grep -c 'store i32 %n,')"
echo "-- opt-22 -O2 | llc-22 -mcpu=sm_90 (the body of clamp):"
opt-22 -O2 clamp.ll | llc-22 -mcpu=sm_90 | grep -E '^\s+(ld|st)\.param|min\.s32'
echo "-- the same without the addrspacecast (SROA promotes the slots first):"
sed 's/^  %p5 = addrspacecast.*//; s/ptr addrspace(5) %p5/ptr %p/' clamp.ll | opt-22 -O2 | llc-22 -mcpu=sm_90 |
  grep -E '^\s+(ld|st)\.param|min\.s32'
if [ -x $opt19 ]; then
  echo "-- LLVM 19: $opt19 -passes=dse: $($opt19 -S -passes=dse clamp.ll | grep -c 'store i32 %n,')"
fi
