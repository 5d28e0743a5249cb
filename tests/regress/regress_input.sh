# regress_input.sh CASE - regression tests for input defects, one case per finding (see below)
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/fault.sh"
command -v pmf >/dev/null 2>&1 || { echo "pmf not built: skipped"; exit 77; }
banner='%%MatrixMarket matrix coordinate real general'
missing="line 1: missing banner '%%MatrixMarket matrix FORMAT FIELD SYMMETRY'"
# the address space these cases run in (MB): the programs load the CUDA runtime and cuSPARSE
# (about 300 MB of mappings before any input); far under the gigabytes a defect would take
MEM=600

case "${1:-}" in
# mm_endless_stdin: `yes | pmf` buffered all of stdin (12 GB in 30 s) before the banner was
# checked; endless or foreign input must be refused at its first line, in bounded memory.
mm_endless_stdin)
  expect_fail_sh 65 "^pmf: stdin: $missing\$" $MEM 20 -- 'yes | pmf'
  expect_fail_sh 65 "^pmf: stdin: $missing\$" $MEM 20 -- 'yes | pmf -'
  expect_fail_sh 65 "^pmf: stdin: $missing\$" $MEM 20 -- 'cat /dev/zero | pmf'
  expect_fail_sh 65 "^pmf: stdin: $missing\$" $MEM 20 -- 'yes | gzip -1 | pmf'
  expect_fail_sh 65 "^pmf: stdin: line 2: bad size 'y'" $MEM 20 -- "(echo '$banner'; yes) | pmf"
  expect_fail_sh 65 "^pmf: stdin: line 3: bad size 'y'" $MEM 20 -- "(echo '$banner'; echo '% c'; yes) | gzip -1 | pmf"
  expect_fail_sh 65 "^convert: stdin: $missing\$" $MEM 20 -- 'yes | convert --to csr'
  # a gzip bomb on disk: 300 MB of 'y' lines in about 1.4 MB, refused without inflating it all
  yes | head -c 300M | gzip -1 >"$T/bomb.gz"
  expect_fail_sh 65 "^pmf: $T/bomb\.gz: $missing\$" $MEM 20 -- "pmf '$T/bomb.gz'"
  # blank lines before the banner: still 'line 1', and an all-blank input is empty
  expect_fail_sh 65 "^pmf: stdin: $missing\$" $MEM 20 -- "(echo; echo '$banner'; echo '1 1 0') | pmf"
  expect_fail_sh 65 "^pmf: stdin: empty file\$" $MEM 20 -- "printf '  \n\n \n' | pmf"
  # valid input still reads through every path, including gzip members arriving in pieces
  { echo "$banner"; echo "3 3 3"; echo "1 1 1.5"; echo "2 2 2.5"; echo "3 1 -1"; } >"$T/a.mtx"
  head -c 60 "$T/a.mtx" | gzip >"$T/two.gz"
  tail -c +61 "$T/a.mtx" | gzip >>"$T/two.gz"
  convert --to mtx "$T/a.mtx" >"$T/ref.mtx"
  for how in "pmf '$T/a.mtx'" "pmf <'$T/a.mtx'" "pmf '$T/two.gz'" "pmf <'$T/two.gz'" \
             "cat '$T/two.gz' | pmf" "(head -c 20 '$T/two.gz'; sleep 0.2; tail -c +21 '$T/two.gz') | pmf"; do
    expect_ok_sh $MEM 20 -- "$how | convert --to mtx | cmp -s - '$T/ref.mtx'"
  done
  printf 'garbage' >>"$T/two.gz"
  expect_fail_sh 65 "^pmf: stdin: gzip: trailing garbage after the compressed data\$" $MEM 20 -- "pmf <'$T/two.gz'"
  ;;
# mm_gz_trailer_lies: the size trailer of a 280-byte .mtx.gz was trusted and 4 GiB reserved for
# the text; it is a guess believed only up to deflate's largest ratio (1032:1).
mm_gz_trailer_lies)
  gzip -c "$RVS_DATA/pmf20.mtx" >"$T/ok.gz"
  n=$(wc -c <"$T/ok.gz")
  { head -c $((n - 4)) "$T/ok.gz"; printf '\377\377\377\377'; } >"$T/lie.gz"
  expect_fail_sh 65 "^pmf: $T/lie\.gz: gzip: incorrect length check\$" $MEM 20 -- "pmf '$T/lie.gz'"
  expect_fail_sh 65 "^pmf: stdin: gzip: incorrect length check\$" $MEM 20 -- "pmf <'$T/lie.gz'"
  convert --to mtx "$RVS_DATA/pmf20.mtx" >"$T/ref.mtx"
  expect_ok_sh $MEM 20 -- "pmf '$T/ok.gz' | convert --to mtx | cmp -s - '$T/ref.mtx'"
  ;;
