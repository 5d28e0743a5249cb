#!/usr/bin/env bash
# auto_spmv.sh - what auto costs and gains on the user's stopwatch, against `--format csr`, the
# best fixed format and cuSPARSE, in one run on a GPU machine (DEVICE=cpu: the first y and peak
# memory on the CPU cores alone, the GPU columns '-').
#   bench/auto_spmv.sh BUILD_DIR MATRICES_DIR OUT_DIR
# Inputs, in this order: the engine suite (7- and 27-point stencils 100^3, R-MAT 20, replicas of
# 20M entries of memplus, bcsstk24, email-Enron, wiki-Vote, p2p-Gnutella04, ca-CondMat), then a
# replica of NNZ_REP [4M] entries of every shared matrix that is square, real or pattern, with at
# least 10^4 entries (INDEX.tsv: the rule, not a hand-picked list). PRECISIONS [f64 f32]: the
# suite in each, then the replicas in each in turn. DEADLINE [540] s: runs not started by then
# are listed as not run. RESUME=1: a second call on the same machine goes on where an earlier
# one stopped, keeping OUT_DIR's table and running only the runs it lacks.
# Per input and precision:
#   first_auto_s, first_csr_s, first_x: wall time of a fresh `spmv --gpu -n 1` (no trial cache:
#     reading, deciding, building, uploading, one call) with auto and with --format csr, and
#     their ratio, both after the input was read once and synced (its pages cached and clean for
#     both); rss_auto, rss_csr (MiB) and rss_x: their peak resident memory;
#   decide_ms, decide_calls: what deciding cost (spmv --json), and in calls of its plan;
#   cus_tN, auto_tN (N = 1, 10, 100, 1000, 10000): ms from a CSR in host memory to the N-th
#     product on device vectors, setup included (bench_calls: cuSPARSE ALG1 as a user calls it,
#     rvskit's SpMV operator); n_le: for how many of the five N auto's total is at most cuSPARSE's;
#   auto_ms, best_ms, cus_ms: per call after 10000 calls (the median of the last 100) of auto, of
#     the best fixed format (the fastest kernel of bench_gpu_spmv, run through the operator), of
#     cuSPARSE; auto/best, auto_x_cus (cus_ms / auto_ms: above 1 beats cuSPARSE);
#   auto_fmt how switches: what auto ran at the end, how it got there, switches between calls.
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}
W=${RVS_BENCH_WORK:-/tmp/rvs-auto-bench}
NNZ_REP=${NNZ_REP:-4000000}
PRECS=${PRECISIONS:-f64 f32}
DEV=${DEVICE:-gpu}
mkdir -p "$O" "$W"
export PATH="$B:$PATH"
T=$O/auto_spmv.txt L=$O/auto_spmv.log
[ "$DEV" = cpu ] && T=$O/auto_spmv_cpu.txt L=$O/auto_spmv_cpu.log
TIME=/usr/bin/time; [ -x $TIME ] || TIME=
PY=$(command -v python3 || true)
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ "$DEV" = cpu ] && dev="$(nproc) CPU threads"
file_of() { if [ -e "$M/$1.mtx" ]; then echo "$M/$1.mtx"; else echo "$M/$1.mtx.gz"; fi; }
suite="stencil7_100:stencil7,100 stencil27_100:stencil27,100 rmat20:rmat,20,16"
for r in memplus bcsstk24 email-Enron wiki-Vote p2p-Gnutella04 ca-CondMat; do
  suite="$suite ${r}_rep20M:replica,$(file_of $r),20000000"
done
reps=""
if [ -s "$M/INDEX.tsv" ]; then
  for n in $(awk -F'\t' 'NR > 1 && $2 == $3 && $4 >= 10000 && $5 != "complex" { print $1 }' "$M/INDEX.tsv"); do
    reps="$reps ${n}_rep:replica,$(file_of "$n"),$NNZ_REP"
  done
