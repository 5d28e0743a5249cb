# spgemm_gpu.sh - spgemm on the GPU end to end: C written block by block (and in one pass)
# to .mtx and to a stream equals the CPU's files (integer values: every sum exact), both methods
# and the hybrid check out, and every report's stages add up to total_s
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/spgemm_stages.sh"
spgemm --gpu "$RVS_DATA/spgemm_a.mtx" "$RVS_DATA/spgemm_b.mtx" >/dev/null 2>&1
[ $? = 69 ] && { echo "no usable GPU: skipped"; exit 77; }
A=$RVS_DATA/spgemm_a.mtx; B=$RVS_DATA/spgemm_b.mtx
for ext in mtx rvs; do
  expect_ok -- spgemm --cpu "$A" "$B" -o "$T/cpu.$ext"
  expect_ok -- spgemm --gpu "$A" "$B" -o "$T/gpu.$ext"
  expect_eq "report device" "$(awk '$1 == "device" {print $2}' "$T/out")" gpu
  stages_add_up "--gpu -o gpu.$ext" "$T/out"
  if cmp -s "$T/cpu.$ext" "$T/gpu.$ext"; then ok; else bad "GPU .$ext differs from the CPU's"; fi
done
# a larger integer-valued product through a budget of a few blocks' worth: the same bytes
rvsgen rmat 11 8 -o "$T/r.rvs"
expect_ok -- spgemm --cpu "$T/r.rvs" -o "$T/rc.rvs"
expect_ok -- spgemm --gpu --gpu-mem 256K "$T/r.rvs" -o "$T/rg.rvs"
blocks=$(awk '$1 == "gpu_blocks" {print $2}' "$T/out")
[ "${blocks:-0}" -gt 3 ] && ok || bad "R-MAT 11 in $blocks blocks, want several"
stages_add_up "--gpu-mem 256K" "$T/out"
if cmp -s "$T/rc.rvs" "$T/rg.rvs"; then ok; else bad "GPU stream of R-MAT 11 differs from the CPU's"; fi
expect_ok -- spgemm --gpu "$T/r.rvs" -o "$T/r1.rvs"   # one pass, no blocks: the same bytes
expect_eq "one pass" "$(awk '$1 == "gpu_blocks" {print $2}' "$T/out")" 1
if cmp -s "$T/rc.rvs" "$T/r1.rvs"; then ok; else bad "one-pass stream of R-MAT 11 differs from the CPU's"; fi
for m in rowwise hyspmm; do
  expect_ok -- spgemm --gpu --method $m --check "$T/r.rvs" -o "$T/x.rvs"
  expect_eq "method reported" "$(awk '$1 == "method" {print $2}' "$T/out")" $m
  stages_add_up "--method $m" "$T/out"
done
expect_ok -- spgemm --hybrid --check "$T/r.rvs" -o "$T/x.rvs"
stages_add_up "--hybrid" "$T/out"
# no device named: the choice is reported
expect_ok -- spgemm --check "$T/r.rvs" -o "$T/y.rvs"
grep -q '^choice ' "$T/out" && ok || bad "no choice line"
stages_add_up "the engine's choice" "$T/out"
finish
