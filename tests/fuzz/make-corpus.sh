#!/usr/bin/env bash
# make-corpus.sh BUILD - write the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
# from the programs in BUILD and the tiny matrices in data/. Seeds are named seed-*; inputs kept
# because they once found a defect are named after it and are never rewritten here.
set -euo pipefail
B=$(cd "${1:?usage: make-corpus.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
D=$here/../../data
C=$here/corpus
streams=(stream spmv stream_struct) # targets that read streams, and those that read Matrix Market
texts=(mm mm_tokens)
for t in "${streams[@]}" "${texts[@]}" mm_value; do mkdir -p "$C/$t"; done
rm -f "$C"/*/seed-*
cd "$(mktemp -d)"
trap 'rm -rf "$PWD"' EXIT

# streams: hub only, with pmfs, with each partition, and every format whole and per part
"$B/pmf" "$D/hyb4.mtx" >s-pmf-hyb4
"$B/convert" --to csr "$D/hyb4.mtx" >s-hub-csr-hyb4
for alg in rows nnz pmf; do "$B/partition" --alg $alg --cp 1,2,6 "$D/pmf20.mtx" >s-part-$alg; done
"$B/partition" --alg diag --block-size 4 --cp 1,2,6 "$D/pmf20.mtx" >s-part-diag
for f in csr coo ell ellr pellr biell jad hyb hyb-dia dia hcc; do
  "$B/convert" --to $f "$D/hyb4.mtx" >s-$f-hyb4
  "$B/convert" --to $f --precision f32 "$D/pellr26.mtx" >s-$f-f32-pellr26
  "$B/convert" --to $f --hcc-np 2 --hcc-nb 2 s-part-pmf >s-$f-parts
done
"$B/convert" --gpu-format hyb --cpu-format dia s-part-diag >s-mixed-diag
# an unknown ancillary chunk and the stream of a wide (64-bit index) matrix
printf '%%%%MatrixMarket matrix coordinate real general\n2 3000000000 2\n1 1 1\n2 2999999999 2\n' >wide.mtx
"$B/pmf" wide.mtx >s-wide
# streams whose Matrix Market source (mmhd chunk) was integer or pattern, symmetric or skew
printf '%%%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 1\n3 2 -7\n' >skewi.mtx
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n' >patsym.mtx
"$B/pmf" skewi.mtx >s-pmf-integer-skew
"$B/convert" --to ell patsym.mtx >s-ell-pattern-symmetric
# the advisor's decisions (an auto chunk; CPU trials, no trial cache), parts bound to processors
# (a plac chunk), complex values (c128, and c64 by --precision f32)
export XDG_CACHE_HOME=$PWD/cache
"$B/convert" --to auto --no-cache "$D/hyb4.mtx" >s-auto-hyb4
"$B/partition" --alg pmf --cp 1:cpu0,2:cpu1,6:cpu "$D/pmf20.mtx" >s-plac-cpu
"$B/convert" --cpu-format auto --no-cache s-plac-cpu >s-auto-plac-parts
"$B/partition" --alg nnz --cp 1:gpu0,1:gpu1 "$D/pmf20.mtx" >s-plac-gpu
printf '%%%%MatrixMarket matrix coordinate complex hermitian\n3 3 4\n1 1 2 0\n2 1 1 -1\n3 2 0.5 2\n3 3 -1 0\n' >herm.mtx
"$B/pmf" herm.mtx >s-pmf-complex
for f in csr ell hyb dia hcc; do "$B/convert" --to $f herm.mtx >s-$f-complex; done
"$B/convert" --to coo --precision f32 herm.mtx >s-coo-c64
for s in s-*; do
  for t in "${streams[@]}"; do cp "$s" "$C/$t/seed-${s#s-}"; done
done

# Matrix Market: first byte picks the path (0 buffer, 1 stdin, 2 file, 3 gzip'd) and the cut
mm() {
  local name=$1 mode=$2 file=$3
  for t in "${texts[@]}"; do { printf "\\$(printf %o "$mode")"; cat "$file"; } >"$C/$t/seed-$name"; done
}
b='%%MatrixMarket matrix'
printf '%s coordinate real symmetric\n%% c\n3 3 4\n1 1 4\n2 1 1.5e-3\n3 2 -2\n3 3 5\n' "$b" >sym.mtx
printf '%s coordinate integer skew-symmetric\n3 3 2\n2 1 1\n3 2 -7\n' "$b" >skew.mtx
printf '%s coordinate pattern general\n2 3 3\n1 3\n2 3\n1 1' "$b" >pat.mtx
printf '%s array real general\n3 2\n1\n0\n3\n0\n4\n0\n' "$b" >arr.mtx
printf '%s array real symmetric\r\n3 3\r\n1\r\n2\r\n0\r\n0\r\n5\r\n6\r\n' "$b" >arrsym.mtx
printf '%s coordinate real general\n2 2 3\n1 1 nan\n2 2 -inf\n1 2 0x1p-3\n' "$b" >special.mtx
n=0
for f in "$D/hyb4.mtx" "$D/pellr26.mtx" "$D/spgemm_a.mtx" sym.mtx skew.mtx pat.mtx arr.mtx arrsym.mtx special.mtx \
         "$D/bad/index_zero.mtx" "$D/bad/fewer_entries.mtx" "$D/bad/wrong_size_line.mtx"; do
  base=$(basename "$f" .mtx)
  mm "$base-buf" $(( (n % 16) * 4 )) "$f"
  mm "$base-stdin" 1 "$f"
  n=$((n + 1))
done
mm pmf20-buf8 28 "$D/pmf20.mtx"
mm pmf20-file 2 "$D/pmf20.mtx"
mm sym-gzip 3 sym.mtx
gzip -nc "$D/hyb4.mtx" >hyb4.gz
mm hyb4-gz-stdin 1 hyb4.gz
mm hyb4-gz-file 2 hyb4.gz

# value tokens
i=0
for v in 1.5 -2e-3 0.1 18446744073709551616 1.8446744073709551616 9007199254740993 4.9e-324 \
         2.2250738585072011e-308 1.7976931348623157e308 1e400 -0 nan -Infinity 0x1.8p3 \
         123456789012345678901234567890e-10 0.000000000000000000000000000001; do
  printf '%s' "$v" >"$C/mm_value/seed-$i"
  i=$((i + 1))
done
du -sh "$C"/* >&2
