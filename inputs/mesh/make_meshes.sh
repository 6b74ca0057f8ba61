#!/bin/sh
# Regenerates the gmsh meshes of this folder (gmsh is the Debian package `gmsh`,
# 4.8.4 here) and their binary .meshb copies (ompref-meshb-convert, built with
# the suite). A size factor makes larger ones: `make_meshes.sh 0.25 /tmp/big`
# divides the element size by 4 (64x the tetrahedra) and writes into /tmp/big.
#   usage: make_meshes.sh [FACTOR (default 1)] [OUTDIR (default: this folder)] [CONVERT (default: build-host/ompref-meshb-convert)]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
factor=${1:-1}
out=${2:-$here}
convert=${3:-$here/../../build-host/ompref-meshb-convert}
mkdir -p "$out"
for name in sphere cylinder; do
  gmsh -3 "$here/$name.geo" -format mesh -clscale "$factor" -nt 1 -o "$out/$name.mesh" > "$out/$name.gmsh.log"
  "$convert" "$out/$name.mesh" "$out/$name.meshb" 2
  rm -f "$out/$name.gmsh.log"
done
