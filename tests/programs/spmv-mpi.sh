# spmv-mpi.sh GROUP [gpu] - spmv-mpi over loopback (mpirun --oversubscribe), checked against CSparse
# and against serial spmv's y. Groups (each its own ctest test, a few seconds):
#   ranks   1, 2, 3 and 4 ranks on stencils and R-MAT with Algorithms 1-3, f32, standard input
#           through a pipeline, a pipeline into a named pipe, x from a file, the exchange against the
#           partition's cut
#   shapes  a rank without rows, more parts than ranks, bound parts, rectangular matrices,
#           a Matrix Market file without partition, the partition chosen by volume and --alg
#   errors  one line from the rank that saw it, nothing on stdout, the status, no hang
#   kill    a rank killed while the others compute: the job ends, with an error
#   check   the check on every rank (test_mpi_check: passing, and failing with its row) on 2 and 3
#           ranks, and the exchange's choice on CPU ranks (test_mpi_peer)
#   exchange  --exchange: its parsing, peer refused on CPU ranks, auto falling back to host and
#           saying why in the report
#   peer    (with gpu) --exchange peer on one GPU shared by 2 and 3 ranks: test_mpi_peer gpu,
#           resident calls checked, the report saying peer, y against --exchange host's
#   grid    --grid (the 2-D layout): test_mpi_grid on 2, 4 and 6 ranks (every grid of the job
#           against CSparse); spmv-mpi --grid on 1, 2, 4 and 6 ranks, grids 1x1 1x2 2x1 2x2 1x4 2x3
#           3x2 and auto, a bundled matrix, a stencil and R-MAT, f64 and f32, CSR and the advisor's
#           formats, y (from a poisoned y) against serial spmv's, the bytes moved against the grid's
#           volume; empty blocks, ranks without rows or x, a stream's partition set aside, rows and
#           columns permuted at random (--grid-permute), --resident on CPU ranks (host calls),
#           bad values
# gpu: the ranks group on GPUs (--gpu, and --resident; grid: --grid 1x2 and 2x1 on 2 ranks,
# with and without --resident, f64 and f32),
# skipped without a GPU.
. "$RVS_SRC/tests/lib/common.sh"
group=${1:?group}
MPIEXEC=${RVS_MPIEXEC:-mpirun}
command -v "$MPIEXEC" >/dev/null || { echo "no $MPIEXEC: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_pml=ob1 # no UCX probing: a quicker start on loopback
export OMP_NUM_THREADS=1
mode=--cpu
spmv --gpu -n 1 "$RVS_DATA/pmf20.mtx" > /dev/null 2>&1
[ $? = 69 ] && gpu=0 || gpu=1
if [ "${2:-}" = gpu ]; then
  [ $gpu = 0 ] && { echo "no GPU: skipped"; exit 77; }
  mode=--gpu
fi
run() { local n=$1; shift; "$MPIEXEC" -q -np "$n" spmv-mpi "$@"; }

# y_close A B [TOL]: the two Matrix Market arrays agree to TOL (1e-12) of the largest |entry|
# (sums run in another order)
y_close() {
  awk -v tol="${3:-1e-12}" 'FNR == 1 { f++ } /^%/ || FNR == 2 && !/^%/ && NF == 2 { next } f == 1 { a[n1++] = $1 } f == 2 { b[n2++] = $1 }
       END { if (n1 != n2) { print "lengths " n1 " " n2; exit 1 }
             m = 0; d = 0
             for (i = 0; i < n1; i++) { v = a[i] < 0 ? -a[i] : a[i]; if (v > m) m = v
               e = a[i] - b[i]; if (e < 0) e = -e; if (e > d) d = e }
             if (d > tol * (m > 1 ? m : 1)) { print "differ by " d; exit 1 } }' "$1" "$2"
}

# case WHAT NP INPUT SPMV-MPI-ARGS...: checked run; y against serial spmv; exchange = cut volume
# ($mpi_only: arguments of spmv-mpi alone)
case_ok() {
  local what=$1 np=$2 in=$3; shift 3
  spmv --cpu -n 1 -y "$T/ref.mtx" "$@" "$in" > /dev/null 2> "$T/ref.err" || { bad "$what: serial spmv ($(head -c 200 "$T/ref.err"))"; return; }
  if ! run "$np" $mode --check -n 2 -y "$T/y.mtx" ${mpi_only:-} "$@" "$in" > "$T/out" 2> "$T/err"; then
    bad "$what: status $? ($(head -c 300 "$T/err"))"; return
  fi
  grep -q '^# check ok' "$T/out" && ok || bad "$what: no check line"
  local tol=1e-12
  case " $* " in *" f32 "*) tol=1e-5 ;; esac
  r=$(y_close "$T/ref.mtx" "$T/y.mtx" $tol) && ok || bad "$what: y against serial spmv: $r"
  # job lines: exchanged bytes equal the cut's volume in bytes
  awk '/^# job / { j = 1; next } j && !/^#/ { if ($5 != $7) { print $0; exit 1 } }' "$T/out" > "$T/j" && ok ||
    bad "$what: exchanged bytes differ from the cut: $(cat "$T/j")"
  [ -s "$T/err" ] && bad "$what: stderr: $(head -c 200 "$T/err")" || ok
}

