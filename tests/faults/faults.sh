# faults.sh - fault tests as a table: full disk, closed pipe, read-only directory, bad gzip,
# endless input, an upstream cut at random points, huge and negative options, spoiled
# partitions and format blocks (GPU switches out of range). Each row runs its command under a
# memory limit (ulimit -v) and a time limit and wants its exit status, exactly one stderr line
# matching the message, and nothing on stdout.
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/fault.sh"
for p in pmf partition convert spmv spgemm tests/stream_edit; do
  [ -x "$RVS_BIN/$p" ] || { echo "$p is not built: skipped"; exit 77; }
done
export T
A=$RVS_DATA/pmf20.mtx
B=$T/big.rvs               # a stream of 5 MB: more than any pipe holds
rvsgen -o "$T/big.mtx" stencil7 30 && pmf "$T/big.mtx" >"$B" || { bad "cannot make the inputs"; finish; }
partition --cp 1,2,6 "$A" >"$T/part.rvs"
for m in overlap miss outside; do "$RVS_BIN/tests/stream_edit" $m "$T/part.rvs" "$T/$m.rvs"; done
# format blocks whose GPU switches (CSR entry order and value coding, DIA and HYB-DIA slot coding)
# are neither 0 nor 1
convert --to csr "$A" >"$T/csr.rvs" && convert --to dia "$T/big.mtx" >"$T/dia.rvs" &&
  convert --to hyb-dia "$T/big.mtx" >"$T/hybdia.rvs" || bad "cannot make the format streams"
"$RVS_BIN/tests/stream_edit" param=2:5 "$T/csr.rvs" "$T/csr-order.rvs"
"$RVS_BIN/tests/stream_edit" param=3:-1 "$T/csr.rvs" "$T/csr-values.rvs"
"$RVS_BIN/tests/stream_edit" param=2:2 "$T/dia.rvs" "$T/dia-values.rvs"
"$RVS_BIN/tests/stream_edit" param=3:7 "$T/hybdia.rvs" "$T/hybdia-values.rvs"
gzip -c "$A" >"$T/a.gz"
head -c $(($(wc -c <"$T/a.gz") - 9)) "$T/a.gz" >"$T/cut.gz"
cp "$T/a.gz" "$T/bad.gz"
printf 'XXXXXXXX' | dd of="$T/bad.gz" bs=1 seek=40 conv=notrunc 2>/dev/null
# a read-only directory: root writes anywhere, so root runs those rows as nobody
mkdir "$T/ro"
chmod 755 "$T"
chmod 555 "$T/ro"
asuser=""
[ "$(id -u)" -eq 0 ] && asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
export A B asuser

# row STATUS MB 'MESSAGE (regex after "prog: ")' 'COMMAND'
row() { expect_fail_sh "$1" "^[a-z]+: $3\$" "$2" 60 -- "$4"; }
nospace='.*No space left on device'
pipe='stdout: write (failed: Broken pipe|error: broken pipe \(the reading program ended\))'
ro='cannot create [^ ]*/ro/[a-z.]*: Permission denied'
truncated='.*(truncated|without an end chunk|missing banner|empty input).*'

# full disk
row 74 1000 "stdout: $nospace"                   'pmf "$A" >/dev/full'
row 74 1000 "stdout: (write error|$nospace)"     'pmf --table "$A" >/dev/full'
row 74 1000 "stdout: $nospace"                   'partition --cp 1,2 "$A" >/dev/full'
row 74 1000 "stdout: (write error|$nospace)"     'partition -r --cp 1,2 "$A" >/dev/full'
row 74 1000 "stdout: $nospace"                   'convert --to hyb "$A" >/dev/full'
row 74 1000 "stdout: $nospace"                   'convert --to mtx "$A" >/dev/full'
row 74 1000 "write error on stdout"              'spmv --cpu "$A" >/dev/full'
row 74 1000 "/dev/full: $nospace"                'spmv --cpu -y /dev/full "$A"'
row 74 2000 "/dev/full: $nospace"                'spgemm --cpu "$A" -o /dev/full'
row 74 1000 "/dev/full: $nospace"                'pmf -o /dev/full "$A"'
# a closed pipe downstream
row 74 1000 "$pipe"                              'pmf "$B" | head -c 1 >/dev/null'
row 74 1000 "$pipe"                              'partition --cp 1,2 "$B" | head -c 1 >/dev/null'
row 74 1000 "$pipe"                              'convert --to csr "$B" | head -c 1 >/dev/null'
row 74 1000 ".*([Bb]roken pipe.*)"              'convert --to mtx "$B" | head -c 1 >/dev/null'
row 74 1000 ".*([Bb]roken pipe.*)"              'spmv --cpu -y - "$B" | head -c 1 >/dev/null'
row 74 2000 "$pipe"                              'spgemm --cpu "$T/big.mtx" | head -c 1 >/dev/null'
# a read-only directory
row 74 1000 "[^ ]*/ro/x.rvs: $ro"                '$asuser pmf -o "$T/ro/x.rvs" "$A"'
row 74 1000 "[^ ]*/ro/x.rvs: $ro"                '$asuser partition --cp 1,2 -o "$T/ro/x.rvs" "$A"'
row 74 1000 "[^ ]*/ro/x.mtx: $ro"                '$asuser convert --to mtx -o "$T/ro/x.mtx" "$A"'
row 74 1000 "[^ ]*/ro/y.mtx: $ro"                '$asuser spmv --cpu -y "$T/ro/y.mtx" "$A"'
row 74 2000 "[^ ]*/ro/c.mtx: $ro"                '$asuser spgemm --cpu "$A" -o "$T/ro/c.mtx"'
# truncated and corrupt gzip, by file and by stdin
row 65 1000 "[^ ]*/cut.gz: gzip: compressed data ends early" 'pmf "$T/cut.gz"'
row 65 1000 "stdin: gzip: compressed data ends early"        'pmf <"$T/cut.gz"'
row 65 1000 "[^ ]*/bad.gz: gzip: .*"                         'pmf "$T/bad.gz"'
row 65 1000 "stdin: gzip: .*"                                'convert --to csr <"$T/bad.gz"'
# endless input that is not a matrix
for p in pmf partition "convert --to csr" "spmv --cpu" "spgemm --cpu"; do
  row 65 2000 "stdin: line 1: missing banner .*" "yes | $p"
