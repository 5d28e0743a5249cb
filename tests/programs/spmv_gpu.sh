# spmv_gpu.sh - the spmv program on the GPU: --gpu, --hybrid, --baseline, --tune, checked
# against CSparse. Skipped (77) without a usable GPU.
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx
spmv --gpu -n 1 "$M" > /dev/null 2>&1
[ $? = 69 ] && { echo "no usable GPU: skipped"; exit 77; }

# spmv_ok WHAT -- cmd...: a checked run succeeds and prints exactly one total line.
spmv_ok() {
  local what=$1; shift 2
  if "$@" > "$T/out" 2> "$T/err"; then
    [ "$(grep -c '^total ' "$T/out")" = 1 ] && ok || bad "$what: no total line in $(head -c 300 "$T/out")"
  else
    bad "$what: status $? ($(head -c 300 "$T/err"))"
  fi
}

# the pipelines exactly as typed
pmf < "$M" | partition --alg pmf | spmv --gpu > "$T/o" 2> "$T/e"
expect_eq "pmf | partition | spmv --gpu" "${PIPESTATUS[*]}" "0 0 0"
spmv_ok "spmv A.mtx (GPU by default)" -- spmv --check "$M"
grep -q '^total *gpu' "$T/out" && ok || bad "default mode is not gpu with a GPU: $(cat "$T/out")"
grep -q '^# gpu .*copy bandwidth' "$T/out" && ok || bad "no copy bandwidth line"
grep -q 'frac_copy_bw$' "$T/out" && ok || bad "no frac_copy_bw column"

MATS="$RVS_DATA/pmf20.mtx $RVS_DATA/hyb4.mtx $RVS_DATA/pellr26.mtx"
if have_matrices; then
  for m in bcsstk16 email-Enron memplus usroads 1138_bus ash219 bcsstm05; do
    [ -f "$RVS_MATRICES/$m.mtx" ] && MATS="$MATS $RVS_MATRICES/$m.mtx"
  done
fi
for M in $MATS; do
  n=$(basename "$M" .mtx)
  for p in f64 f32; do
    spmv_ok "$n --gpu $p" -- spmv --gpu --check -n 3 -p $p "$M"
    spmv_ok "$n --gpu --baseline $p" -- spmv --gpu --check --baseline -n 3 -p $p "$M"
    expect_eq "$n baseline rows" "$(grep -c '^cusparse' "$T/out")" 3
    expect_eq "$n ratio lines" "$(grep -c '^# time ours/cusparse' "$T/out")" 3
  done
  for alg in rows nnz pmf diag; do
    pmf "$M" | partition --alg $alg --cp 75,1,1,1 > "$T/part.rvs" || { bad "$n partition $alg"; continue; }
    for gf in csr coo ellr pellr hyb hcc; do
      convert --gpu-format $gf --cpu-format csr < "$T/part.rvs" > "$T/c.rvs" 2> "$T/e" || continue
      spmv_ok "$n $alg $gf --hybrid" -- spmv --hybrid --check -n 3 "$T/c.rvs"
      grep -q '^gpu ' "$T/out" && grep -q '^cpu ' "$T/out" && ok || bad "$n hybrid: no per-device rows"
      spmv_ok "$n $alg $gf --gpu f32" -- spmv --gpu --check -n 2 -p f32 "$T/c.rvs"
    done
  done
done

# tunables reach the kernels; a bad value is a kernel error, not a crash
for t in threads-per-row=1 threads-per-row=2 threads-per-row=32 block=64 block=1024 csr-values=1 csr-order=1,csr-values=1; do
  spmv_ok "--tune $t" -- spmv --gpu --check --tune $t "$RVS_DATA/pellr26.mtx"
done
spmv_ok "--tune threads-per-row=256 (warp-rows) -f csr" -- spmv --gpu --check -f csr --tune threads-per-row=256 "$RVS_DATA/pellr26.mtx"
# a banded block of regular rows goes up laid out for the row kernels (16-bit columns, coded
# values); a kernel that cannot read that layout gets the block as it is
rvsgen stencil27 12 -o "$T/s27.rvs"
for t in threads-per-row=1 threads-per-row=2 threads-per-row=64 threads-per-row=128 threads-per-row=256 csr-index=1 \
    csr-index=1,csr-values=1; do
  spmv_ok "--tune $t -f csr, stencil" -- spmv --gpu --check -f csr --tune $t "$T/s27.rvs"
done
spmv_ok "--precision mixed -f csr, stencil" -- spmv --gpu --check -f csr --precision mixed "$T/s27.rvs"
expect_fail 64 "^spmv: .*threads-per-row 3" -- spmv --gpu --tune threads-per-row=3 "$RVS_DATA/pellr26.mtx"
expect_fail 64 "^spmv: .*threads-per-row 512 is not a power of two up to 32" -- spmv --gpu --tune threads-per-row=512 "$RVS_DATA/pellr26.mtx"
# --tune sets what it names over the plan's knobs: the plan shows it on every GPU item
spmv --gpu --plan --tune csr-values=1 "$RVS_DATA/pellr26.mtx" > "$T/plan" 2>&1 && grep -q 'csr-values=1' "$T/plan" &&
  ok || bad "--tune csr-values=1 not in the plan"
