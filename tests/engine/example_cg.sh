#!/usr/bin/env bash
# example_cg.sh - examples/cg.c: CG with the SpMV operator on a symmetric positive definite
# matrix converges (residual under its tolerance) and says what ran; bad input refused.
. "$RVS_SRC/tests/lib/common.sh"
cg=$RVS_BIN/tests/example_cg
# a 2-D Laplacian of 40 x 40, written here: SPD, 4 on the diagonal, -1 to its neighbours
n=40
awk -v n=$n 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print n*n, n*n, 5*n*n - 4*n;
  for (i = 0; i < n; i++) for (j = 0; j < n; j++) { r = i*n + j + 1; print r, r, 4;
    if (j > 0) print r, r - 1, -1; if (j < n - 1) print r, r + 1, -1; if (i > 0) print r, r - n, -1;
    if (i < n - 1) print r, r + n, -1 } }' > "$T/lap.mtx"
"$cg" "$T/lap.mtx" 500 1e-10 > "$T/o" 2> "$T/e" && ok || bad "cg failed: $(cat "$T/e")"
read -r solver dev fmt knobs how it res rest < <(sed -n 2p "$T/o")
expect_eq "solver" "$solver" rvskit
awk -v r="$res" 'BEGIN { exit !(r + 0 < 1e-10) }' && ok || bad "residual $res not under 1e-10: $(cat "$T/o")"
awk -v i="$it" 'BEGIN { exit !(i > 10 && i < 500) }' && ok || bad "iterations $it: $(cat "$T/o")"
case $how in model|trial|cache|tuned) ok ;; *) bad "how '$how'" ;; esac
if [ "$dev" = gpu ]; then # cuSPARSE beside: the same iterations
  read -r s2 _ _ _ _ it2 res2 rest < <(sed -n 3p "$T/o")
  expect_eq "cusparse row" "$s2 $it2" "cusparse $it"
fi
# not square, and a missing file: refused with one line, nothing on stdout
printf '%%%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n' > "$T/rect.mtx"
expect_fail 65 "^cg: .*rect.mtx: 2 x 3 is not square" -- "$cg" "$T/rect.mtx"
expect_fail 66 "^cg: .*nofile.mtx: " -- "$cg" "$T/nofile.mtx"
finish
