# spmv.sh - the spmv program on the CPU: every format, f64 and f32, checked against CSparse,
# on the papers' matrices and (sampled pipelines) on every shared matrix; error cases
. "$RVS_SRC/tests/lib/common.sh"
FORMATS="csr coo ell ellr pellr biell jad hyb hyb-dia dia hcc"
set -- $FORMATS
NFMT=$#

# spmv_ok WHAT -- cmd...: a checked run succeeds and prints exactly one total line.
spmv_ok() {
  local what=$1; shift 2
  if "$@" > "$T/out" 2> "$T/err"; then
    [ "$(grep -c '^total ' "$T/out")" = 1 ] && ok || bad "$what: no total line in $(head -c 300 "$T/out")"
  else
    bad "$what: status $? ($(head -c 300 "$T/err"))"
  fi
}

# convert_or_refused FMT OUT ARGS...: convert the stream in $T/part.rvs; 0 when it worked,
# 1 when the format refused the matrix (DIA-like formats may: padding limit), else a failure.
convert_or_refused() {
  local fmt=$1 out=$2; shift 2
  convert "$@" < "$T/part.rvs" > "$out" 2> "$T/conv.err"
  local st=$?
  [ "$st" -eq 0 ] && return 0
  if [ "$st" -eq 65 ] && grep -Eqi "refuse|would store|limit" "$T/conv.err"; then return 1; fi
  bad "convert $* ($fmt): status $st ($(head -c 300 "$T/conv.err"))"
  return 1
}

# --- the papers' matrices: the 20x20 example in every algorithm, format and precision; the
# other two in every format with the pmf partition
for m in pmf20 hyb4 pellr26; do
  M=$RVS_DATA/$m.mtx
  algs=pmf; [ $m = pmf20 ] && algs="rows nnz pmf diag"
  for p in f64 f32; do
    spmv_ok "$m $p mtx" -- spmv --cpu --check -n 2 -p $p "$M"
  done
  for alg in $algs; do
    pmf "$M" | partition --alg $alg --cp 1,2,6 > "$T/part.rvs" || { bad "partition $alg $m"; continue; }
    i=0
    for f in $FORMATS; do
      i=$((i + 1))
      convert_or_refused $f "$T/c.rvs" --to $f || continue
      ps="f64 f32"; [ $m = pmf20 ] || { ps=f64; [ $((i % 2)) = 0 ] && ps=f32; }
      for p in $ps; do
        spmv_ok "$m $alg $f $p" -- spmv --cpu --check -n 1 -p $p "$T/c.rvs"
      done
    done
  done
done

# the pipelines exactly as typed
M=$RVS_DATA/pmf20.mtx
pmf < "$M" | partition --alg pmf | spmv --cpu --check > "$T/o" 2> "$T/e"
expect_eq "pmf | partition | spmv" "${PIPESTATUS[*]}" "0 0 0"
pmf < "$M" | partition --alg pmf --cp 1,2,6 | convert --cpu-format ellr --gpu-format hyb | spmv --check > "$T/o" 2> "$T/e"
expect_eq "pmf | partition | convert | spmv" "${PIPESTATUS[*]}" "0 0 0 0"
expect_eq "parts in the table" "$(grep -Ec '^[123] +cpu' "$T/o")" 3
spmv_ok "spmv A.mtx" -- spmv "$M"

# RVS_TRACE_MEM: a line a step on stderr, each with its resident and peak memory and its time,
# the times never going back
RVS_TRACE_MEM=1 spmv --cpu -n 1 "$M" > /dev/null 2> "$T/trace"
expect_eq "trace: steps" "$(grep -c '^rvs: memory: ' "$T/trace")" "$(wc -l < "$T/trace" | tr -d ' ')"
expect_eq "trace: every line's form" \
  "$(grep -Evc '^rvs: memory: .+: resident [0-9.]+ MiB, peak [0-9.]+ MiB, at [0-9.]+ ms$' "$T/trace")" 0
expect_eq "trace: times in order" \
  "$(awk '{t = $NF == "ms" ? $(NF - 1) : -1; if (t < last) print "back"; last = t}' "$T/trace" | wc -l | tr -d ' ')" 0
[ "$(wc -l < "$T/trace")" -ge 3 ] && ok || bad "trace: $(wc -l < "$T/trace") lines, want a few steps"

# the table: a '#' header naming the columns, numeric columns, GFLOP/s = 2*nnz/time
spmv --cpu -n 3 "$M" > "$T/o" 2> "$T/e" && ok || bad "plain run"
grep -q '^# part device format rows nnz time_ms gflops gbs$' "$T/o" && ok || bad "header: $(cat "$T/o")"
awk '/^all/ { t = $6 / 1e3; g = 2 * $5 / t / 1e9; if ($5 != 117 || (g - $7) ^ 2 > (0.01 * g + 1e-4) ^ 2) exit 1; n++ }
     END { exit n == 1 ? 0 : 1 }' "$T/o" && ok || bad "gflops column: $(cat "$T/o")"