# spmv_wide_columns: spmv allocated x for a 2^31-column matrix (16 GB and more) before it
# refused 64-bit column indices, and was killed for memory; it refuses first now.
spmv_wide_columns)
  printf '%s\n1 2147483648 1\n1 1 1\n' "$banner" >"$T/wide.mtx"
  re="2147483648 columns need 64-bit column indices, which spmv does not hold\$"
  expect_fail_sh 65 "^spmv: $T/wide\.mtx: $re" 1000 60 -- "spmv --cpu '$T/wide.mtx'"
  expect_fail_sh 65 "^spmv: stdin: $re" 1000 60 -- "pmf '$T/wide.mtx' | spmv --cpu"
  ;;
# nan_inf_convert_round_trip: a stream could carry NaN or Inf (spgemm overflow) that Matrix Market
# input refused, so `convert --to mtx` wrote a file rvskit could not read back. Values are now
# what strtod reads, NaN and Inf included, and the checks of spmv and spgemm accept them.
nan_inf_convert_round_trip)
  printf '%s\n2 2 3\n1 1 1e300\n2 2 -1e300\n1 2 0\n' "$banner" >"$T/big.mtx"
  expect_ok_sh 2000 20 -- "spgemm --cpu --check '$T/big.mtx' -o '$T/c.rvs' >/dev/null"
  expect_ok_sh $MEM 20 -- "convert --to mtx '$T/c.rvs' >'$T/c.mtx'"
  expect_eq "C holds Inf" "$(grep -c '^[12] [12] inf$' "$T/c.mtx")" 2
  expect_ok_sh $MEM 20 -- "pmf '$T/c.mtx' | convert --to mtx | cmp -s - '$T/c.mtx'"
  for f in nan inf; do
    expect_ok_sh $MEM 20 -- "spmv --cpu --check '$RVS_DATA/$f.mtx' >/dev/null"
    expect_ok_sh 2000 20 -- "spgemm --cpu --check '$RVS_DATA/$f.mtx' -o /dev/null >/dev/null"
    expect_ok_sh $MEM 20 -- "pmf '$RVS_DATA/$f.mtx' | convert --to mtx | pmf | convert --to mtx | cmp -s - <(convert --to mtx '$RVS_DATA/$f.mtx')"
  done
  ;;
# mm_huge_rows_oom_killed: a valid 4-line file declaring 2x10^9+1 rows and one entry got pmf and
# convert killed by the kernel (exit 137, nothing said) after 50 s: the size check counted one
# array of row pointers, building the CSR holds three. Claims now count what the build holds.
mm_huge_rows_oom_killed)
  printf '%s\n2000000001 1 1\n1 1 1\n' "$banner" >"$T/rows.mtx"
  re="2000000001 rows need 32\\.0 GB, more than the [0-9.]+ [kMG]B of memory available\$"
  expect_fail_sh 65 "^pmf: $T/rows\.mtx: $re" 4000 30 -- "pmf '$T/rows.mtx'"
  expect_fail_sh 65 "^pmf: stdin: $re" 4000 30 -- "pmf <'$T/rows.mtx'"
  expect_fail_sh 65 "^convert: $T/rows\.mtx: $re" 4000 30 -- "convert --to csr '$T/rows.mtx'"
  # a million rows fit, and are read
  printf '%s\n1000000 1 1\n1000000 1 1\n' "$banner" >"$T/rows1m.mtx"
  expect_ok_sh 4000 30 -- "pmf '$T/rows1m.mtx' | convert --to mtx | cmp -s - '$T/rows1m.mtx'"
  ;;
# spmv_x_claim: a stream of 1 x 2x10^9 (32-bit indices) made spmv fill 32 GB for x and y
spmv_x_claim)
  printf '%s\n1 2000000000 1\n1 1 1\n' "$banner" >"$T/cols.mtx"
  expect_fail_sh 65 "^spmv: $T/cols\.mtx: x and y need 16\.0 GB, more than the [0-9.]+ [kMG]B of memory available\$" 4000 30 -- "spmv --cpu '$T/cols.mtx'"
  ;;