fi
# the runs, in order: the suite in every precision, then the replicas in each precision in turn
runs=""
for spec in $suite; do for vt in $PRECS; do runs="$runs $vt/$spec"; done; done
for vt in $PRECS; do for spec in $reps; do runs="$runs $vt/$spec"; done; done
formats="csr,csr@csr-kernel=row-block,csr@threads-per-row=4+csr-order=1,csr@csr-kernel=nnz-split+csr-order=1"
formats="$formats,csr@csr-order=1,coo,ell,ellr,ellr@threads-per-row=4,pellr,biell,jad,hyb,hyb@hyb-k=third,hyb-dia"
formats="$formats,dia,hcc,hcc@hcc-wi=256"
if [ "${RESUME:-0}" = 1 ] && [ -s "$T" ]; then
  done_runs=$(awk '!/^#/ { print $2 "/" $1 }' "$T" | tr '\n' ' ')
  grep -v ': not run, the run had used\|^# done in\|^# targets over' "$T" > "$T.keep"; mv "$T.keep" "$T"
  echo "# resumed $(date -u +%Y-%m-%dT%H:%MZ); tree $(git rev-parse --short HEAD 2>/dev/null)" >> "$T"
else
done_runs=""
{
  echo "# auto against --format csr, the best fixed format and cuSPARSE  $(date -u +%Y-%m-%dT%H:%MZ)  device: ${dev:-none}"
  echo "# command: bench/auto_spmv.sh $*  (DEVICE=$DEV NNZ_REP=$NNZ_REP PRECISIONS=$PRECS); tree $(git rev-parse --short HEAD 2>/dev/null)"
  echo "# matrix vt nnz first_auto_s first_csr_s first_x rss_auto rss_csr rss_x decide_ms decide_calls cus_t1 cus_t10 cus_t100 cus_t1000 cus_t10000 auto_t1 auto_t10 auto_t100 auto_t1000 auto_t10000 n_le auto_ms best_ms cus_ms auto/best auto_x_cus best_fmt auto_fmt how switches kind"
} > "$T"
: > "$L"
fi
# a run's wall time in seconds to the microsecond (time -v's has 10 ms steps, a tenth of a small run)
timed() { local t0=$EPOCHREALTIME; "$@"; local rc=$?; awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }' > "$W/wall"; return $rc; }
rss() { awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$1"; }
. "$(dirname "$0")/inputs.sh"
start=$(date +%s)
for run in $runs; do
    vt=${run%%/*}; spec=${run#*/}
    name=${spec%%:*}
    case " $done_runs " in *" $vt/$name "*) continue ;; esac
    base=${name%_rep*}
    kind=$(awk -F'\t' -v n="$base" '$1 == n { print $10 }' "$M/INDEX.tsv" 2>/dev/null)
    case $name in stencil*) kind=regular ;; rmat*) kind=scale-free ;; esac
    A=$(input_path "$name" "${spec#*:}" "$vt") || continue
    rm -rf "$W/cache"
    cat "$A" > /dev/null; sync # the input just made: both sides read it cached, with no writeback under way
    XDG_CACHE_HOME=$W/cache timed $TIME -v -o "$W/t_auto" spmv --$DEV -n 1 -p $vt --json "$A" > "$W/auto.json" 2>> "$L"
    fa=$(cat "$W/wall")
    timed $TIME -v -o "$W/t_csr" spmv --$DEV -n 1 -p $vt --format csr --no-cache "$A" > /dev/null 2>> "$L"
    fc=$(cat "$W/wall"); ra=$(rss "$W/t_auto"); rc=$(rss "$W/t_csr")
    read -r dms dcalls < <([ -n "$PY" ] && "$PY" -c 'import json,sys; p=json.load(sys.stdin)["plan"]; print("%.2f %.1f" % (p["decide_ms"], p["decide_calls"]))' < "$W/auto.json" 2>/dev/null || echo "- -")
    if [ "$DEV" = cpu ]; then # the first y and memory alone: no cuSPARSE, no operator on the GPU
      "$PY" - "$W/auto.json" "$name" $vt "$fa" "$fc" "$ra" "$rc" "$dms" "$dcalls" "${kind:--}" >> "$T" << 'PY'