rvsgen -o "$T/s7.rvs" stencil7 14 || bad "rvsgen stencil"
rvsgen -o "$T/rmat.rvs" rmat 10 8 || bad "rvsgen rmat"

case $group in
ranks)
  partition --alg nnz --cp 1,1 "$T/s7.rvs" > "$T/s7n2.rvs"
  partition --alg rows --cp 1,1,1,1 "$T/s7.rvs" > "$T/s7r4.rvs"
  partition --alg pmf --cp 1,1,1,1 "$T/rmat.rvs" > "$T/rmatp4.rvs"
  partition --alg nnz --cp 1,2,1 "$T/rmat.rvs" > "$T/rmatn3.rvs"
  case_ok "1 rank, .mtx" 1 "$RVS_DATA/pmf20.mtx"
  case_ok "2 ranks, stencil, Algorithm 2" 2 "$T/s7n2.rvs"
  case_ok "4 ranks, stencil, Algorithm 1" 4 "$T/s7r4.rvs"
  case_ok "4 ranks, R-MAT, Algorithm 3" 4 "$T/rmatp4.rvs"
  case_ok "3 ranks, R-MAT, Algorithm 2, f32" 3 "$T/rmatn3.rvs" -p f32
  # block-diagonal copies cut between blocks: no rank receives a column, so its parts hold all
  # their rows' entries (runs the engine reads in place); CSR and ELLR blocks
  rvsgen -o "$T/bd.rvs" replica "$RVS_DATA/pmf20.mtx" 600 && partition --alg rows --cp 1,1 "$T/bd.rvs" > "$T/bd2.rvs" ||
    bad "rvsgen replica"
  case_ok "2 ranks, block-diagonal, nothing received, csr" 2 "$T/bd2.rvs" -f csr
  case_ok "2 ranks, block-diagonal, nothing received, ellr" 2 "$T/bd2.rvs" -f ellr
  # standard input to rank 0 through a pipeline; x from a file
  pmf "$RVS_DATA/pmf20.mtx" | partition --alg pmf --cp 1,2,6 | run 2 $mode --check -n 1 > "$T/out" 2> "$T/err" &&
    grep -q '^# check ok' "$T/out" && ok || bad "pipeline into rank 0: $(head -c 200 "$T/err")"
  # the pipeline into a named pipe that rank 0 opens (spmv-mpi(1): past mpirun's forwarding)
  rm -f "$T/in.fifo" && mkfifo "$T/in.fifo" || bad "mkfifo"
  { pmf "$RVS_DATA/pmf20.mtx" | partition --alg pmf --cp 1,2,6 > "$T/in.fifo"; } &
  run 2 $mode --check -n 1 "$T/in.fifo" > "$T/out" 2> "$T/err" && wait $! && grep -q '^# check ok' "$T/out" &&
    grep -q '^# partition pmf, 3 parts' "$T/out" && ok || bad "named pipe into rank 0: $(head -c 200 "$T/err")"
  awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print "20 1"; for (i = 1; i <= 20; i++) print i / 7 }' \
    > "$T/x.mtx"
  spmv --cpu -n 1 -x "$T/x.mtx" -y "$T/ref.mtx" "$RVS_DATA/pmf20.mtx" > /dev/null &&
    run 2 $mode -n 1 -x "$T/x.mtx" -y "$T/y.mtx" "$RVS_DATA/pmf20.mtx" > /dev/null && y_close "$T/ref.mtx" "$T/y.mtx" &&
    ok || bad "-x FILE over 2 ranks"
  if [ "$mode" = --gpu ]; then
    run 2 --gpu --check --resident -n 3 "$T/s7n2.rvs" > "$T/out" 2> "$T/err" && grep -q '^resident 2 ' "$T/out" &&
      grep -q '^# check ok' "$T/out" && ok || bad "resident calls: $(head -c 300 "$T/err")"
  fi ;;
