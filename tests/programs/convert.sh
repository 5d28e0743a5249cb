# convert.sh - convert: .mtx -> every format -> .mtx is exact; --report columns; GPU/CPU
# formats by device; bad input fails with the right status and an empty stdout.
. "$RVS_SRC/tests/lib/common.sh"

formats=$(convert --help | sed -n 's/^FORMAT is one of: \(.*\)\.$/\1/p' | tr ',' ' ')
[ -n "$formats" ] || { bad "convert --help lists no formats"; finish; }

# roundtrip MATRIX [OPTION...]: for every format, convert --to F | convert --to mtx equals
# convert --to mtx of the original (the same writer, so a byte comparison).
roundtrip() {
  local m=$1; shift
  convert "$@" --to mtx "$m" >"$T/ref.mtx" 2>"$T/err" || { bad "$m: convert --to mtx: $(cat "$T/err")"; return; }
  for f in $formats; do
    if convert "$@" --to "$f" --dia-max-ratio 1000000 -o "$T/f.rvs" "$m" 2>"$T/err" </dev/null &&
       convert --to mtx "$T/f.rvs" >"$T/got.mtx" 2>>"$T/err"; then
      if cmp -s "$T/ref.mtx" "$T/got.mtx"; then ok; else bad "$m $* --to $f: round trip differs"; fi
    else
      bad "$m $* --to $f: $(head -c 300 "$T/err")"
    fi
  done
}

# A 64 x 40 matrix whose row i (0-based) holds (i % 5) + 1 entries: ELL width 5.
awk 'BEGIN { n = 0; for (i = 0; i < 64; i++) n += i % 5 + 1;
  print "%%MatrixMarket matrix coordinate real general"; print 64, 40, n;
  for (i = 0; i < 64; i++) for (j = 0; j <= i % 5; j++) print i + 1, (i + 7 * j) % 40 + 1, i + j / 10 + 1 }' \
  >"$T/len.mtx"
nnz=190

roundtrip "$T/len.mtx"
roundtrip "$T/len.mtx" --precision f32

# --report: header columns, ELL padding and bytes, ratios consistent with CSR and COO layouts.
convert --to ell --report "$T/len.mtx" >"$T/rep" 2>"$T/err" </dev/null || bad "convert --report: $(cat "$T/err")"
expect_eq "report header" "$(grep -m1 '^# part' "$T/rep")" \
  "# part device format rows nnz bytes padded bytes/csr_bytes bytes/coo_bytes n_iter n_p"
line=$(grep -v '^#' "$T/rep")
expect_eq "ell report line" "$(echo "$line" | awk '{ print $1, $2, $3, $4, $5 }')" "all - ell 64 $nnz"
expect_eq "ell padded" "$(echo "$line" | awk '{ print $7 }')" "$((64 * 5 - nnz))"
expect_eq "ell bytes" "$(echo "$line" | awk '{ print $6 }')" "$((64 * 5 * 12))"
expect_eq "ell n_iter" "$(echo "$line" | awk '{ print $10 }')" "10"
expect_eq "ratios" "$(echo "$line" | awk -v n="$nnz" '{ c = 65 * 8 + n * 12; o = n * 16;
  print (sprintf("%.4f", $6 / c) == $8 && sprintf("%.4f", $6 / o) == $9) }')" "1"
convert --to csr --report "$T/len.mtx" </dev/null | grep -v '^#' >"$T/rep"
expect_eq "csr report" "$(awk '{ print $3, $6, $7, $8, $10, $11 }' "$T/rep")" \
  "csr $((65 * 8 + nnz * 12)) 0 1.0000 - -"
convert --to ellr --report "$T/len.mtx" </dev/null | grep -v '^#' >"$T/rep"
expect_eq "ellr n_p" "$(awk '{ print $11 }' "$T/rep")" "$((2 * nnz - 64))"
# every format reports: 11 columns, bytes > 0
for f in $formats; do
  convert --to "$f" --dia-max-ratio 1000000 --report "$T/len.mtx" </dev/null | grep -v '^#' >"$T/rep"
  expect_eq "$f report" "$(awk 'NF == 11 && $3 == "'"$f"'" && $6 > 0 { print "ok" }' "$T/rep")" "ok"
done

# --gpu-format/--cpu-format by the partition's devices: parts 1-2 GPU, 3-4 CPU.
partition --alg pmf --cp 75,75,1,1 "$T/len.mtx" >"$T/part.rvs" </dev/null 2>"$T/err" || bad "partition: $(cat "$T/err")"
convert --gpu-format ellr --cpu-format csr -o "$T/pc.rvs" "$T/part.rvs" >/dev/null </dev/null 2>"$T/err" \
  || bad "convert --gpu-format: $(cat "$T/err")"