done
# an upstream killed: the downstream sees the stream cut at some byte (seeded points)
RANDOM=14
size=$(wc -c <"$B")
for i in 1 2 3 4 5 6; do
  cut=$(( (RANDOM * 32768 + RANDOM) % size ))
  for p in pmf "partition --cp 1,2" "convert --to coo" "spmv --cpu"; do
    row 65 1000 "stdin: $truncated" "head -c $cut \"\$B\" | $p"
  done
done
# an upstream that writes part of its stream and is killed, for real, by SIGKILL
row 65 1000 "stdin: $truncated" '(head -c 300000 "$B"; kill -9 $BASHPID) 2>/dev/null | partition --cp 1,2'
row 65 1000 "stdin: $truncated" 'pmf "$T/big.mtx" 2>/dev/null | (head -c 200000; kill -9 $BASHPID) 2>/dev/null | convert --to ell'
# huge and negative option values
row 64 1000 "--threads: '-1' is not an integer in 1\.\.[0-9]+ .*"        'spmv --cpu -t -1 "$A"'
row 64 1000 "--iters: '99999999999999999999' is not an integer .*"      'spmv --cpu -n 99999999999999999999 "$A"'
row 64 1000 "--cp: computing power 1 of '-1,2' is not a positive number .*"  'partition --cp -1,2 "$A"'
row 64 1000 "--cp: computing power 1 of '1e400' is not a positive number .*" 'partition --cp 1e400 "$A"'
row 64 1000 "--block-size: '-5' is not an integer .*"                   'partition --alg diag --block-size -5 --cp 1,2 "$A"'
row 64 1000 "--block-size: '9223372036854775807' is not an integer .*"  'partition --alg diag --block-size 9223372036854775807 --cp 1,2 "$A"'
row 64 1000 "--hyb-k: '-7' is not an integer .*"                        'convert -k -7 --to hyb "$A"'
row 64 1000 "--hcc-np: '9223372036854775807' is not an integer .*"      'convert --hcc-np 9223372036854775807 --to hcc "$A"'
row 64 2000 "--gpu-mem: '-1' is not a size in bytes .*"                 'spgemm --cpu --gpu-mem -1 "$A"'
row 64 2000 "--block-products: '-5' is not an integer .*"               'spgemm --cpu --block-products -5 "$A"'
# more threads than the address-space limit leaves room for stacks: libgomp ended the process
# (status 1, its own two lines); -t is refused, and the default count is lowered to fit
if [ "${RVS_SANITIZED:-OFF}" != ON ]; then
  row 64 1000 "--threads: 4096 threads do not fit the address-space limit \(ulimit -v\): at most [0-9]+ .*" 'spmv --cpu -t 4096 "$A"'
  expect_ok_sh 1000 60 -- 'OMP_NUM_THREADS=4096 pmf "$A" | OMP_NUM_THREADS=4096 spmv --cpu --check >/dev/null'
fi
# a dense x (-x FILE) larger than the memory available
printf '%%%%MatrixMarket matrix coordinate real general\n1 2000000000 1\n1 1 1\n' >"$T/x.mtx"
row 65 1000 "[^ ]*/x\.mtx: the values of a dense 1 x 2000000000 array need 16\.0 GB, more than the .* of memory available" \
  'spmv --cpu -x "$T/x.mtx" "$A"'
# partitions whose row sets overlap, miss a row, or name a row outside the matrix
for p in pmf "partition --cp 1,2" "convert --to coo" "spmv --cpu"; do
  row 65 1000 "[^ ]*/overlap.rvs: chunk 'PART': partition: row [0-9]+ is in two parts .*" "$p \"\$T/overlap.rvs\""
  row 65 1000 "[^ ]*/miss.rvs: chunk 'PART': partition: parts 1\.\.3 cover 19 of 20 rows"  "$p \"\$T/miss.rvs\""
  row 65 1000 "[^ ]*/outside.rvs: chunk 'PART': partition: part 1: row index 20 out of range 0..19" "$p \"\$T/outside.rvs\""
done
# format blocks with a GPU switch out of range
block="[^ ]*/%s.rvs: format block 1 \\(%s, the whole matrix\\): %s: %s"
for p in "spmv --cpu" "convert --to mtx" "partition --cp 1,2"; do
  row 65 1000 "$(printf "$block" csr-order csr csr 'entry order 5 is not 0 .*')" "$p \"\$T/csr-order.rvs\""
  row 65 1000 "$(printf "$block" csr-values csr csr 'value coding -1 is not 0 .*')" "$p \"\$T/csr-values.rvs\""
  row 65 1000 "$(printf "$block" dia-values dia dia 'slot coding 2 is not 0 .*')" "$p \"\$T/dia-values.rvs\""
  row 65 1000 "$(printf "$block" hybdia-values hyb-dia hyb-dia 'slot coding 7 is not 0 .*')" "$p \"\$T/hybdia-values.rvs\""
done
finish