shapes)
  partition --alg nnz --cp 1,2 "$T/rmat.rvs" > "$T/rmatn2.rvs"
  partition --alg nnz --cp 1:cpu1,1:cpu1,1:cpu0,1,1,1 "$T/s7.rvs" > "$T/bound6.rvs"
  case_ok "3 ranks, 2 parts: a rank without rows" 3 "$T/rmatn2.rvs"
  awk '$1 == "call" && $2 == 2 { print $5 }' "$T/out" | grep -qx 0 && ok || bad "rank 2 should hold no rows"
  case_ok "2 ranks, 6 parts, 3 bound" 2 "$T/bound6.rvs"
  expect_eq "ranks of the parts" "$(sed -n 's/.*rank of each part: //p' "$T/out")" "1 1 0 0 1 1"
  case_ok "2 ranks, .mtx without partition" 2 "$RVS_DATA/pmf20.mtx"
  # without a partition: the least volume within 10% of the best balance (metis on a stencil,
  # nnz without METIS), said in the report's last line with every candidate's volume
  want=metis
  partition --alg metis --parts 2 "$RVS_DATA/pmf20.mtx" > /dev/null 2>&1 || want=nnz
  case_ok "4 ranks, stencil without partition: chosen by volume" 4 "$T/s7.rvs"
  expect_eq "the partition chosen" "$(sed -n 's/^# partition \([a-z]*\), 4 parts;.*/\1/p' "$T/out")" $want
  awk -v w=$want '/^# job / { j = 1; next } j && /^call / { bytes = $7; j = 0 }
       /^# partition [a-z]*: the least volume within 10% of the best imbalance; / {
         n = split($0, f, /[:;] /); for (i = 4; i <= n; i++) { split(f[i], v, " "); vol[v[1]] = v[2] } }
       END { if (!(w in vol) || bytes != 8 * vol[w]) { print "bytes " bytes ", volume " vol[w]; exit 1 }
             for (a in vol) if (vol[a] < vol[w]) { print a " moves less"; exit 1 } }' "$T/out" > "$T/why" &&
    ok || bad "the choice's volumes: $(cat "$T/why"): $(tail -1 "$T/out")"
  grep -q '^# partition [a-z]*: .*\. --grid 2x2 would move 5488 x and partial y entries a call$' "$T/out" && ok ||
    bad "the grid's volume beside the choice: $(tail -1 "$T/out")"
  run 4 $mode --check -n 1 --alg nnz "$T/s7.rvs" > "$T/out" 2> "$T/err" && grep -q '^# check ok' "$T/out" &&
    grep -q '^# partition nnz, 4 parts' "$T/out" && ! grep -q '^# partition nnz:' "$T/out" && ok ||
    bad "--alg nnz: $(head -c 300 "$T/err")"
  run 3 $mode --check -n 1 --alg $want "$T/rmat.rvs" > "$T/out" 2> "$T/err" && grep -q '^# check ok' "$T/out" &&
    grep -q "^# partition $want, 3 parts" "$T/out" && ok || bad "--alg $want on R-MAT: $(head -c 300 "$T/err")"
  # rectangular: more columns than rows (columns past the last row owned in blocks), and fewer
  awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print "30 47 140"
               for (k = 0; k < 140; k++) { i = (k * 7) % 30 + 1; j = (k * 13 + int(k / 30)) % 47 + 1
                 print i, j, (k % 9) - 4.5 } }' > "$T/wide.mtx"
  awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print "47 30 140"
               for (k = 0; k < 140; k++) { i = (k * 13 + int(k / 30)) % 47 + 1; j = (k * 7) % 30 + 1
                 print i, j, (k % 9) - 4.5 } }' > "$T/tall.mtx"
  case_ok "4 ranks, 30 x 47" 4 "$T/wide.mtx"
  case_ok "3 ranks, 47 x 30" 3 "$T/tall.mtx"
  run 2 $mode --check -n 1 "$T/wide.mtx" > "$T/out" 2> "$T/err" && grep -q '^# check ok' "$T/out" &&
    grep -Eq '^# partition [a-z]+: .*(metis needs a square matrix|pmf)' "$T/out" && ok ||
    bad "a rectangular matrix without partition: $(tail -1 "$T/out") $(head -c 300 "$T/err")" ;;
