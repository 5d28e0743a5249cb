# cli_seams.sh - the seams the five programs share (issue 13, items 7 and 9): one meaning per
# short option, distinct messages for an unknown option and a missing value, --threads where work
# is parallel, --json reports that parse, rvsinfo's view of the 'auto' chunk, calibration
# without a GPU, spgemm --digits.
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx

# 1. a short option means one long option in every program that has it (from --help)
for p in pmf partition convert spmv spgemm rvsinfo rvsgen; do
  "$p" --help | sed -n 's/^  -\([A-Za-z]\), --\([a-z-]*\).*/\1 \2/p' | sed "s/^/$p /"
done >"$T/shorts"
[ -s "$T/shorts" ] && ok || bad "no short options found in --help"
awk '{ if (($2 in m) && m[$2] != $3) printf "-%s is --%s (%s) and --%s (%s)\n", $2, m[$2], w[$2], $3, $1;
       else if (!($2 in m)) { m[$2] = $3; w[$2] = $1 } }' "$T/shorts" >"$T/clash"
[ ! -s "$T/clash" ] && ok || bad "short options clash: $(cat "$T/clash")"
for want in "t threads" "c check" "b baseline" "p precision" "r report" "o output"; do
  grep -q " ${want}$" "$T/shorts" && ok || bad "no program has -${want% *} for --${want#* }"
done

