#!/usr/bin/env bash
# mpi_spmv.sh - SpMV over 1 and P GPUs with spmv-mpi, on a 7-point stencil 320^3, R-MAT
# 24 and block replicas of wiki-Vote (>= 200M non-zeros), then (LARGE=1, after the 2-D runs) the stencil
# 400^3, R-MAT 25 and replicas of email-Enron, partitioned by Algorithms 1, 2 and 3 and METIS
# (last, it takes minutes at these sizes) into one part per GPU (P of RANKS), and in the 2-D layout (ALG 2d:
# spmv-mpi --grid auto, R x C blocks; resident calls stage the ranks' pieces, no --exchange). Per run: the job's time per call (the slowest rank; host vectors, and resident
# vectors: a solver's step), each rank's compute (owned columns, then received ones) and exchange,
# the bytes exchanged per call against the partition's cut, the speedup over one GPU (same format,
# same program, one rank), and how the x entries of resident calls travelled (spmv-mpi --exchange:
# peer, GPU to GPU by CUDA IPC; host, through host memory; each run of P ranks once with each).
# Every run is checked against CSparse on every rank.
#   bench/mpi_spmv.sh BIN OUT [MATRICES]
# BIN: the programs (spmv-mpi, partition, rvsgen); OUT: mpi_spmv.txt (the table) and mpi_spmv.log
# (every command and its whole output); MATRICES: where wiki-Vote.mtx[.gz] is [$RVS_MATRICES, else
# ../shared/matrices].
# Environment: RVS_WORK (generated inputs) [/dev/shm/rvsmpi], DEADLINE seconds after which no new
# run starts [none], ITERS timed calls [10], SIZE full or small (for a try on a small machine) [full],
# MPIRUN [mpirun -q --bind-to none], RVS_MODE (--cpu to try it without GPUs) [--gpu], EXCHANGES
# (the --exchange of each run of more than one rank) [host peer], ONLY (an extended regular
# expression: only the runs whose "MATRIX ALG RANKS FORMAT EXCHANGE" it matches, and only the
# inputs they need) [all], RANKS (the rank counts of the partitioned runs, ascending) [2], GRID_RANKS
# (those of the 2d runs) [RANKS], LARGE (1: the larger inputs too) [0].
set -uo pipefail
B=${1:?bin dir}; O=${2:?out dir}; M=${3:-${RVS_MATRICES:-../shared/matrices}}
W=${RVS_WORK:-/dev/shm/rvsmpi}
mkdir -p "$W" "$O"
rm -f "$W"/base.* # the 1-rank times of an earlier run are not this run's baselines
export PATH=$B:$PATH
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
MPIRUN=${MPIRUN:-mpirun -q --bind-to none}
N=${ITERS:-10}
start=$(date +%s)
deadline=${DEADLINE:-1000000}
tab=$O/mpi_spmv.txt log=$O/mpi_spmv.log
if [ "${SIZE:-full}" = full ]; then S=320 R="24 16" REP=200000000 S2=400 R2="25 16"
else S=60 R="16 16" REP=2000000 S2=70 R2="17 16"; fi

{
  echo "# mpi_spmv.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores"
  nvidia-smi --query-gpu=index,name,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader 2>/dev/null |
    sed 's/^/# gpu /'
  echo "# mpirun: $(mpirun --version 2>/dev/null | head -1); $MPIRUN; OMPI_MCA_pml=$OMPI_MCA_pml OMPI_MCA_btl=$OMPI_MCA_btl"
  echo "# per run: partition --alg ALG --cp 1,...,1 FILE | $MPIRUN -np P spmv-mpi ${RVS_MODE:---gpu} --resident --check -n $N -f FORMAT"
  echo "#   --exchange EXCHANGE (ranks 1: $MPIRUN -np 1 spmv-mpi ... FILE, the whole matrix in one part; alg 2d:"
  echo "#   $MPIRUN -np RANKS spmv-mpi ${RVS_MODE:---gpu} --grid auto --resident --check -n $N -f FORMAT FILE); mode"
  echo "#   call: x in and y out through host memory; resident: x and y stay on the GPUs, only exchanged entries"
  echo "#   move, GPU to GPU (peer) or through host memory (host; 2d: the ranks' pieces of x and y around the"
  echo "#   expand and fold); exchange: the job's, as spmv-mpi reports it"
  echo "# matrix alg ranks format mode job_ms gflops compute_ms exchange_ms wait_ms idle_ms bytes_per_call" \
       "messages cut_volume_bytes edge_cut speedup wall_s exchange"
} > "$tab"
: > "$log"

