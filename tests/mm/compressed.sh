# compressed.sh - compressed Matrix Market input through the programs: .bz2, .xz, .zst (and
# .gz) read by magic bytes from a file and from stdin, concatenated streams as one input, and
# truncated, corrupt or foreign-tailed input refused (65, one line, nothing on stdout). The
# arguments name the formats this build decodes; a format it lacks must say "unsupported
# compression". Files are compressed here by the commands (skipped one by one where absent)
# and read from data/compressed/ (made by them once: the checks of a build without a command).
. "$RVS_SRC/tests/lib/common.sh"
command -v convert >/dev/null 2>&1 || { echo "convert not built: skipped"; exit 77; }
built=" $* "
plain=$RVS_DATA/pmf20.mtx
want=$(convert --to mtx "$plain") || { bad "convert of the plain file"; finish; }

# codec command suffix library
for c in "bzip2 bzip2 bz2 libbz2" "xz xz xz liblzma" "zstd zstd zst libzstd"; do
  set -- $c
  name=$1 cmd=$2 suf=$3 lib=$4
  fixture=$RVS_DATA/compressed/pmf20.mtx.$suf
  if [[ $built != *" $name "* ]]; then
    msg="unsupported compression: $name \\(rvskit was built without $lib; decompress the input first\\)"
    expect_fail 65 "^pmf: $fixture: $msg\$" -- pmf "$fixture"
    expect_fail_in 65 "^pmf: stdin: $msg\$" "$fixture" -- pmf -
    echo "$name: not built: the unsupported-compression message checked"
    continue
  fi
  # the stored fixture, by file and by stdin
  expect_eq "$name fixture" "$(convert --to mtx "$fixture")" "$want"
  expect_eq "$name fixture, stdin" "$(convert --to mtx - <"$fixture")" "$want"
  # the inspector and spmv's -x read it the same way
  expect_eq "$name rvsinfo" "$(rvsinfo "$fixture" | sed -n 's/^source  *//p')" "Matrix Market coordinate real general"
  expect_eq "$name rvsinfo, stdin" "$(rvsinfo - <"$fixture" | sed -n 's/^verdict  *//p')" "valid"
  if command -v "$cmd" >/dev/null 2>&1; then
    { echo "%%MatrixMarket matrix array real general"; echo "20 1"; seq 1.5 1 20.5; } >"$T/x.mtx"
    "$cmd" -c "$T/x.mtx" >"$T/x.$suf"
    spmv --cpu -n 1 -x "$T/x.mtx" -y "$T/y1.mtx" "$plain" >/dev/null 2>&1 &&
      spmv --cpu -n 1 -x "$T/x.$suf" -y "$T/y2.mtx" "$plain" >/dev/null 2>&1 && cmp -s "$T/y1.mtx" "$T/y2.mtx" &&
      ok || bad "$name: spmv -x of a compressed vector"
  fi
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "$name: no '$cmd' command: round trips skipped"
    continue
  fi
  # a real matrix (or the hand-made one) compressed by the command: the same matrix
  src=$plain
  have_matrices && [ -f "$RVS_MATRICES/bcsstk13.mtx" ] && src=$RVS_MATRICES/bcsstk13.mtx
  ref=$(convert --to mtx "$src" | md5sum)
  "$cmd" -c <"$src" >"$T/m.$suf"
  expect_eq "$name round trip, file" "$(convert --to mtx "$T/m.$suf" | md5sum)" "$ref"
  expect_eq "$name round trip, stdin" "$(convert --to mtx - <"$T/m.$suf" | md5sum)" "$ref"
  # two streams back to back, cut inside a line: one input
  head -c 1000 "$src" | "$cmd" -c >"$T/cat.$suf"
  tail -c +1001 "$src" | "$cmd" -c >>"$T/cat.$suf"
  expect_eq "$name concatenated" "$(convert --to mtx "$T/cat.$suf" | md5sum)" "$ref"
  expect_eq "$name concatenated, stdin" "$(convert --to mtx - <"$T/cat.$suf" | md5sum)" "$ref"
  # truncated: the last 20 bytes gone
  head -c -20 "$T/m.$suf" >"$T/short.$suf"
  expect_fail 65 "^pmf: $T/short\\.$suf: $name: compressed data ends early\$" -- pmf "$T/short.$suf"
  expect_fail_in 65 "^pmf: stdin: $name: compressed data ends early\$" "$T/short.$suf" -- pmf -
  # corrupt: 8 bytes in the middle overwritten (each format's checksum catches it)
  cp "$T/m.$suf" "$T/bad.$suf"
  size=$(wc -c <"$T/bad.$suf")
  printf 'XXXXXXXX' | dd of="$T/bad.$suf" bs=1 seek=$((size / 2)) conv=notrunc status=none
  expect_fail 65 "^pmf: $T/bad\\.$suf: $name: " -- pmf "$T/bad.$suf"
  expect_fail_in 65 "^pmf: stdin: $name: " "$T/bad.$suf" -- pmf -
  # regression (a corrupt small .bz2 was reported as "missing banner"): the codecs check a
  # block after its text has come out, so the reader lets the decoder finish the block before
  # it blames the text; corruption anywhere is the codec's error
  for at in 1 3 5 7; do
    cp "$T/m.$suf" "$T/bad$at.$suf"
    printf 'XXXXXXXX' | dd of="$T/bad$at.$suf" bs=1 seek=$((size * at / 8)) conv=notrunc status=none
    expect_fail 65 "^pmf: $T/bad$at\\.$suf: $name: " -- pmf "$T/bad$at.$suf"
    expect_fail_in 65 "^pmf: stdin: $name: " "$T/bad$at.$suf" -- pmf -
  done
  # bytes after the last stream that start none
  { cat "$T/m.$suf"; echo trailing; } >"$T/tail.$suf"
  expect_fail 65 "^pmf: $T/tail\\.$suf: $name: trailing garbage after the compressed data\$" -- pmf "$T/tail.$suf"
  # the output of a program reads back from a compressed file: convert writes, xz packs
  convert --to mtx "$src" | "$cmd" -c | pmf --json - >"$T/j" && ok || bad "$name through a pipe"
  echo "$name: round trips, concatenation, truncation, corruption checked"
done
finish