# 2. unknown option, missing value, a value given to a flag: three messages, status 64
for pv in pmf:o:output partition:a:alg convert:p:precision spmv:n:iters spgemm:p:precision rvsinfo::; do
  p=${pv%%:*}; v=${pv#*:}; s=${v%%:*}; l=${v#*:}
  expect_fail 64 "^$p: unknown option '--no-such' \(try '$p --help'\)$" -- "$p" --no-such
  expect_fail 64 "^$p: unknown option '-Z'" -- "$p" -Z
  expect_fail 64 "^$p: option '--help' takes no value" -- "$p" --help=1
  [ -n "$s" ] || continue
  expect_fail 64 "^$p: option '-$s' needs a value" -- "$p" "-$s"
  expect_fail 64 "^$p: option '--$l' needs a value" -- "$p" "--$l"
done

# 3. --threads (and -t) wherever work is parallel; a bad count is a usage error
for p in pmf partition convert spmv spgemm; do
  expect_fail 64 "^$p: --threads: '0' is not an integer" -- "$p" --threads 0 "$M"
  expect_fail 64 "^$p: --threads: 'x' is not an integer" -- "$p" -t x "$M"
done
expect_eq "pmf -t 1 = pmf -t 2" "$(pmf -t 1 --json "$M")" "$(pmf -t 2 --json "$M")"
expect_eq "partition -t 1" "$(partition -t 1 --alg nnz --cp 1,2 --json "$M")" "$(partition --alg nnz --cp 1,2 --json "$M")"
spgemm --cpu -t 1 --check -o "$T/c1.mtx" "$M" >/dev/null && spgemm --cpu -t 2 --check -o "$T/c2.mtx" "$M" >/dev/null &&
  cmp -s "$T/c1.mtx" "$T/c2.mtx" && ok || bad "spgemm -t 1 and -t 2 differ"

# 4. --json on partition, convert, spmv, spgemm: one line, nothing else on stdout, fields right
partition --alg pmf --cp 1,2,6 --json "$M" >"$T/pj" </dev/null
expect_eq "partition --json lines" "$(wc -l <"$T/pj")" 1
partition --alg pmf --cp 1,2,6 --json -o "$T/p.rvs" "$M" >"$T/pj2" </dev/null
cmp -s "$T/pj" "$T/pj2" && [ -s "$T/p.rvs" ] && ok || bad "partition --json -o: report and stream"
expect_fail 64 "exclude each other" -- partition --report --json "$M"
if [ -n "$PY" ]; then
  expect_eq "partition json program" "$(json_get program <"$T/pj")" partition
  expect_eq "partition json alg" "$(json_get alg <"$T/pj")" pmf
  expect_eq "partition json parts" "$(json_get parts <"$T/pj")" 3
  expect_eq "partition json part nnz" "$(json_get part.0.nnz <"$T/pj") $(json_get part.1.nnz <"$T/pj") $(json_get part.2.nnz <"$T/pj")" "14 27 76"
  expect_eq "partition json device" "$(json_get part.2.device <"$T/pj")" gpu
  expect_eq "partition json mean density" "$(json_get mean_density <"$T/pj" | cut -c1-6)" 0.7548
  expect_eq "partition json padded" "$(json_get padded <"$T/pj")" 38
fi
pmf "$M" </dev/null | partition --alg pmf --cp 1,2,6 | convert --gpu-format ellr --cpu-format csr --json >"$T/cj"
expect_eq "convert --json lines" "$(wc -l <"$T/cj")" 1
if [ -n "$PY" ]; then
  expect_eq "convert json program" "$(json_get program <"$T/cj")" convert
  expect_eq "convert json blocks" "$(json_get blocks.0.format <"$T/cj") $(json_get blocks.1.format <"$T/cj") $(json_get blocks.2.format <"$T/cj")" "csr csr ellr"
  expect_eq "convert json nnz" "$(json_get blocks.2.nnz <"$T/cj")" 76
  expect_eq "convert json csr ratio" "$(json_get blocks.0.bytes_per_csr_bytes <"$T/cj")" 1
  expect_eq "convert json csr n_iter" "$(json_get blocks.0.n_iter <"$T/cj")" None
  expect_eq "convert json auto" "$(json_get auto <"$T/cj")" "[]"
  # the text report's numbers are the JSON's
  pmf "$M" </dev/null | partition --alg pmf --cp 1,2,6 | convert --gpu-format ellr --cpu-format csr --report >"$T/ct"
  expect_eq "convert report = json bytes" "$(awk '$1 == 3 { print $6 }' "$T/ct")" "$(json_get blocks.2.bytes <"$T/cj")"
fi
expect_fail 64 "no --json" -- convert --to mtx --json "$M"
expect_fail 64 "exclude each other" -- convert --to csr --report --json "$M"
spmv --cpu --check -n 2 --json "$M" >"$T/sj" 2>"$T/se" </dev/null || bad "spmv --json: $(cat "$T/se")"
expect_eq "spmv --json lines" "$(wc -l <"$T/sj")" 1
if [ -n "$PY" ]; then
  expect_eq "spmv json program" "$(json_get program <"$T/sj")" spmv
  expect_eq "spmv json mode" "$(json_get mode <"$T/sj")" cpu
  expect_eq "spmv json vtype" "$(json_get vtype <"$T/sj")" f64
  expect_eq "spmv json check" "$(json_get check.ok <"$T/sj")" true
  expect_eq "spmv json iters" "$(json_get iters <"$T/sj")" 2
  expect_eq "spmv json item rows" "$(json_get items.0.rows <"$T/sj")" 20
  "$PY" -c 'import json, sys; d = json.load(sys.stdin); t = d["total"]
sys.exit(0 if t["time_ms"] > 0 and t["gflops"] > 0 and t["frac_copy_bw"] is None and d["gpu"] is None else 1)' <"$T/sj" &&
    ok || bad "spmv json total: $(cat "$T/sj")"
fi
spmv --cpu -n 1 --json -y - "$M" >"$T/y" 2>"$T/sj2" </dev/null
head -1 "$T/y" | grep -q "^%%MatrixMarket matrix array real general" && [ "$(wc -l <"$T/sj2")" = 1 ] && ok ||
  bad "spmv --json -y -: y on stdout, the report on stderr"
spgemm --cpu --check --json "$M" >"$T/gj" 2>"$T/ge" </dev/null || bad "spgemm --json: $(cat "$T/ge")"
expect_eq "spgemm --json lines (no C on stdout)" "$(wc -l <"$T/gj")" 1
if [ -n "$PY" ]; then
  expect_eq "spgemm json program" "$(json_get program <"$T/gj")" spgemm
  expect_eq "spgemm json device" "$(json_get device <"$T/gj")" cpu
  expect_eq "spgemm json A" "$(json_get A.rows <"$T/gj") $(json_get A.nnz <"$T/gj")" "20 117"
  spgemm --cpu --check "$M" -o "$T/c.rvs" >"$T/gt" </dev/null
  expect_eq "spgemm json products = text" "$(json_get products <"$T/gj")" "$(awk '$1 == "products" { print $2 }' "$T/gt")"
  expect_eq "spgemm json nnz_c = text" "$(json_get nnz_c <"$T/gj")" "$(awk '$1 == "nnz_c" { print $2 }' "$T/gt")"
  expect_eq "spgemm json check" "$(json_get check.tolerance <"$T/gj")" 1e-10
fi

# 5. spgemm --digits: Matrix Market values with at most N significant digits
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 0.123456789\n1 2 1.987654321\n2 2 3.14159265358979\n' >"$T/d.mtx"
spgemm --cpu --digits 3 -o "$T/d3.mtx" "$T/d.mtx" >/dev/null </dev/null || bad "spgemm --digits 3"
expect_eq "spgemm --digits 3" "$(awk 'NR > 2 { print $3 }' "$T/d3.mtx" | tr '\n' ' ')" "0.0152 6.49 9.87 "
spgemm --cpu -o "$T/dx.mtx" "$T/d.mtx" >/dev/null </dev/null
if [ -n "$PY" ]; then
  "$PY" -c 'import sys; v = [float(l.split()[2]) for l in open(sys.argv[1]).readlines()[2:]]
a, b, c = 0.123456789, 1.987654321, 3.14159265358979
sys.exit(0 if v == [a * a, a * b + b * c, c * c] else 1)' "$T/dx.mtx" && ok || bad "spgemm without --digits: $(cat "$T/dx.mtx")"
fi
expect_fail 64 "digits" -- spgemm --cpu --digits 0 "$T/d.mtx"

# 6. rvsinfo shows the advisor's decisions of an 'auto' chunk (current, stale, malformed)
export XDG_CACHE_HOME="$T/cache"
pmf "$M" </dev/null | partition --alg nnz --cp 1,2:cpu | convert --cpu-format auto >"$T/a.rvs" 2>"$T/ae" ||
  bad "convert --cpu-format auto: $(cat "$T/ae")"
rvsinfo "$T/a.rvs" >"$T/ai" </dev/null || bad "rvsinfo on an auto stream: status $?"
grep -q "^auto *2 decisions, current, trials on the CPU$" "$T/ai" && ok || bad "rvsinfo auto line: $(grep '^auto' "$T/ai")"
awk '/^# part device vtype from candidate/ { on = 1; next } on && NF == 11' "$T/ai" >"$T/cands"
[ "$(awk '$11 == "yes"' "$T/cands" | wc -l)" = 2 ] && ok || bad "rvsinfo: one chosen candidate per part: $(cat "$T/cands")"
awk '$4 != "part" && $4 != "sample" && $4 != "cache" { bad = 1 } $8 !~ /^(ran|refused|pruned|failed)$/ { bad = 1 }
     END { exit bad }' "$T/cands" && ok || bad "rvsinfo candidate columns: $(head -3 "$T/cands")"
if [ -n "$PY" ]; then
  rvsinfo --json "$T/a.rvs" >"$T/aj" </dev/null
  expect_eq "rvsinfo json auto current" "$(json_get auto.current <"$T/aj")" true
  expect_eq "rvsinfo json auto parts" "$(json_get auto.decisions.0.part <"$T/aj") $(json_get auto.decisions.1.part <"$T/aj")" "1 2"
  chosen=$(json_get auto.decisions.1.chosen_index <"$T/aj")
  expect_eq "rvsinfo json chosen ran" "$(json_get auto.decisions.1.candidates.$chosen.status <"$T/aj")" ran
  expect_eq "rvsinfo json chosen name" "$(json_get auto.decisions.1.candidates.$chosen.format <"$T/aj")" \
    "$(json_get auto.decisions.1.chosen <"$T/aj")"
  expect_eq "rvsinfo json without auto" "$(rvsinfo --json "$T/p.rvs" </dev/null | json_get auto)" None
fi
# a new partition makes the chunk stale (passed on, ignored)
partition --alg rows --cp 1,1 <"$T/a.rvs" >"$T/stale.rvs"
rvsinfo "$T/stale.rvs" </dev/null | grep -q "^auto *2 decisions, stale" && ok || bad "rvsinfo: stale auto chunk"
# a malformed chunk (its record count raised, the CRC made right again): reported, exit 65
if [ -n "$PY" ]; then
  "$PY" - "$T/a.rvs" "$T/bad.rvs" <<'PYEOF'
import struct, sys
def crc32c(b):
    c = 0xffffffff
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 & -(c & 1))
    return c ^ 0xffffffff
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"auto")
n = struct.unpack_from("<Q", d, i + 4)[0]
struct.pack_into("<I", d, i + 12 + 4, 9)            # R: 9 records where the payload holds 2
struct.pack_into("<I", d, i + 12 + n, crc32c(bytes(d[i:i + 12 + n])))
open(sys.argv[2], "wb").write(d)
PYEOF
  rvsinfo "$T/bad.rvs" >"$T/bi" 2>"$T/be" </dev/null; st=$?
  expect_eq "rvsinfo malformed auto status" "$st" 65
  grep -q "^auto *MALFORMED: " "$T/bi" && ok || bad "rvsinfo: malformed auto not shown: $(grep auto "$T/bi")"
  grep -q "^rvsinfo: $T/bad.rvs: " "$T/be" && ok || bad "rvsinfo: malformed auto message: $(cat "$T/be")"
  expect_fail 65 "auto" -- spmv --cpu -n 1 "$T/bad.rvs"
fi

# 7. calibration without a GPU: refused (69), nothing recorded
if ! spmv --gpu -n 1 "$M" >/dev/null 2>&1; then
  RVS_CALIBRATION="$T/calib" expect_fail 69 "^partition: calibration: no GPU .*nothing recorded" -- partition --calibrate
  [ ! -e "$T/calib" ] && ok || bad "partition --calibrate without a GPU recorded $(cat "$T/calib")"
  printf 'gpu 0.000\ncpu 1\n' >"$T/calib0"
  RVS_CALIBRATION="$T/calib0" expect_fail 64 "no calibration recorded" -- partition --cp auto "$M"
fi
finish
