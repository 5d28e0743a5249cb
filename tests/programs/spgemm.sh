# spgemm.sh - spgemm end to end: Fig. 3.1 of hybrid-spgemm as .mtx and as a stream; the
# report's stages add up to total_s
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/spgemm_stages.sh"

cp "$RVS_DATA/spgemm_a.mtx" "$T/A.mtx"; cp "$RVS_DATA/spgemm_b.mtx" "$T/B.mtx"
# the matrices of Fig. 3.1 (data/spgemm_a.mtx, data/spgemm_b.mtx) and the identity
cat >"$T/I.mtx" <<'M'
%%MatrixMarket matrix coordinate real general
4 4 4
1 1 1
2 2 1
3 3 1
4 4 1
M
# C by hand (see test_spgemm_golden.c), 1-based
want='1 1 10
2 1 120
2 2 430
2 4 340
3 2 300
3 4 350
4 2 120
4 4 180'

expect_ok -- spgemm --cpu --check "$T/A.mtx" "$T/B.mtx" -o "$T/C.mtx"
expect_eq "C.mtx entries" "$(grep -v '^%' "$T/C.mtx" | tail -n +2)" "$want"
expect_eq "C.mtx size line" "$(grep -v '^%' "$T/C.mtx" | head -1)" "4 4 8"
expect_eq "report products" "$(awk '$1 == "products" {print $2}' "$T/out")" 11
expect_eq "report nnz" "$(awk '$1 == "nnz_c" {print $2}' "$T/out")" 8
stages_add_up "--cpu" "$T/out"
expect_eq "no device on the CPU" "$(awk '$1 == "setup_s" {print $2}' "$T/out")" 0.000000

# stream to stdout (report on stderr), read back: C * I = C
spgemm --cpu "$T/A.mtx" "$T/B.mtx" >"$T/C.rvs" 2>"$T/rep"
expect_eq "stream status" $? 0
expect_eq "report on stderr" "$(awk '$1 == "nnz_c" {print $2}' "$T/rep")" 8
expect_ok -- spgemm --cpu -c "$T/C.rvs" "$T/I.mtx" -o "$T/C2.mtx"
expect_eq "C*I" "$(grep -v '^%' "$T/C2.mtx" | tail -n +2)" "$want"
# the stream on stdin as A, in f32
expect_ok -- sh -c "spgemm --cpu -c -p f32 - '$T/I.mtx' -o '$T/C3.mtx' <'$T/C.rvs'"
expect_eq "f32 C*I" "$(grep -v '^%' "$T/C3.mtx" | tail -n +2)" "$want"
# one operand: A*A; baselines print their rows
expect_ok -- spgemm --cpu -c --baseline "$T/A.mtx" -o "$T/AA.mtx"
expect_eq "A*A products" "$(awk '$1 == "products" {print $2}' "$T/out")" 10
grep -q '^csparse_s ' "$T/out" && ok || bad "--baseline: no csparse_s row"
# no device named: the engine chooses (11 products: the CPU) and says why
expect_ok -- spgemm --check "$T/A.mtx" "$T/B.mtx" -o "$T/C4.mtx"
expect_eq "auto device" "$(awk '$1 == "device" {print $2}' "$T/out")" cpu
grep -q '^choice .*cpu' "$T/out" && ok || bad "no choice line naming the CPU"
stages_add_up "the engine's choice" "$T/out"
# a larger product on the CPU, in JSON: the stages still add up
rvsgen rmat 10 8 -o "$T/r10.rvs"
expect_ok -- spgemm --cpu --json "$T/r10.rvs"
if [ -n "$PY" ]; then
  sum=$(json_get setup_s <"$T/out")+$(json_get pre_s <"$T/out")+$(json_get transfer_s <"$T/out")
  sum=$sum+$(json_get multiply_s <"$T/out")+$(json_get compress_s <"$T/out")
  d=$("$PY" -c "print(abs($sum - $(json_get total_s <"$T/out")) <= 1e-3)")
  expect_eq "JSON stages add up to total_s" "$d" True
fi
expect_eq "auto C" "$(grep -v '^%' "$T/C4.mtx" | tail -n +2)" "$want"
expect_ok -- spgemm --help
finish