# spmv_xy_claim_bytes: "x and y need 34.4 GB" for x and y of 17.2 GB (2^31-1 columns, one row):
# the claim counted 16 bytes a value; a real x and y hold 8 (a complex one 16).
spmv_xy_claim_bytes)
  printf '%s\n1 2147483647 1\n1 1 1\n' "$banner" >"$T/cols.mtx"
  expect_fail_sh 65 "^spmv: $T/cols\.mtx: x and y need 17\.2 GB, more than the [0-9.]+ [kMG]B of memory available\$" 4000 30 -- "spmv --cpu '$T/cols.mtx'"
  printf '%%%%MatrixMarket matrix coordinate complex general\n1 2147483647 1\n1 1 1 0\n' >"$T/ccols.mtx"
  expect_fail_sh 65 "^spmv: $T/ccols\.mtx: x and y need 34\.4 GB, more than the [0-9.]+ [kMG]B of memory available\$" 4000 30 -- "spmv --cpu '$T/ccols.mtx'"
  ;;
# input_not_regular: Matrix Market through a path that is not a regular file (process
# substitution, /dev/stdin on a pipe, a named FIFO) was read 4 KiB to tell its type, then opened
# again by its path: "empty file", "missing banner", or a hang on the FIFO (pmf, partition,
# convert, spmv, spgemm). Every program reads such an input in one forward pass, as stdin.
input_not_regular)
  mtx=$RVS_DATA/pmf20.mtx
  pmf "$mtx" >"$T/a.rvs"
  gzip -c "$mtx" >"$T/a.mtx.gz"
  convert --to mtx "$mtx" >"$T/ref.mtx"
  spmv --cpu -y - "$mtx" >"$T/y.mtx" 2>/dev/null
  spgemm --cpu "$mtx" -o "$T/c.mtx" >/dev/null
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
  mpi=""
  command -v spmv-mpi >/dev/null 2>&1 && mpi=1
  # the same input through each kind of path: IN is replaced by it (F: the file fed through)
  for f in "$mtx" "$T/a.rvs" "$T/a.mtx.gz"; do
    for how in "<(cat 'F')" "/dev/stdin < <(cat 'F')" "FIFO"; do
      for cmd in "pmf IN | convert --to mtx | cmp -s - '$T/ref.mtx'" \
                 "partition --alg rows --cp 1,1 IN | convert --to mtx | cmp -s - '$T/ref.mtx'" \
                 "convert --to mtx IN | cmp -s - '$T/ref.mtx'" \
                 "spmv --cpu -y - IN 2>/dev/null | cmp -s - '$T/y.mtx'" \
                 "spgemm --cpu IN '$mtx' -o '$T/c2.mtx' >/dev/null && cmp -s '$T/c2.mtx' '$T/c.mtx'" \
                 "rvsinfo --json IN | grep -q '\"valid\":true,.*\"nnz\":117,'" \
                 ${mpi:+"spmv-mpi --cpu -y - IN 2>/dev/null | cmp -s - '$T/y.mtx'"}; do
        rm -f "$T/fifo"
        if [ "$how" = FIFO ]; then
          mkfifo "$T/fifo"
          (timeout 30 cat "$f" >"$T/fifo" 2>/dev/null &)
          in="'$T/fifo'"
        else
          in=${how//F/$f}
        fi
        expect_ok_sh 4000 30 -- "${cmd//IN/$in}"
      done
    done
  done
  # both operands of spgemm through pipes, and x of spmv
  expect_ok_sh 4000 30 -- "spgemm --cpu <(cat '$mtx') <(cat '$T/a.rvs') -o '$T/c3.mtx' >/dev/null && cmp -s '$T/c3.mtx' '$T/c.mtx'"
  printf '%%%%MatrixMarket matrix array real general\n20 1\n' >"$T/x.mtx"
  seq 20 >>"$T/x.mtx"
  spmv --cpu -x "$T/x.mtx" -y - "$mtx" >"$T/yx.mtx" 2>/dev/null
  expect_ok_sh 4000 30 -- "spmv --cpu -x <(cat '$T/x.mtx') -y - <(cat '$mtx') 2>/dev/null | cmp -s - '$T/yx.mtx'"
  # files of /proc and /sys (a size of 0, or 4096 whatever they hold): read forward, refused as
  # what they are
  for f in /proc/self/status /sys/kernel/uevent_seqnum; do
    [ -r "$f" ] || continue
    for p in pmf "partition --cp 1,1" "convert --to csr" "spmv --cpu" "spgemm --cpu" rvsinfo; do
      if [ "$p" = rvsinfo ]; then
        rvsinfo "$f" >/dev/null 2>"$T/err"
        expect_eq "rvsinfo $f" "$?: $(cat "$T/err")" "65: rvsinfo: $f: $missing"
      else
        expect_fail_sh 65 "^${p%% *}: $f: $missing\$" 4000 30 -- "$p '$f'"
      fi
    done
  done
  ;;
# input_buf_mmap_fails: rvsinfo kept the file's size after mmap failed (a /sys file, or an address
# space limit) and read into NULL + size: a wild-pointer write, then "Bad address" (74). It reads
# the file instead, or says it is out of memory (70).
input_buf_mmap_fails)
  f=/sys/kernel/uevent_seqnum
  if [ -r "$f" ]; then
    rvsinfo "$f" >/dev/null 2>"$T/err"
    expect_eq "rvsinfo $f" "$?: $(cat "$T/err")" "65: rvsinfo: $f: $missing"
  fi
  if [ "${RVS_SANITIZED:-OFF}" != ON ]; then
    rvsgen stencil7 60 -o "$T/s.rvs"
    # from the smallest limit the program starts under (its libraries mapped) up to one where
    # the stream fits, in steps of 5 MB: read, or out of memory; never a wild read
    mb=100
    while [ $mb -lt 4000 ] && ! (ulimit -v $((mb * 1024)); rvsinfo --version) >/dev/null 2>&1; do mb=$((mb + 10)); done
    for _ in $(seq 40); do
      (ulimit -v $((mb * 1024)); OMP_NUM_THREADS=1 rvsinfo "$T/s.rvs" >/dev/null 2>"$T/err")
      st=$?
      case "$st:$(cat "$T/err")" in
        0:) ok; break ;;
        "70:rvsinfo: $T/s.rvs: "*"out of memory"*) ok ;;
        *) bad "rvsinfo under ulimit -v ${mb}M: status $st, $(cat "$T/err")" ;;
      esac
      mb=$((mb + 5))
    done
  fi
  ;;