spmv --gpu --plan --tune csr-values=1 -f csr --no-cache "$RVS_DATA/pellr26.mtx" > "$T/plan" 2>&1 &&
  grep -q '^1 .*gpu csr .*csr-values=1' "$T/plan" && ok || bad "--tune csr-values=1 -f csr: not on the item"
# DIA and HYB-DIA: a stencil's slots (values 6 and -1, and the padding's 0) go up coded into a
# table by default, as they are with dia-values=1; both checked, f64 and f32
rvsgen stencil7 24 > "$T/s24.rvs"
for f in dia hyb-dia; do
  for t in dia-values=0 dia-values=1 dia-values=0,rows-per-thread=4; do
    spmv_ok "-f $f --tune $t" -- spmv --gpu --check -n 2 -f $f --tune $t "$T/s24.rvs"
    spmv_ok "-f $f --tune $t f32" -- spmv --gpu --check -n 2 -p f32 -f $f --tune $t "$T/s24.rvs"
  done
done
spmv --gpu --plan --tune dia-values=1 -f dia --no-cache "$T/s24.rvs" > "$T/plan" 2>&1 &&
  grep -q '^1 .*gpu dia .*dia-values=1' "$T/plan" && ok || bad "--tune dia-values=1 -f dia: not on the item"

# --gpu-mem: what the device budget does not hold is streamed through two slots (or moved to the
# CPU), y checked; the plan says which
rvsgen stencil7 40 > "$T/s40.rvs"
spmv --gpu --plan -f csr --gpu-mem 2M "$T/s40.rvs" > "$T/plan" 2> "$T/err" && ok || bad "plan: $(cat "$T/err")"
grep -q '^# plan: .*device budget 2.0 MiB' "$T/plan" && ok || bad "no budget in $(head -1 "$T/plan")"
grep -Eq ' streamed/[0-9]+$' "$T/plan" && ok || bad "nothing streamed: $(cat "$T/plan")"
spmv --gpu --plan -f csr "$T/s40.rvs" > "$T/plan" 2> "$T/err"
grep -q ' device$' "$T/plan" && ok || bad "resident without a budget: $(cat "$T/plan")"
for f in csr ellr pellr hyb coo hcc; do
  for p in f64 f32; do
    spmv_ok "--gpu-mem 2M $f $p" -- spmv --gpu --gpu-mem 2M -f $f -p $p --check -n 3 "$T/s40.rvs"
  done
done
pmf "$T/s40.rvs" | partition --alg nnz --cp 2:gpu,1:gpu,1:cpu | convert --gpu-format ellr --cpu-format csr > "$T/s40p.rvs"
pmf "$T/s40.rvs" | partition --alg pmf --cp 2:gpu,1:gpu,1:cpu | convert --gpu-format pellr --cpu-format csr > "$T/s40q.rvs"
for s in s40p s40q; do
  for mode in --gpu --hybrid; do
    for b in 1500K 3M; do
      spmv_ok "$s $mode --gpu-mem $b" -- spmv $mode --gpu-mem $b --check -n 3 "$T/$s.rvs"
    done
  done
done
# one pmf part (scattered rows, 448K entries over 7 hub windows): the planner weighs it against
# the whole matrix, building the part last and giving the hub back, and --check's reference is
# made before; streamed, the hub's windows go as the chunks fill
pmf "$T/s40.rvs" | partition --alg pmf > "$T/q40.rvs"
spmv_ok "one pmf part, auto, --check" -- spmv --gpu --check -n 2 "$T/q40.rvs"
grep -Eq '^# plan: .*(parts kept|parts fused into the whole matrix)' "$T/out" && ok ||
  bad "the part was not weighed against the whole matrix: $(grep '^# plan' "$T/out")"
for f in ellr hyb jad; do
  spmv_ok "one pmf part streamed, $f" -- spmv --gpu --gpu-mem 2M -f $f --check -n 2 "$T/q40.rvs"
  grep -Eq ' streamed/[0-9]+$' "$T/out" && ok || bad "one pmf part, $f: nothing streamed"
done
# a CPU part large enough to run as row blocks (9.6M entries) is still weighed against the GPU
rvsgen stencil7 140 | pmf | partition --alg nnz --cp 1:gpu,1:cpu > "$T/s140.rvs"
spmv_ok "hybrid, CPU row blocks" -- spmv --hybrid --check -n 2 "$T/s140.rvs"
grep -Eq '^# plan: .*CPU parts (kept|moved to the GPU)' "$T/out" && ok ||
  bad "CPU row blocks not weighed against the GPU: $(grep '^# plan' "$T/out")"
rm -f "$T/s140.rvs"
expect_fail 64 "^spmv: --gpu-mem: '2X' is not a size" -- spmv --gpu --gpu-mem 2X "$T/s40.rvs"
finish
