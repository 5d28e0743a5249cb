# spgemm_bad.sh - spgemm refuses bad input with one line, the right status and an empty stdout
. "$RVS_SRC/tests/lib/common.sh"

printf '%%%%MatrixMarket matrix coordinate real general\n5 7 2\n1 1 1.5\n5 7 2\n' >"$T/A.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n6 3 1\n2 3 1\n' >"$T/B.mtx"
printf 'this is not a matrix\n' >"$T/junk.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 2\n' >"$T/range.mtx"

expect_fail 65 '^spgemm: .*B\.mtx: dimension mismatch: A is 5 x 7, B is 6 x 3$' -- spgemm --cpu "$T/A.mtx" "$T/B.mtx"
expect_fail 65 '^spgemm: .*A\.mtx: dimension mismatch: A is 5 x 7, B is 5 x 7$' -- spgemm --cpu "$T/A.mtx"
expect_fail 66 '^spgemm: .*nosuch\.mtx: ' -- spgemm --cpu "$T/nosuch.mtx"
expect_fail 66 '^spgemm: .*nosuch\.mtx: ' -- spgemm --cpu "$T/B.mtx" "$T/nosuch.mtx"
expect_fail 65 '^spgemm: .*junk\.mtx: ' -- spgemm --cpu "$T/junk.mtx"
expect_fail 65 '^spgemm: .*range\.mtx: line 4: row index 4 out of range' -- spgemm --cpu "$T/range.mtx"

# a stream cut short (an upstream program died) is an error, never a smaller matrix
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 1\n2 3 2\n4 4 3\n' >"$T/sq.mtx"
spgemm --cpu "$T/sq.mtx" -o "$T/sq.rvs" >/dev/null 2>&1
size=$(wc -c <"$T/sq.rvs")
head -c $((size - 20)) "$T/sq.rvs" >"$T/cut.rvs"
expect_fail 65 '^spgemm: .*cut\.rvs: ' -- spgemm --cpu "$T/cut.rvs"
expect_fail_in 65 '^spgemm: stdin: ' "$T/cut.rvs" -- spgemm --cpu -
# a flipped byte inside a chunk: CRC mismatch
cp "$T/sq.rvs" "$T/flip.rvs"
printf '\377' | dd of="$T/flip.rvs" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_fail 65 '^spgemm: .*flip\.rvs: ' -- spgemm --cpu "$T/flip.rvs"

# usage errors
expect_fail 64 '^spgemm: .*' -- spgemm --cpu - -
expect_fail 64 '^spgemm: .*' -- spgemm --bogus "$T/sq.mtx"
expect_fail 64 '^spgemm: .*precision' -- spgemm --precision f16 "$T/sq.mtx"
expect_fail 64 '^spgemm: .*gpu-mem' -- spgemm --gpu-mem lots "$T/sq.mtx"
expect_fail 64 '^spgemm: .*method' -- spgemm --method fastest "$T/sq.mtx"
expect_fail 64 '^spgemm: .*' -- spgemm "$T/sq.mtx" "$T/sq.mtx" "$T/sq.mtx"

# no partial file is left behind by a failed run
expect_fail 65 'dimension mismatch' -- spgemm --cpu "$T/A.mtx" "$T/B.mtx" -o "$T/never.mtx"
if [ -e "$T/never.mtx" ]; then bad "partial output file left"; else ok; fi

# without a GPU, --gpu says so
if [ "$(spgemm --cpu "$T/sq.mtx" -o "$T/x.mtx" | awk '$1 == "device" {print $2}')" = cpu ] &&
   ! nvidia-smi >/dev/null 2>&1; then
  expect_fail 69 '^spgemm: .*(CUDA|GPU|device)' -- spgemm --gpu "$T/sq.mtx" -o "$T/y.mtx"
fi
finish