# gen NAME ARGS...: generate W/NAME.rvs once (threads: GEN_THREADS)
gen() {
  local name=$1; shift
  [ -s "$W/$name.rvs" ] && return 0
  [[ -z "${ONLY:-}" || "$name" =~ ${ONLY%% *} ]] || return 0
  rvsgen --threads "${GEN_THREADS:-$(nproc)}" -o "$W/$name.rvs.tmp" "$@" >> "$log" 2>&1 && mv "$W/$name.rvs.tmp" "$W/$name.rvs"
}

# summary MATRIX ALG RANKS FORMAT WALL: one table line per mode from spmv-mpi's output in $W/out
summary() {
  awk -v m="$1" -v alg="$2" -v np="$3" -v fmt="$4" -v wall="$5" -v base="$W/base.$1.$4" '
    BEGIN { while ((getline l < base) > 0) { split(l, f, " "); b[f[1]] = f[2] } }
    /^# check ok/ { checked = 1 }
    $1 == "call" || $1 == "resident" {
      if (NF == 16) { # a rank: compute = owned + received columns; the slowest rank counts
        c = $11 + $12; if (c > comp[$1]) comp[$1] = c
        if ($13 > ex[$1]) ex[$1] = $13; if ($14 > wt[$1]) wt[$1] = $14; if ($15 > idle[$1]) idle[$1] = $15
      } else if (NF == 9) { ms[$1] = $3; gf[$1] = $4; by[$1] = $5; msg[$1] = $6; vol[$1] = $7; cut[$1] = $8; how[$1] = $9
        seen[++n] = $1 }
    }
    END {
      if (!checked) { print "# " m " " alg " " np ": no check line (failed?)"; exit 1 }
      for (i = 1; i <= n; i++) { k = seen[i]
        sp = (k in b && ms[k] > 0) ? sprintf("%.3f", b[k] / ms[k]) : "-"
        printf "%s %s %d %s %s %.4f %.1f %.4f %.4f %.4f %.4f %s %s %s %s %s %s %s\n", m, alg, np, fmt, k, ms[k], gf[k],
               comp[k], ex[k], wt[k], idle[k], by[k], msg[k], vol[k], cut[k], sp, wall, how[k]
        if (np == 1) print k, ms[k] > base
      } }' "$W/out"
}

# run MATRIX ALG RANKS FORMAT: the measured runs (ALG "-": the matrix as generated, one part), one
# per exchange of EXCHANGES with more than one rank
run() {
  local x
  if [ "$3" = 1 ] || [ "$2" = 2d ]; then one "$@" -; else for x in ${EXCHANGES:-host peer}; do one "$@" "$x"; done; fi
}

# one MATRIX ALG RANKS FORMAT EXCHANGE: one measured run (EXCHANGE "-": spmv-mpi's default)
one() {
  local m=$1 alg=$2 np=$3 fmt=$4 x=$5 cmd
  [[ -z "${ONLY:-}" || "$m $alg $np $fmt $x" =~ $ONLY ]] || return 0
  if [ $(( $(date +%s) - start )) -ge "$deadline" ]; then echo "# $m $alg $np $fmt $x: not run (deadline)" >> "$tab"; return; fi
  local args="${RVS_MODE:---gpu} --resident --check -n $N -f $fmt"
  [ "$x" = - ] || args="$args --exchange $x"
  if [ "$alg" = 2d ]; then # the grid's expand and fold run through host memory: no --exchange
    cmd="$MPIRUN -np $np spmv-mpi ${RVS_MODE:---gpu} --grid auto --resident --check -n $N -f $fmt $W/$m.rvs"
  elif [ "$alg" = - ]; then
    cmd="$MPIRUN -np $np spmv-mpi $args $W/$m.rvs"
  elif [ "$alg" = metis ]; then # METIS takes minutes: its parts are kept for the next exchange
    local pf=$W/$m.metis$np.rvs t=$(date +%s)
    if [ ! -s "$pf" ]; then
      partition --alg metis --cp "$(seq -s, 1 "$np" | sed 's/[0-9]\+/1/g')" "$W/$m.rvs" > "$pf.tmp" 2>> "$log" &&
        mv "$pf.tmp" "$pf" || { rm -f "$pf.tmp"; echo "# $m metis $np: partition failed" >> "$tab"; return; }
      echo "# $m metis $np: partition --alg metis took $(( $(date +%s) - t )) s" >> "$tab"
    fi
    cmd="$MPIRUN -np $np spmv-mpi $args $pf"
  else
    cmd="partition --alg $alg --cp $(seq -s, 1 "$np" | sed 's/[0-9]\+/1/g') $W/$m.rvs | $MPIRUN -np $np spmv-mpi $args"
  fi
  echo "## $cmd" >> "$log"
  local t0 t1
  t0=$(date +%s.%N)
  bash -c "$cmd" > "$W/out" 2>> "$log"; local st=$?
  t1=$(date +%s.%N)
  cat "$W/out" >> "$log"
  [ $st -eq 0 ] || { echo "# $m $alg $np $fmt $x: status $st" >> "$tab"; return; }
  summary "$m" "$alg" "$np" "$fmt" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >> "$tab"
}