errors)
  partition --alg nnz --cp 1,1 "$T/s7.rvs" > "$T/s7n2.rvs"
  partition --alg nnz --cp 1:cpu3,1 "$T/s7.rvs" > "$T/far.rvs"
  expect_fail 64 "^spmv-mpi: rank 0: .*far.rvs: part 1 is bound to processor 3, and the job has 2 ranks \(0..1\)$" -- \
    run 2 $mode "$T/far.rvs"
  partition --alg diag --cp 1,1 "$T/s7.rvs" > "$T/diag.rvs"
  expect_fail 65 "^spmv-mpi: rank 0: .*diag.rvs: the parts of Algorithm 4" -- run 2 $mode "$T/diag.rvs"
  expect_fail 66 "^spmv-mpi: rank 0: $T/none.rvs: " -- run 2 $mode "$T/none.rvs"
  printf '%%%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 1 2\n2 2 3 4\n' > "$T/c.mtx"
  expect_fail 65 "^spmv-mpi: rank 0: .*c.mtx: complex values, which spmv-mpi does not run" -- run 2 $mode --check "$T/c.mtx"
  expect_fail 74 "^spmv-mpi: rank 0: $T/no/such/dir/y.mtx: " -- run 2 $mode -n 1 -y "$T/no/such/dir/y.mtx" "$T/s7n2.rvs"
  [ ! -e "$T/no" ] && ok || bad "-y left a file"
  expect_fail 64 "^spmv-mpi: .*--no-such-option.*--help" -- run 2 --no-such-option "$T/s7n2.rvs"
  expect_fail 64 "^spmv-mpi: --precision: 'f16'" -- run 3 -p f16 "$T/s7n2.rvs"
  expect_fail 64 "^spmv-mpi: --halo-format: unknown format 'nope' \(auto or one of csr," -- run 2 --halo-format nope "$T/s7n2.rvs"
  expect_fail 64 "^spmv-mpi: --format: unknown format 'nope'" -- run 2 -f nope "$T/s7n2.rvs"
  expect_fail 64 "^spmv-mpi: --alg: 'diag' is not one of rows, nnz, pmf, metis, auto" -- run 2 --alg diag "$T/s7n2.rvs"
  expect_fail 64 "^spmv-mpi: rank 0: .*s7n2.rvs: --alg rows: the input carries a partition \(nnz\); --alg is for a matrix without one$" -- \
    run 2 $mode --alg rows "$T/s7n2.rvs"
  expect_eq "--version" "$(spmv-mpi --version)" "spmv-mpi (rvskit) 0.1.0"
  spmv-mpi --help | head -1 | grep -q '^Usage: mpirun' && ok || bad "--help" ;;
kill)
  rvsgen -o "$T/big.rvs" stencil7 40 && partition --alg nnz --cp 1,1 "$T/big.rvs" > "$T/bign2.rvs"
  "$MPIEXEC" -q -np 2 spmv-mpi $mode -f csr -n 200000 "$T/bign2.rvs" > /dev/null 2> "$T/err" &
  mp=$!
  for i in $(seq 100); do [ "$(ps -o pid= --ppid $mp | wc -l)" -ge 2 ] && break; sleep 0.1; done
  sleep 2 # set-up done: both ranks call
  victim=$(ps -o pid= --ppid $mp | tail -1 | tr -d ' ')
  if [ -n "$victim" ] && kill -9 "$victim" 2>/dev/null; then
    for i in $(seq 300); do kill -0 $mp 2>/dev/null || break; sleep 0.1; done
    if kill -0 $mp 2>/dev/null; then
      bad "a rank was killed and the job still runs after 30 s"
      for p in $(ps -o pid= --ppid $mp); do kill -9 "$p"; done
      kill -9 $mp
    else
      ok
    fi
    wait $mp; st=$?
    [ $st -ne 0 ] && ok || bad "killed rank: job status 0"
  else
    bad "no rank to kill: the job ended early ($(head -c 200 "$T/err"))"
    wait $mp
  fi ;;