# x from a file, y to a file: A*e for the 20x20 example gives the row sums; y feeds back as x
printf '%%%%MatrixMarket matrix array real general\n20 1\n' > "$T/ones.mtx"
for i in $(seq 20); do echo 1 >> "$T/ones.mtx"; done
spmv --cpu --check -x "$T/ones.mtx" -y "$T/y.mtx" "$M" > /dev/null 2> "$T/e" && ok || bad "-x/-y: $(cat "$T/e")"
head -1 "$T/y.mtx" | grep -q '^%%MatrixMarket matrix array real general' && ok || bad "-y banner"
expect_eq "-y size line" "$(sed -n 2p "$T/y.mtx")" "20 1"
spmv --cpu --check -x "$T/y.mtx" -n 1 "$M" > /dev/null 2> "$T/e" && ok || bad "-y output as -x: $(cat "$T/e")"
spmv --cpu -x "$T/ones.mtx" -y - -n 1 "$M" > "$T/ystdout" 2> "$T/table"
cmp -s "$T/ystdout" "$T/y.mtx" && ok || bad "-y - differs from -y FILE"
grep -q '^total' "$T/table" && ok || bad "-y -: table not on stderr"
# same seed, same y; f32 of the same run agrees to f32 accuracy
spmv --cpu --seed 7 -y "$T/a.mtx" -n 1 "$M" > /dev/null && spmv --cpu --seed 7 -y "$T/b.mtx" -n 1 "$M" > /dev/null
cmp -s "$T/a.mtx" "$T/b.mtx" && ok || bad "--seed is not reproducible"
spmv --cpu --seed 8 -y "$T/c.mtx" -n 1 "$M" > /dev/null
cmp -s "$T/a.mtx" "$T/c.mtx" && bad "--seed has no effect" || ok
spmv_ok "--threads 1" -- spmv --cpu --threads 1 --check "$M"
spmv_ok "--tune on the CPU is accepted" -- spmv --cpu --tune threads-per-row=4,block=128 "$M"
spmv_ok "--tune takes build options too" -- spmv --cpu --tune csr-order=1,csr-values=1,dia-values=1,hyb-k=third "$M"

# --- errors: one line on stderr, nothing on stdout, sysexits status
expect_fail 66 "^spmv: $T/missing.mtx: " -- spmv --cpu "$T/missing.mtx"
pmf "$M" > "$T/full.rvs"
head -c $(($(stat -c %s "$T/full.rvs") / 2)) "$T/full.rvs" > "$T/cut.rvs"
expect_fail 65 "^spmv: $T/cut.rvs: .*(truncat|end chunk)" -- spmv --cpu "$T/cut.rvs"
expect_fail_in 65 "^spmv: stdin: .*(truncat|end chunk)" "$T/cut.rvs" -- spmv --cpu
cp "$T/full.rvs" "$T/flip.rvs"
printf '\x55' | dd of="$T/flip.rvs" bs=1 seek=$(($(stat -c %s "$T/full.rvs") / 2)) conv=notrunc 2>/dev/null
expect_fail 65 "^spmv: $T/flip.rvs: .*(CRC|checksum)" -- spmv --cpu "$T/flip.rvs"
# NaN and Inf values are read (rvs.5): --check wants the same NaN or Inf where the reference has one
expect_ok -- spmv --cpu --check "$RVS_DATA/nan.mtx"
expect_ok -- spmv --cpu --check "$RVS_DATA/inf.mtx"
expect_fail_in 65 "^spmv: stdin: empty input" /dev/null -- spmv --cpu
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' > "$T/x3.mtx"
expect_fail 65 "^spmv: $T/x3.mtx: x has 3 entries, matrix has 20 columns$" -- spmv --cpu -x "$T/x3.mtx" "$M"
expect_fail 66 "^spmv: $T/nox.mtx: " -- spmv --cpu -x "$T/nox.mtx" "$M"
expect_fail 64 "^spmv: --gpu-mem: '12Q' is not a size" -- spmv --cpu --gpu-mem 12Q "$M"
expect_fail 64 "^spmv: --gpu-mem: '0' is not a size" -- spmv --cpu --gpu-mem 0 "$M"