# the inputs: R-MAT and the replicas generate while the stencil does (nothing is timed meanwhile)
rep=$M/wiki-Vote.mtx.gz; [ -f "$rep" ] || rep=$M/wiki-Vote.mtx
GEN_THREADS=$(( $(nproc) / 3 + 1 )) gen rmat$(echo $R | cut -d' ' -f1) rmat $R & g1=$!
GEN_THREADS=$(( $(nproc) / 3 + 1 )) gen wiki replica "$rep" $REP & g2=$!
GEN_THREADS=$(( $(nproc) / 3 + 1 )) gen s$S stencil7 $S
echo "# generated in $(( $(date +%s) - start )) s (stencil)" >> "$tab"
[ -n "${AFTER_GEN:-}" ] && bash -c "$AFTER_GEN" >> "$log" 2>&1 # the MPI GPU tests, while R-MAT generates
wait $g1 $g2
echo "# all inputs after $(( $(date +%s) - start )) s" >> "$tab"
rm=rmat$(echo $R | cut -d' ' -f1)

# by priority, each rank count of RANKS in turn: the stencil (the 0.9 x P target), then R-MAT,
# then the replicas, then the rest
ranks=${RANKS:-2}
run s$S - 1 dia
for np in $ranks; do run s$S nnz "$np" dia; run s$S rows "$np" dia; done
run "$rm" - 1 csr
for np in $ranks; do run "$rm" nnz "$np" csr; run "$rm" pmf "$np" csr; done
run wiki - 1 csr
for np in $ranks; do run wiki nnz "$np" csr; done
for np in $ranks; do run "$rm" rows "$np" csr; run wiki pmf "$np" csr; run s$S pmf "$np" ellr; done
run s$S - 1 ellr
run s$S - 1 auto # the 2-D stencil's blocks off the diagonal are no DIA: each block as the advisor picks
for np in ${GRID_RANKS:-$ranks}; do # the 2-D layout: for the graphs, where every row partition cuts much
  run "$rm" 2d "$np" csr
  run wiki 2d "$np" csr
  run s$S 2d "$np" auto
done
if [ "${LARGE:-0}" = 1 ]; then # the larger inputs, generated only now (nothing else runs meanwhile)
  rm2=rmat$(echo $R2 | cut -d' ' -f1)
  rep2=$M/email-Enron.mtx.gz; [ -f "$rep2" ] || rep2=$M/email-Enron.mtx
  gen s$S2 stencil7 $S2
  run s$S2 - 1 dia
  for np in $ranks; do run s$S2 nnz "$np" dia; run s$S2 rows "$np" dia; done
  rm -f "$W/s$S2.rvs" # the host memory for the next
  gen "$rm2" rmat $R2
  run "$rm2" - 1 csr
  for np in $ranks; do run "$rm2" nnz "$np" csr; run "$rm2" pmf "$np" csr; done
  rm -f "$W/$rm2.rvs"
  gen enron replica "$rep2" $REP
  run enron - 1 csr
  for np in $ranks; do run enron nnz "$np" csr; run enron pmf "$np" csr; done
  echo "# larger inputs done after $(( $(date +%s) - start )) s" >> "$tab"
fi
# METIS parts are scattered rows: the stencil's diagonals do not survive; auto picks (baseline: - 1 auto)
for np in $ranks; do run s$S metis "$np" auto; run "$rm" metis "$np" csr; done
echo "# done after $(( $(date +%s) - start )) s" >> "$tab"
cat "$tab"