exchange)
  partition --alg nnz --cp 1,1 "$T/s7.rvs" > "$T/s7n2.rvs"
  expect_fail 64 "^spmv-mpi: --exchange: 'nccl' is not auto, host or peer" -- run 2 --exchange nccl "$T/s7n2.rvs"
  expect_fail 64 "^spmv-mpi: --exchange peer: the ranks run on their CPUs \(--cpu\)" -- \
    run 2 --cpu --exchange peer "$T/s7n2.rvs"
  if [ $gpu = 0 ]; then
    expect_fail 69 "^spmv-mpi: rank 0: GPU: --exchange peer needs a GPU on every rank: " -- \
      run 2 --exchange peer --check "$T/s7n2.rvs"
    expect_fail 69 "^spmv-mpi: rank 0: GPU: --exchange peer needs a GPU on every rank: " -- \
      run 1 --exchange peer "$T/s7n2.rvs"
  fi
  # auto on CPU ranks: host staging, reported per rank, per pair and for the job, with the reason
  mpi_only="--exchange auto --resident" case_ok "2 ranks, --exchange auto on CPUs" 2 "$T/s7n2.rvs"
  grep -qx '# exchange auto: calls with host vectors through host memory; resident calls, receiver <- sender: 0 <- 1 host; 1 <- 0 host' \
    "$T/out" && ok || bad "auto: pairs line: $(grep '^# exchange' "$T/out")"
  grep -qx '# exchange host where not peer: rank [01] runs on the CPU' "$T/out" && ok || bad "auto: no reason given"
  expect_eq "auto: the ranks' exchange" "$(awk '($1 == "call" || $1 == "resident") && NF == 16 { print $16 }' "$T/out" |
    sort -u)" host
  expect_eq "auto: the job's exchange" "$(awk '($1 == "call" || $1 == "resident") && NF == 9 { print $9 }' "$T/out" |
    sort -u)" host
  mpi_only="--exchange host" case_ok "3 ranks, R-MAT, --exchange host" 3 "$T/rmat.rvs"
  grep -q '^# exchange host: .* 0 <- 1 host, 2 host; 1 <- 0 host, 2 host; 2 <- 0 host, 1 host$' "$T/out" && ok ||
    bad "host: pairs line: $(grep '^# exchange' "$T/out")"
  grep -q '^# exchange host where' "$T/out" && bad "host asked: a reason given" || ok
  case_ok "1 rank, no exchange" 1 "$T/s7.rvs"
  grep -q '^# exchange auto: .*receiver <- sender: none$' "$T/out" && ok || bad "1 rank: $(grep '^# exchange' "$T/out")"
  expect_eq "1 rank: its exchange" "$(awk '$1 == "call" && NF == 16 { print $16 }' "$T/out")" - ;;
