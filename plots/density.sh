#!/usr/bin/env bash
# density.sh - table "matrix E1 E2 E3": the mean density of Algorithms 1, 2, 3 for each matrix
#   plots/density.sh [--cp LIST] A.mtx B.mtx ... > density.txt
set -euo pipefail
cp=75,75,1,1,1,1,1
if [ "${1:-}" = --cp ]; then cp=$2; shift 2; fi
echo "# matrix E1 E2 E3 (cp $cp)"
for m in "$@"; do
  row=$(basename "$m" .mtx)
  pmf "$m" > "${TMPDIR:-/tmp}/density.$$.rvs"
  for alg in rows nnz pmf; do
    d=$(partition --alg "$alg" --cp "$cp" --report "${TMPDIR:-/tmp}/density.$$.rvs" |
        sed -n 's/.*mean_density \([0-9.]*\).*/\1/p')
    row="$row $d"
  done
  echo "$row"
done
rm -f "${TMPDIR:-/tmp}/density.$$.rvs"