import json, sys
a = sys.argv[1:]
d = json.load(open(a[0]))
fa, fc, ra, rc = (float(v) for v in a[3:7])
it = d["items"][0] if d["items"] else {}
print(a[1], a[2], d["nnz"], a[3], a[4], "%.3f" % (fa / fc if fc > 0 else 0), a[5], a[6], "%.3f" % (ra / rc if rc > 0 else 0),
      a[7], a[8], " ".join("-" * 17), "%s@%s" % (it.get("format", "-"), it.get("tunables", "-")), it.get("how", "-"),
      d["plan"]["tune_switches"], a[9])
PY
      continue
    fi
    bench_gpu_spmv --iters 10 --precision $vt --formats "$formats" --label "$name" "$A" > "$W/fmt.txt" 2>> "$L"
    best=$(awk '$3 !~ /^cusparse/ && $12 == "ok" && $6 != "-" { print $3, $6 }' "$W/fmt.txt" | sort -g -k2 | head -1 | cut -d' ' -f1)
    # bench_gpu_spmv joins a label's knobs with '+', the options parser with ','
    bench_calls --precision $vt --fixed "$(echo "${best:-csr}" | tr + ,)" --label "$name" "$A" > "$W/calls.txt" 2>> "$L"
    cat "$W/fmt.txt" "$W/calls.txt" >> "$L"
    awk -v name="$name" -v vt="$vt" -v kind="${kind:--}" -v fa="$fa" -v fc="$fc" -v ra="$ra" -v rc="$rc" -v dms="$dms" -v dc="$dcalls" \
        -v best="${best:-csr}" '
      $3 == "cusparse" { for (k = 0; k < 5; k++) c[k] = $(5 + k); cus = $10 }
      $3 == "auto" { for (k = 0; k < 5; k++) a[k] = $(5 + k); am = $10; af = $11; how = $12; sw = $13 }
      $3 == "fixed" { bm = $10 }
      END {
        le = 0; for (k = 0; k < 5; k++) le += (a[k] != "-" && c[k] != "-" && a[k] + 0 <= c[k] + 0)
        printf "%s %s %s %s %s %.3f %s %s %.3f %s %s", name, vt, nnz, fa, fc, (fc > 0 ? fa / fc : 0), ra, rc, (rc > 0 ? ra / rc : 0), dms, dc
        for (k = 0; k < 5; k++) printf " %s", c[k]; for (k = 0; k < 5; k++) printf " %s", a[k]
        printf " %d %s %s %s %.3f %.3f %s %s %s %s %s\n", le, am, bm, cus, (bm > 0 ? am / bm : 0), (am > 0 ? cus / am : 0), best, af, how, sw, kind
      }' nnz="$(awk '$3 == "csr" { print $5; exit }' "$W/fmt.txt")" "$W/calls.txt" >> "$T"
done
echo "# done in $(($(date +%s) - start)) s" >> "$T"
# the targets: counts over the inputs that ran
[ "$DEV" = cpu ] && awk '!/^#/ && NF > 20 { n++; f += ($6 <= 1.2); r += ($9 <= 1.1); if ($6 > w) { w = $6; wn = $1 " " $2 } }
  END { printf "# targets over %d runs on the CPU: first y <= 1.2x csr on %d (largest %.3f, %s); peak RSS <= 1.1x csr on %d\n", n, f, w, wn, r }' "$T" >> "$T"
[ "$DEV" = cpu ] || awk '!/^#/ && NF > 20 { n++; f += ($6 <= 1.2); r += ($9 <= 1.1); le += ($22 == 5); b += ($26 > 0 && $26 <= 1.05); c += ($27 >= 1.0)
    if ($NF == "scale-free" && $27 > 0) { sf++; lg += log($27) } }
  END { printf "# targets over %d runs: first y <= 1.2x csr on %d; peak RSS <= 1.1x csr on %d; N calls <= cuSPARSE for every N on %d; per call within 5%% of the best fixed on %d; per call >= 1.0x cuSPARSE on %d; geomean per call against cuSPARSE over %d scale-free runs %.3f\n", n, f, r, le, b, c, sf, sf ? exp(lg / sf) : 0 }' "$T" >> "$T"
tail -3 "$T"