peer)
  [ "$mode" = --gpu ] || { echo "peer: run it with gpu"; exit 2; }
  partition --alg nnz --cp 1,1 "$T/s7.rvs" > "$T/s7n2.rvs"
  partition --alg rows --cp 1,1,1 "$T/s7.rvs" > "$T/s7r3.rvs"
  partition --alg nnz --cp 1,1 "$T/rmat.rvs" > "$T/rmatn2.rvs"
  partition --alg pmf --cp 1,1,1 "$T/rmat.rvs" > "$T/rmatp3.rvs"
  # peer_case WHAT NP INPUT ARGS...: resident calls GPU to GPU, checked, said, y as with host
  peer_case() {
    local what=$1 np=$2 in=$3; shift 3
    if ! run "$np" --gpu --exchange peer --resident --check -n 3 -y "$T/yp.mtx" "$@" "$in" > "$T/out" 2> "$T/err"; then
      bad "$what: peer: status $? ($(head -c 300 "$T/err"))"; return
    fi
    grep -q '^# check ok' "$T/out" && ok || bad "$what: peer: no check line"
    [ -s "$T/err" ] && bad "$what: peer: stderr: $(head -c 200 "$T/err")" || ok
    expect_eq "$what: peer: the ranks' resident exchange" "$(awk '$1 == "resident" && NF == 16 { print $16 }' "$T/out" |
      sort -u)" peer
    expect_eq "$what: peer: the job's" "$(awk '$1 == "resident" && NF == 9 { print $9 }' "$T/out")" peer
    grep -q '^# exchange peer: .* 0 <- [0-9]* peer' "$T/out" && ! grep -q ' host\(,\|;\|$\)' <(grep '^# exchange' "$T/out") &&
      ok || bad "$what: peer: pairs line: $(grep '^# exchange' "$T/out")"
    # the same with host staging, and auto (one node: peer)
    run "$np" --gpu --exchange host --resident --check -n 3 -y "$T/yh.mtx" "$@" "$in" > "$T/out" 2> "$T/err" &&
      grep -q '^# check ok' "$T/out" && ok || bad "$what: host: $(head -c 300 "$T/err")"
    expect_eq "$what: host: the job's" "$(awk '$1 == "resident" && NF == 9 { print $9 }' "$T/out")" host
    r=$(y_close "$T/yh.mtx" "$T/yp.mtx" 1e-12) && ok || bad "$what: y of peer against host: $r"
    run "$np" --gpu --resident -n 2 "$@" "$in" > "$T/out" 2> "$T/err" && ok || bad "$what: auto: $(head -c 300 "$T/err")"
    expect_eq "$what: auto: the job's" "$(awk '$1 == "resident" && NF == 9 { print $9 }' "$T/out")" peer
  }
  for np in 2 3; do # resident calls back to back, x changed between them, against host calls
    "$MPIEXEC" -q -np $np "$RVS_BIN/tests/test_mpi_peer" gpu > "$T/out" 2>&1 && ok ||
      bad "test_mpi_peer gpu on $np ranks: $(tail -c 600 "$T/out")"
  done
  peer_case "2 ranks, stencil, Algorithm 2" 2 "$T/s7n2.rvs"
  peer_case "3 ranks, stencil, Algorithm 1" 3 "$T/s7r3.rvs"
  peer_case "2 ranks, R-MAT, Algorithm 2" 2 "$T/rmatn2.rvs"
  peer_case "3 ranks, R-MAT, Algorithm 3, f32" 3 "$T/rmatp3.rvs" -p f32
  # a rank whose parts run on its CPU receives through host memory: peer refuses it, auto mixes
  partition --alg nnz --cp 1:gpu0,1:cpu1 "$T/s7.rvs" > "$T/hyb.rvs"
  expect_fail 69 "^spmv-mpi: rank [01]: exchange: --exchange peer: rank 1 runs on the CPU" -- \
    run 2 --hybrid --exchange peer --resident "$T/hyb.rvs"
  run 2 --hybrid --resident --check -n 2 "$T/hyb.rvs" > "$T/out" 2> "$T/err" && grep -q '^# check ok' "$T/out" &&
    grep -q '^# exchange host where not peer: rank 1 runs on the CPU' "$T/out" && ok ||
    bad "hybrid, auto: $(head -c 300 "$T/err") $(grep '^# exchange' "$T/out")" ;;
