# pipeline.sh - programs joined by real pipes: success, upstream failure, truncation, closed pipe
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx

# the bare pipeline users type first
pmf < "$M" | partition --alg pmf | spmv --cpu --check > "$T/spmv.out" 2> "$T/spmv.err"
expect_eq "bare pipeline" "${PIPESTATUS[*]}" "0 0 0"
# the card's pipeline with explicit CP, formats and hybrid run (GPU parts fall back when absent)
pmf "$M" | partition --alg pmf --cp 75,75,1,1,1,1,1 | convert --gpu-format ellr --cpu-format csr | spmv --cpu --check > "$T/o" 2> "$T/e"
expect_eq "card pipeline" "${PIPESTATUS[*]}" "0 0 0 0"

# a downstream program fails when its upstream fails, and writes nothing
pmf "$T/missing.mtx" 2>/dev/null | partition --alg rows > "$T/out" 2> "$T/err"
st=${PIPESTATUS[1]}
[ "$st" -eq 65 ] && ok || bad "partition after failed pmf: status $st"
[ -s "$T/out" ] && bad "partition after failed pmf wrote output" || ok
grep -q "partition: stdin: empty input" "$T/err" && ok || bad "message: $(cat "$T/err")"

# a stream cut short anywhere is an error downstream, never a smaller matrix
pmf "$M" > "$T/full.rvs"
size=$(stat -c %s "$T/full.rvs")
for cut in 8 16 20 40 100 $((size / 2)) $((size - 20)) $((size - 1)); do
  head -c "$cut" "$T/full.rvs" > "$T/cut.rvs"
  expect_fail_in 65 "partition: stdin: .*(truncat|end chunk)" "$T/cut.rvs" -- partition --alg rows
done
# a flipped byte is a checksum error
cp "$T/full.rvs" "$T/flip.rvs"
printf '\x55' | dd of="$T/flip.rvs" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_fail_in 65 "partition: stdin: .*(CRC|checksum)" "$T/flip.rvs" -- partition --alg rows

# a closed pipe: the writer reports an I/O error (74) instead of dying silently
if have_matrices; then
  pmf "$RVS_MATRICES/memplus.mtx" 2> "$T/pipe.err" | head -c 10 > /dev/null
  st=${PIPESTATUS[0]}
  [ "$st" -eq 74 ] && ok || bad "pmf into a closed pipe: status $st"
  grep -Eq "^pmf: stdout: .*(Broken pipe|write)" "$T/pipe.err" && ok || bad "closed pipe message: $(cat "$T/pipe.err")"
fi

# -o writes a file only on success
pmf -o "$T/ok.rvs" "$M" && [ -s "$T/ok.rvs" ] && ok || bad "pmf -o"
pmf -o "$T/never.rvs" "$T/missing.mtx" 2>/dev/null
[ -e "$T/never.rvs" ] && bad "pmf -o left a file after failing" || ok
ls "$T" | grep -q '\.tmp\.' && bad "temporary file left behind" || ok

# -o onto something that is not a regular file (a FIFO here, /dev/null in practice) writes
# into it rather than renaming a temporary file over it
mkfifo "$T/fifo"
cat "$T/fifo" > "$T/fromfifo" &
pmf -o "$T/fifo" "$M"
wait
[ -p "$T/fifo" ] && ok || bad "pmf -o FIFO replaced the FIFO"
cmp -s "$T/fromfifo" "$T/ok.rvs" && ok || bad "pmf -o FIFO: other bytes than pmf -o FILE"

# on a terminal, a summary instead of binary
if command -v script >/dev/null; then
  script -qc "$RVS_BIN/pmf $M" /dev/null > "$T/tty.out" 2>&1
  grep -q "rows *20" "$T/tty.out" && ok || bad "terminal summary: $(head -c 200 "$T/tty.out")"
  grep -q "ELL density *45.0%" "$T/tty.out" && ok || bad "terminal summary ELL density"
fi
finish
