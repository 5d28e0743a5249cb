#!/usr/bin/env bash
# density.sh - table "matrix E1 E2 E3": the mean density of Algorithms 1, 2, 3 for each matrix
#   plots/density.sh [--cp LIST] A.mtx B.mtx ... > density.txt
# The programs are taken from RVS_BIN when set, else from the build tree beside this script
# (plots/../build), else from an installed tree (PREFIX/share/rvskit/plots ->
# PREFIX/libexec/rvskit), else from PATH (rvs-pmf, or pmf).
set -euo pipefail
cp=75,75,1,1,1,1,1
if [ "${1:-}" = --cp ]; then cp=$2; shift 2; fi
plot_name=density.sh
. "$(dirname "$0")/plot_lib.sh"
pmf=$(rvs_find pmf) && partition=$(rvs_find partition) ||
  plot_die 69 "pmf and partition not found (build rvskit, or set RVS_BIN)"
tmp=$(mktemp "${TMPDIR:-/tmp}/density.XXXXXX")
trap 'rm -f "$tmp"' EXIT
echo "# matrix E1 E2 E3 (cp $cp)"
for m in "$@"; do
  row=$(basename "$m" .gz)
  row=$(basename "$row" .mtx)
  "$pmf" "$m" > "$tmp"
  for alg in rows nnz pmf; do
    d=$("$partition" --alg "$alg" --cp "$cp" --report "$tmp" | sed -n 's/.*mean_density \([0-9.]*\).*/\1/p')
    row="$row $d"
  done
  echo "$row"
done