grid)
  for np in 2 4 6; do
    "$MPIEXEC" -q -np $np "$RVS_BIN/tests/test_mpi_grid" > "$T/out" 2>&1 && ok || bad "test_mpi_grid on $np ranks: $(tail -c 600 "$T/out")"
  done
  # grid_ok WHAT NP GRID INPUT ARGS...: case_ok with --grid GRID, the report naming the grid
  grid_ok() {
    local what=$1 np=$2 g=$3 in=$4; shift 4
    mpi_only="--grid $g ${grid_extra:-}" case_ok "$what" "$np" "$in" "$@"
    local want=$g
    [ "$g" = auto ] && want=$grid_auto
    grep -q "^# grid $want: rank r runs block" "$T/out" && ok || bad "$what: no grid $want line: $(head -3 "$T/out")"
    expect_eq "$what: ranks in the table" "$(awk '$1 == "call" && NF == 16' "$T/out" | wc -l | tr -d ' ')" "$np"
  }
  # resident_ok WHAT NP GRID INPUT ARGS...: grid_ok with --resident: a resident row per rank on
  # DEV (gpu: its GPU; cpu: host calls, as the 1-D layout's CPU ranks), the job's resident line
  # host, and the checked call (from a y poisoned with NaN) and -y are a resident call's
  resident_ok() {
    local what=$1 np=$2 g=$3 in=$4 dev=${mode#--}; shift 4
    grid_extra=--resident grid_ok "$what" "$np" "$g" "$in" "$@"
    expect_eq "$what: resident rows' devices" "$(awk '$1 == "resident" && NF == 16 { sub(/[0-9]+$/, "", $3); print $3 }' "$T/out" |
      sort | uniq -c | tr -s ' ')" " $np $dev"
    expect_eq "$what: the job's resident line" "$(awk '$1 == "resident" && NF == 9 { print $2, $9 }' "$T/out")" "$np host"
  }
  partition --alg nnz --cp 1,1 "$T/s7.rvs" > "$T/s7n2.rvs"
  if [ "$mode" = --gpu ]; then
    grid_ok "2 ranks, 1x2, stencil" 2 1x2 "$T/s7.rvs"
    grid_ok "2 ranks, 2x1, R-MAT, f32" 2 2x1 "$T/rmat.rvs" -p f32
    # resident calls: the ranks' pieces of x and y on their GPUs, only the pieces staged
    for g in 1x2 2x1; do
      resident_ok "2 ranks, $g, stencil, resident" 2 $g "$T/s7.rvs"
      resident_ok "2 ranks, $g, R-MAT, f32, resident" 2 $g "$T/rmat.rvs" -p f32
    done
    finish
  fi
  grid_ok "1 rank, 1x1, .mtx" 1 1x1 "$RVS_DATA/pmf20.mtx"
  grid_ok "2 ranks, 1x2, stencil" 2 1x2 "$T/s7.rvs"
  grid_ok "2 ranks, 2x1, R-MAT, f32" 2 2x1 "$T/rmat.rvs" -p f32
  grid_ok "4 ranks, 2x2, R-MAT" 4 2x2 "$T/rmat.rvs"
  grid_ok "4 ranks, 2x2, .mtx, csr" 4 2x2 "$RVS_DATA/pmf20.mtx" -f csr
  grid_ok "4 ranks, 1x4, stencil, f32" 4 1x4 "$T/s7.rvs" -p f32
  grid_auto=2x3 grid_ok "6 ranks, auto, R-MAT" 6 auto "$T/rmat.rvs"
  grid_ok "6 ranks, 3x2, stencil, f32" 6 3x2 "$T/s7.rvs" -p f32
  grid_ok "6 ranks, 2x3, .mtx, f32" 6 2x3 "$RVS_DATA/pmf20.mtx" -p f32
  # a stream's partition is set aside, and said so
  # --resident on CPU ranks: host calls, reported and checked as resident ones (as in 1-D)
  resident_ok "2 ranks, 1x2, stencil, --resident on CPUs" 2 1x2 "$T/s7.rvs"
  resident_ok "4 ranks, 2x2, R-MAT, f32, --resident on CPUs" 4 2x2 "$T/rmat.rvs" -p f32
  grid_ok "2 ranks, 2x1, a stream with a partition" 2 2x1 "$T/s7n2.rvs"
  grep -q '^# grid: the stream.s partition (nnz, 2 parts) is not used$' "$T/out" && ok || bad "partition not said unused"
  # empty blocks: a diagonal on 2x2 (two blocks without entries run nothing), fewer rows than R
  # (ranks without rows), fewer columns than C (ranks without x)
  awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print "30 30 30"
               for (i = 1; i <= 30; i++) print i, i, i / 4 }' > "$T/diag.mtx"
  grid_ok "4 ranks, 2x2, diagonal" 4 2x2 "$T/diag.mtx" -f csr
  expect_eq "diagonal: entries and formats of the ranks" "$(awk '$1 == "call" && NF == 16 { printf "%s %s;", $6, $7 }' "$T/out")" \
    "15 csr;0 -;0 -;15 csr;"
  printf '%%%%MatrixMarket matrix coordinate real general\n2 9 5\n1 1 1\n1 5 2\n2 3 -1\n2 9 4\n1 8 0.5\n' > "$T/short.mtx"
  grid_ok "6 ranks, 3x2, 2 rows" 6 3x2 "$T/short.mtx" # rows of 3 and 2 entries: the middle row block is empty
  expect_eq "2 rows: rows of the ranks" "$(awk '$1 == "call" && NF == 16 { printf "%s ", $5 }' "$T/out")" "1 1 0 0 1 1 "
  printf '%%%%MatrixMarket matrix coordinate real general\n5 2 4\n1 1 1\n3 2 2\n4 1 -1\n5 2 3\n' > "$T/narrow.mtx"
  grid_ok "4 ranks, 1x4, 2 columns" 4 1x4 "$T/narrow.mtx"
  # rows and columns permuted at random first: symmetric (R-MAT), and apart (2 x 9)
  grid_extra=--grid-permute grid_ok "4 ranks, 2x2, R-MAT, permuted" 4 2x2 "$T/rmat.rvs"
  grep -q '^# grid 2x2: .*, of the matrix permuted at random: --grid-permute)$' "$T/out" && ok || bad "permuted: not said"
  grid_extra=--grid-permute grid_ok "6 ranks, 2x3, 2 x 9, permuted, f32" 6 2x3 "$T/short.mtx" -p f32
  # x from a file, y to standard output
  awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print "20 1"; for (i = 1; i <= 20; i++) print i / 7 }' \
    > "$T/x.mtx"
  spmv --cpu -n 1 -x "$T/x.mtx" -y "$T/ref.mtx" "$RVS_DATA/pmf20.mtx" > /dev/null &&
    run 4 --cpu --grid 2x2 -n 1 -x "$T/x.mtx" -y - "$RVS_DATA/pmf20.mtx" > "$T/y.mtx" 2> "$T/err" &&
    grep -q '^# grid 2x2' "$T/err" && y_close "$T/ref.mtx" "$T/y.mtx" && ok || bad "--grid with -x FILE and -y -"
  # bad values: usage, one line, nothing on stdout
  expect_fail 64 "^spmv-mpi: --grid: '0x2' is not RxC \(positive integers, as 2x3\) or auto \(try 'spmv-mpi --help'\)$" -- run 2 --grid 0x2 "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --grid: 'two' is not RxC" -- run 2 --grid two "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --grid: '2x' is not RxC" -- run 2 --grid 2x "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --grid: '-1x2' is not RxC" -- run 2 --grid -1x2 "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --grid: '2x2x1' is not RxC" -- run 4 --grid 2x2x1 "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: rank 0: --grid 2x2: 4 blocks, and the job has 6 ranks$" -- run 6 --cpu --grid 2x2 "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: rank 0: --grid 1x3: 3 blocks, and the job has 2 ranks$" -- run 2 --cpu --grid 1x3 "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --grid-permute: only with --grid" -- run 2 --grid-permute "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --alg: not with --grid" -- run 2 --grid auto --alg nnz "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --hybrid: not with --grid" -- run 2 --grid auto --hybrid "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --halo-format: not with --grid" -- run 2 --grid auto --halo-format csr "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --exchange: not with --grid \\(2-D calls exchange through host memory\\)" -- run 2 --grid auto --exchange host "$T/s7.rvs"
  expect_fail 64 "^spmv-mpi: --exchange: not with --grid" -- run 2 --grid auto --resident --exchange host "$T/s7.rvs"
  expect_fail 66 "^spmv-mpi: rank 0: $T/none.rvs: " -- run 2 --cpu --grid auto "$T/none.rvs" ;;
check)
  for np in 2 3; do
    "$MPIEXEC" -q -np $np "$RVS_BIN/tests/test_mpi_check" > "$T/out" 2>&1 && ok || bad "test_mpi_check on $np ranks: $(tail -c 600 "$T/out")"
    "$MPIEXEC" -q -np $np "$RVS_BIN/tests/test_mpi_peer" > "$T/out" 2>&1 && ok || bad "test_mpi_peer on $np ranks: $(tail -c 600 "$T/out")"
  done ;;
*) echo "unknown group $group"; exit 2 ;;
esac
finish