# mm_hermitian_complex_diagonal: a hermitian file whose diagonal entry was 1+2i (a hermitian
# matrix has a real diagonal) was read without a word and written back as complex general. It
# is kept as read, as scipy and fast_matrix_market keep it, with a warning, as for a skew one.
mm_hermitian_complex_diagonal)
  printf '%%%%MatrixMarket matrix coordinate complex hermitian\n3 3 4\n1 1 1 2\n2 1 3 4\n2 2 5 0\n3 3 6 -1\n' >"$T/h.mtx"
  pmf "$T/h.mtx" >"$T/h.rvs" 2>"$T/err" || bad "pmf"
  expect_eq "warning" "$(cat "$T/err")" \
    "pmf: $T/h.mtx: warning: line 3: hermitian file with 2 diagonal entries not real: kept as read, as scipy and fast_matrix_market do"
  convert --to mtx "$T/h.rvs" >"$T/h2.mtx" 2>"$T/err" || bad "convert"
  expect_eq "written back general" "$(head -1 "$T/h2.mtx")" "%%MatrixMarket matrix coordinate complex general"
  expect_eq "the entries as read" "$(grep -c . "$T/h2.mtx")" "7"
  # an array file: its diagonal is listed too
  printf '%%%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n2 3\n4 0.5\n' >"$T/ha.mtx"
  pmf "$T/ha.mtx" >/dev/null 2>"$T/err" || bad "pmf array"
  expect_eq "array warning" "$(cat "$T/err")" \
    "pmf: $T/ha.mtx: warning: line 5: hermitian file with 1 diagonal entry not real: kept as read, as scipy and fast_matrix_market do"
  # a real diagonal: no warning, written back hermitian
  printf '%%%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 3 4\n' >"$T/ok.mtx"
  pmf "$T/ok.mtx" >"$T/ok.rvs" 2>"$T/err" || bad "pmf real diagonal"
  expect_eq "no warning" "$(cat "$T/err")" ""
  expect_eq "hermitian kept" "$(convert --to mtx "$T/ok.rvs" | head -1)" "%%MatrixMarket matrix coordinate complex hermitian"
  ;;
*) echo "regress_input.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
finish
