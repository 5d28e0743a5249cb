#!/usr/bin/env bash
# gpu_spmv.sh - draw the GPU SpMV table of bench/gpu_spmv.sh (bench_gpu_spmv's columns) as
# GFLOP/s by format per matrix, with cuSPARSE CSR ALG1 as the last bar, one picture per
# precision, through plots/formats.gp.
#   plots/gpu_spmv.sh TABLE OUT_PREFIX      -> OUT_PREFIX-f64.png, OUT_PREFIX-f32.png
set -euo pipefail
in=${1:?table}; out=${2:?output prefix}
here=$(cd "$(dirname "$0")" && pwd)
for p in f64 f32; do
  tmp=$(mktemp)
  awk -v p="$p" '!/^#/ && $2 == p {
      if ($3 == "cusparse-alg1") { ref[$1] = $7; next }
      n++; m[n] = $1; f[n] = $3; g[n] = $7 }
    END { print "# matrix format threads gflops cusparse_gflops ratio";
          for (i = 1; i <= n; i++) print m[i], f[i], 0, g[i], ref[m[i]], "-" }' "$in" > "$tmp"
  gnuplot -e "in='$tmp'; out='$out-$p.png'; ref='cuSPARSE ALG1'" "$here/formats.gp"
  rm -f "$tmp"
done