# --- memory: a matrix over 8M entries runs in row blocks of its rows (the hub given back as
# they are built), checked; with --baseline's need of the hub (GPU only) nothing would split
rvsgen stencil7 110 > "$T/s110.rvs"
spmv --cpu --plan -f ellr "$T/s110.rvs" > "$T/plan" 2> "$T/err" && ok || bad "plan of s110: $(cat "$T/err")"
grep -q '^# plan: .*[0-9] row blocks' "$T/plan" && ok || bad "no row blocks in $(head -3 "$T/plan")"
expect_eq "row blocks cover the rows" "$(awk '!/^#/ { n += $8 } END { print n }' "$T/plan")" 1331000
expect_eq "row blocks in order" "$(awk '!/^#/ { split($2, a, /[:-]/); if (a[2] != next1) bad = 1; next1 = a[3] + 1 }
  END { print bad + 0 }' next1=1 "$T/plan")" 0
grep -q ' host$' "$T/plan" && ok || bad "memory column: $(sed -n 3,4p "$T/plan")"
spmv_ok "row blocks, checked" -- spmv --cpu -f ellr --check -n 2 "$T/s110.rvs"
spmv_ok "row blocks f32, checked" -- spmv --cpu -f pellr -p f32 --check -n 2 "$T/s110.rvs"
rm -f "$T/s110.rvs"
expect_fail 65 "x has 3 entries" -- spmv --cpu -x "$T/x3.mtx" -y "$T/never.mtx" "$M"
[ -e "$T/never.mtx" ] && bad "-y left a file after failing" || ok
expect_fail 64 "^spmv: .*--bogus" -- spmv --bogus "$M"
expect_fail 64 "^spmv: --precision" -- spmv --precision f16 "$M"
expect_fail 64 "^spmv: .*--iters" -- spmv --iters 0 "$M"
expect_fail 64 "^spmv: .*--threads" -- spmv --threads x "$M"
expect_fail 64 "^spmv: --tune" -- spmv --tune warp=2 "$M"
expect_fail 64 "^spmv: --tune" -- spmv --tune block "$M"
expect_fail 64 "^spmv: --tune: csr-values 2 is not 0 or 1" -- spmv --tune csr-values=2 "$M"
expect_fail 64 "^spmv: --tune: dia-values 2 is not 0 or 1" -- spmv --tune dia-values=2 "$M"
expect_fail 64 "^spmv: --baseline" -- spmv --cpu --baseline "$M"
expect_fail 64 "^spmv: one input" -- spmv "$M" "$M"
if [ "$(spmv --gpu "$M" > /dev/null 2>&1; echo $?)" = 69 ]; then
  expect_fail 69 "^spmv: --gpu needs a GPU" -- spmv --gpu "$M"
  expect_fail 69 "^spmv: --hybrid needs a GPU" -- spmv --hybrid "$M"
fi
spmv --help > "$T/h" 2> "$T/e" && [ -s "$T/h" ] && [ ! -s "$T/e" ] && ok || bad "--help"
grep -q -- "--precision" "$T/h" && ok || bad "--help lists options"
spmv --version | grep -q '^spmv (rvskit) ' && ok || bad "--version"

# --- every shared matrix: the .mtx checked in f64 (f32 for every fourth); every fourth matrix
# also through a pipeline, the algorithm, precision and formats rotating so that every format
# is covered several times
if have_matrices; then
  i=0
  while IFS=$'\t' read -r name rows cols nnz field rest; do
    [ "$name" = name ] && continue
    [ "$field" = complex ] && continue # refused by design (see mm_bad)
    M=$RVS_MATRICES/$name.mtx
    [ -f "$M" ] || continue
    i=$((i + 1))
    spmv_ok "$name f64" -- spmv --cpu --check -n 1 "$M"
    [ $((i % 4)) = 1 ] && spmv_ok "$name f32" -- spmv --cpu --check -n 1 -p f32 "$M"
    [ $((i % 4)) = 0 ] || continue
    j=$((i / 4))
    set -- $FORMATS; shift $((j % NFMT)); cf=$1
    set -- $FORMATS; shift $(((j * 7 + 3) % NFMT)); gf=$1
    set -- rows nnz pmf diag; shift $((j % 4)); alg=$1
    p=f64; [ $((j % 2)) = 0 ] && p=f32
    pmf "$M" | partition --alg $alg --cp 1,2,6 > "$T/part.rvs" 2> "$T/e" || { bad "$name: pmf | partition --alg $alg: $(cat "$T/e")"; continue; }
    convert_or_refused "$cf/$gf" "$T/c.rvs" --cpu-format $cf --gpu-format $gf || continue
    spmv_ok "$name $alg cpu:$cf gpu:$gf $p" -- spmv --cpu --check -n 1 -p $p "$T/c.rvs"
  done < "$RVS_MATRICES/INDEX.tsv"
  echo "$i shared matrices"
fi
finish