convert --report "$T/pc.rvs" </dev/null | grep -v '^#' >"$T/rep"
expect_eq "device formats" "$(awk '{ printf "%s %s %s;", $1, $2, $3 }' "$T/rep")" \
  "1 gpu ellr;2 gpu ellr;3 cpu csr;4 cpu csr;"
convert --to mtx "$T/pc.rvs" >"$T/got.mtx" </dev/null
convert --to mtx "$T/len.mtx" >"$T/ref.mtx" </dev/null
if cmp -s "$T/ref.mtx" "$T/got.mtx"; then ok; else bad "partitioned ellr/csr round trip differs"; fi
convert --gpu-format pellr "$T/part.rvs" </dev/null | convert --report | grep -v '^#' >"$T/rep"
expect_eq "gpu format only" "$(awk '{ printf "%s %s %s;", $1, $2, $3 }' "$T/rep")" \
  "1 gpu pellr;2 gpu pellr;3 cpu none;4 cpu none;"
convert --cpu-format coo "$T/len.mtx" </dev/null | convert --report | grep -v '^#' >"$T/rep"
expect_eq "no partition: cpu format" "$(awk '{ print $1, $3 }' "$T/rep")" "all coo"
convert --gpu-format jad --cpu-format coo "$T/len.mtx" </dev/null | convert --report | grep -v '^#' >"$T/rep"
expect_eq "no partition: gpu format first" "$(awk '{ print $1, $3 }' "$T/rep")" "all jad"
# every partition algorithm, mixed formats, round trip
for alg in rows nnz pmf diag; do
  partition --alg "$alg" --cp 75,75,1,1 "$T/len.mtx" </dev/null 2>/dev/null \
    | convert --gpu-format hyb --cpu-format jad | convert --to mtx >"$T/got.mtx" 2>"$T/err"
  if cmp -s "$T/ref.mtx" "$T/got.mtx"; then ok; else bad "--alg $alg hyb/jad round trip differs ($(cat "$T/err"))"; fi
done

# Bad input: status, one message, nothing on stdout.
expect_fail 64 "unknown format 'nosuch' \(one of csr,coo" -- convert --to nosuch "$T/len.mtx"
expect_fail 64 "unknown format" -- convert --gpu-format nosuch "$T/len.mtx"
expect_fail 64 "exclude" -- convert --to ell --cpu-format csr "$T/len.mtx"
expect_fail 64 "hyb-k" -- convert --to hyb --hyb-k many "$T/len.mtx"
expect_fail 64 "precision" -- convert --to ell --precision f16 "$T/len.mtx"
expect_fail 66 "^convert: $T/missing.mtx: " -- convert --to ell "$T/missing.mtx"
convert --to ell "$T/len.mtx" >"$T/s.rvs" </dev/null
head -c $(($(wc -c <"$T/s.rvs") - 20)) "$T/s.rvs" >"$T/trunc.rvs"
expect_fail 65 "^convert: $T/trunc.rvs: " -- convert --to csr "$T/trunc.rvs"
expect_fail_in 65 "^convert: stdin: " "$T/trunc.rvs" -- convert --to csr
expect_fail 65 "^convert: $T/trunc.rvs: " -- convert --to mtx "$T/trunc.rvs"
# an anti-diagonal matrix: n diagonals for n entries, far over DIA's default limit
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print 200, 200, 200;
  for (i = 1; i <= 200; i++) print i, 201 - i, i }' >"$T/anti.mtx"
expect_fail 65 "dia" -- convert --to dia "$T/anti.mtx"
expect_fail 65 "dia" -- convert --to dia --dia-max-ratio 2 "$T/len.mtx"
expect_fail 65 "dia" -- convert --to dia -o "$T/never.rvs" "$T/anti.mtx"
if [ -e "$T/never.rvs" ] || ls "$T"/never.rvs.tmp.* >/dev/null 2>&1; then bad "failed convert left a file"; else ok; fi
# one row of 1000 among 20000 rows of one: ELL and ELLR refuse the padding, PELLR is fine
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 20000, 1000, 20999;
  for (i = 1; i <= 20000; i++) if (i == 8) { for (j = 1; j <= 1000; j++) print i, j } else print i, 1 }' >"$T/skew.mtx"
