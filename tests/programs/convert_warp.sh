# convert_warp.sh - convert --report's N_iter for the warp width --warp gives: Fig. 5 of Wang and
# Gu, "PELLR: A Permutated ELLPACK-R Format for SpMV on GPUs" (J. Computer and Communications,
# 2020), through the command line: 26 rows, a warp of 8, ELLR 18 and PELLR 15 (the paper's 14
# miscounts its sorted rows); bad widths are usage errors.
. "$RVS_SRC/tests/lib/common.sh"
m=$RVS_DATA/pellr26.mtx

# report FORMAT [OPTION...]: the n_iter and n_p columns of convert's report on the Fig. 5 matrix
report() {
  local f=$1; shift
  convert --to "$f" --report "$@" "$m" </dev/null 2>"$T/err" | awk '!/^#/ { print $10, $11 }'
}

# warps of 8: ELLR in the rows' order, PELLR and JAD sorted, ELL every row as long as the longest
expect_eq "ellr, warp 8" "$(report ellr --warp 8)" "18 130"
expect_eq "pellr, warp 8" "$(report pellr --warp 8)" "15 130"
expect_eq "jad, warp 8" "$(report jad --warp 8)" "15 130"
expect_eq "ell, warp 8" "$(report ell --warp 8)" "28 $((26 * 13))"
# BiELL's groups are cut for warps of 32: no N_iter for another width
expect_eq "biell, warp 8" "$(report biell --warp 8)" "- 130"
expect_eq "csr, warp 8" "$(report csr --warp 8)" "- -"
# the default, 32: all 26 rows are one warp, led by the row of 7
expect_eq "ellr, default warp" "$(report ellr)" "7 130"
expect_eq "ellr, warp 32" "$(report ellr --warp 32)" "7 130"
expect_eq "biell, warp 32" "$(report biell --warp 32)" "$(report biell)"
# one row a warp: every row's own length, summed
expect_eq "ellr, warp 1" "$(report ellr --warp 1)" "78 130"

# the width in the report's head and in the JSON report
convert --to pellr --warp 8 --report "$m" </dev/null >"$T/rep" 2>"$T/err" || bad "convert --warp 8 --report: $(cat "$T/err")"
grep -q '^# matrix .*  warp 8$' "$T/rep" && ok || bad "the report's head does not say warp 8: $(head -1 "$T/rep")"
if [ -n "$PY" ]; then
  convert --to pellr --warp 8 --json "$m" </dev/null >"$T/j" 2>"$T/err" || bad "convert --json: $(cat "$T/err")"
  expect_eq "json warp" "$(json_get warp <"$T/j")" 8
  expect_eq "json n_iter" "$(json_get blocks.0.n_iter <"$T/j")" 15
  convert --to pellr --json "$m" </dev/null >"$T/j" 2>"$T/err"
  expect_eq "json default warp" "$(json_get warp <"$T/j") $(json_get blocks.0.n_iter <"$T/j")" "32 7"
fi

# widths that are no warp
expect_fail 64 "^convert: --warp: '0' is not an integer in 1\.\.1024" -- convert --to ellr --warp 0 --report "$m"
expect_fail 64 "^convert: --warp: '1025' is not an integer in 1\.\.1024" -- convert --to ellr --warp 1025 -r "$m"
expect_fail 64 "^convert: --warp: 'eight' is not an integer" -- convert --to ellr --warp eight -r "$m"
expect_fail 64 "^convert: .*--warp.*needs a value" -- convert --to ellr -r "$m" --warp
finish