expect_fail 65 "^convert: $T/skew.mtx: ell: the longest row \\(1000\\) pads .*use pellr" -- convert --to ell "$T/skew.mtx"
expect_fail 65 "^convert: $T/skew.mtx: ellr: the longest row" -- convert --to ellr "$T/skew.mtx"
expect_ok -- convert --to pellr -o "$T/skew.rvs" "$T/skew.mtx"
expect_ok -- convert --to ell --ell-max-ratio 1000 -o "$T/skew.rvs" "$T/skew.mtx"
partition --alg rows --cp 75,1 "$T/anti.mtx" >"$T/anti.rvs" </dev/null
expect_fail 65 "^convert: $T/anti.rvs: part 1: dia" -- convert --gpu-format dia "$T/anti.rvs"
# A later part refused: every part is asked before the first byte goes out (blocks are
# written as they are built), so stdout stays empty; parts that are runs and parts copied.
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 40000, 1000, 40999;
  for (i = 1; i <= 40000; i++) if (i == 39992) { for (j = 1; j <= 1000; j++) print i, j } else print i, 1 }' >"$T/skew2.mtx"
partition --alg rows --cp 1,1 "$T/skew2.mtx" >"$T/skew2.rvs" </dev/null
expect_fail 65 "^convert: $T/skew2.rvs: part 2: ellr: the longest row" -- convert --to ellr "$T/skew2.rvs"
expect_fail_in 65 "^convert: stdin: part 2: ell: the longest row" "$T/skew2.rvs" -- convert --to ell
# 64-bit columns: no format but the hub holds them, CSR included (refused before the head)
printf '%%%%MatrixMarket matrix coordinate real general\n3 3000000000 2\n1 1 1.0\n3 2999999999 2.0\n' >"$T/wide.mtx"
expect_fail 65 "^convert: $T/wide.mtx: 3000000000 columns need 64-bit column indices, which format csr" -- convert --to csr "$T/wide.mtx"
expect_fail 65 "which format ellr does not hold" -- convert --to ellr "$T/wide.mtx"
partition --alg pmf --cp 1,1 "$T/skew2.mtx" >"$T/skew3.rvs" </dev/null
expect_fail 65 "^convert: $T/skew3.rvs: part 2: ellr: the longest row" -- convert --to ellr "$T/skew3.rvs"

# Blocks written as soon as they are built, ELL, ELLR and BiELL giving the hub's pages back as they
# copy them (row blocks of 4M entries), make the same stream as blocks held to the end (what
# -r with -o does, for the report): the whole matrix, runs of rows, copied parts; part row
# counts off the warp multiple.
rvsgen stencil7 100 >"$T/s100.rvs" </dev/null
partition --alg rows --cp 3,1 "$T/s100.rvs" >"$T/s100r.rvs" </dev/null
partition --alg pmf --cp 3,1 "$T/s100.rvs" >"$T/s100p.rvs" </dev/null
for m in s100 s100r s100p; do
  for f in ellr ell pellr biell csr; do
    convert --to "$f" "$T/$m.rvs" >"$T/a.rvs" 2>"$T/err" </dev/null &&
      convert --to "$f" -r -o "$T/b.rvs" "$T/$m.rvs" >/dev/null 2>>"$T/err" </dev/null ||
      { bad "$m --to $f: $(head -c 300 "$T/err")"; continue; }
    if cmp -s "$T/a.rvs" "$T/b.rvs"; then ok; else bad "$m --to $f: streamed and held streams differ"; fi
  done
done
# --precision alone rebuilds every block in the format it had (a part without a format option
# keeps its own format), streamed as the others
convert --to mtx --precision f32 "$T/s100p.rvs" >"$T/ref.mtx" </dev/null
convert --gpu-format ellr --cpu-format jad "$T/s100p.rvs" </dev/null | convert --precision f32 >"$T/a.rvs"
expect_eq "--precision keeps the blocks' formats" "$(rvsinfo "$T/a.rvs" | grep -c FMTB)" 2
convert --to mtx "$T/a.rvs" >"$T/got.mtx" </dev/null
if cmp -s "$T/ref.mtx" "$T/got.mtx"; then ok; else bad "--precision f32 of a stream with blocks differs"; fi
rm -f "$T"/s100*.rvs "$T/a.rvs" "$T/b.rvs"

# Real matrices: the shared ones (a few) and the data/ ones.
mats=""
if have_matrices; then
  for m in west0067 lp_afiro karate Harvard500 bcsstk24; do
    [ -f "$RVS_MATRICES/$m.mtx" ] && mats="$mats $RVS_MATRICES/$m.mtx"
  done
fi
[ -d "${RVS_DATA:-}" ] && mats="$mats $(find "$RVS_DATA" -path '*/bad' -prune -o -name '*.mtx' -print 2>/dev/null | sort | tr '\n' ' ')"
for m in $mats; do roundtrip "$m"; done
[ -n "$mats" ] && roundtrip "$(echo $mats | awk '{ print $1 }')" --precision f32

if ! have_matrices && [ "$fails" -eq 0 ]; then
  echo "$checks checks passed; shared matrices absent (RVS_MATRICES): skipped" >&2
  exit 77
fi
finish
