# output.sh - one output rule in every program (.mtx/.mtx.gz in any case: Matrix Market, else a
# stream; conflicts are usage errors) and a Matrix Market writer that keeps what it knows.
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx

# kind FILE: "stream", "mtx", "mtx.gz" or "other", by content
kind() {
  case "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" in
    89525653*) echo stream ;;
    1f8b*) echo mtx.gz ;;
    25254d61*) echo mtx ;;
    *) echo other ;;
  esac
}
banner() { case "$(kind "$1")" in mtx.gz) zcat "$1" | head -1 ;; *) head -1 "$1" ;; esac; }

# every program that writes a matrix follows the rule, in any case
rvsgen -o "$T/s.MTX" stencil7 3 </dev/null
expect_eq "rvsgen .MTX" "$(kind "$T/s.MTX")" mtx
rvsgen -o "$T/s.mtx.gz" stencil7 3 </dev/null
expect_eq "rvsgen .mtx.gz" "$(kind "$T/s.mtx.gz")" mtx.gz
rvsgen -o "$T/s.rvs" stencil7 3 </dev/null
expect_eq "rvsgen .rvs" "$(kind "$T/s.rvs")" stream
pmf -o "$T/p.Mtx.Gz" "$M" </dev/null
expect_eq "pmf .Mtx.Gz" "$(kind "$T/p.Mtx.Gz")" mtx.gz
pmf "$M" </dev/null | partition --alg pmf --cp 1,2,6 -o "$T/parts.mtx"
expect_eq "partition .mtx" "$(kind "$T/parts.mtx")" mtx
spgemm --cpu "$M" -o "$T/c.mtx.gz" </dev/null >/dev/null
expect_eq "spgemm .mtx.gz" "$(kind "$T/c.mtx.gz")" mtx.gz
spgemm --cpu "$M" -o "$T/c.MTX" </dev/null >/dev/null
expect_eq "spgemm .MTX" "$(kind "$T/c.MTX")" mtx
pmf "$M" </dev/null | convert --to ellr -o "$T/e.rvs"
convert -o "$T/back.mtx" "$T/e.rvs" </dev/null
expect_eq "convert -o .mtx without --to" "$(kind "$T/back.mtx")" mtx
convert --to mtx -o "$T/back2.mtx.gz" "$T/e.rvs" </dev/null
expect_eq "convert --to mtx -o .mtx.gz" "$(kind "$T/back2.mtx.gz")" mtx.gz
# what was written reads back to the same matrix, whichever way it went
convert --to mtx "$M" >"$T/ref.mtx" </dev/null
convert --to mtx "$T/back.mtx" >"$T/got1.mtx" </dev/null
convert --to mtx "$T/back2.mtx.gz" >"$T/got2.mtx" </dev/null
convert --to mtx "$T/p.Mtx.Gz" >"$T/got3.mtx" </dev/null
for g in got1 got2 got3; do
  cmp -s "$T/ref.mtx" "$T/$g.mtx" && ok || bad "$g: Matrix Market output does not read back to the same matrix"
done
# a FIFO or device has no suffix to read: it takes what the options say
expect_ok -- convert --to mtx -o /dev/null "$M"

# conflicts: usage errors, nothing written, nothing on stdout
expect_fail 64 "^convert: -o $T/x.mtx: a .mtx name means Matrix Market, but a format option writes a stream" \
  -- convert --to csr -o "$T/x.mtx" "$M"
expect_fail 64 "means Matrix Market" -- convert --gpu-format ellr -o "$T/x.MTX.GZ" "$M"
expect_fail 64 "^convert: -o $T/x.rvs: --to mtx writes Matrix Market, so the name must end in .mtx or .mtx.gz" \
  -- convert --to mtx -o "$T/x.rvs" "$M"
ls "$T" | grep -q '^x\.' && bad "a refused output left a file" || ok

# the writer keeps what it knows: symmetric and skew files stay so, pattern and integer fields stay
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n4 4 5\n1 1\n2 1\n3 2\n4 3\n4 4\n' >"$T/pat.mtx"
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 4\n1 1 7\n1 3 -2\n2 2 5\n3 1 9\n' >"$T/int.mtx"
printf '%%%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -0.25\n' >"$T/skew.mtx"
for m in pat int skew; do
  pmf "$T/$m.mtx" </dev/null | partition --alg nnz --cp 1,1 | convert --gpu-format ellr --cpu-format csr \
    | convert --to mtx >"$T/$m.out"
done
expect_eq "pattern symmetric kept" "$(head -2 "$T/pat.out" | tr '\n' ';')" \
  "%%MatrixMarket matrix coordinate pattern symmetric;4 4 5;"
expect_eq "integer kept" "$(cat "$T/int.out" | tr '\n' ';')" \
  "%%MatrixMarket matrix coordinate integer general;3 3 4;1 1 7;1 3 -2;2 2 5;3 1 9;"
expect_eq "skew kept" "$(cat "$T/skew.out" | tr '\n' ';')" \
  "%%MatrixMarket matrix coordinate real skew-symmetric;3 3 2;2 1 1.5;3 2 -0.25;"
# a value that no longer fits the field widens it; a matrix no longer symmetric is general
convert --precision f32 --to mtx "$T/int.mtx" >"$T/int32.out" </dev/null
expect_eq "integer through f32" "$(head -1 "$T/int32.out")" "%%MatrixMarket matrix coordinate integer general"
spgemm --cpu "$T/pat.mtx" -o "$T/pat2.mtx" </dev/null >/dev/null
expect_eq "A*A of a symmetric matrix" "$(head -1 "$T/pat2.mtx")" "%%MatrixMarket matrix coordinate real symmetric"
spgemm --cpu "$T/int.mtx" -o "$T/int2.mtx" </dev/null >/dev/null
expect_eq "A*A of a general matrix" "$(head -1 "$T/int2.mtx")" "%%MatrixMarket matrix coordinate real general"
# --digits
printf '%%%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 0.123456789\n1 2 3.14159265358979\n' >"$T/pi.mtx"
expect_eq "--digits 3" "$(convert --to mtx --digits 3 "$T/pi.mtx" </dev/null | tail -2 | tr '\n' ';')" "1 1 0.123;1 2 3.14;"
expect_eq "shortest digits" "$(convert --to mtx "$T/pi.mtx" </dev/null | tail -2 | tr '\n' ';')" \
  "1 1 0.123456789;1 2 3.14159265358979;"
expect_fail 64 "digits" -- convert --to mtx --digits 18 "$T/pi.mtx"

# real matrices: symmetric ones are written symmetric, every one reads back to the same values
if have_matrices; then
  n=0
  for name in bcsstk16 memplus 3elt; do
    f=$(ls "$RVS_MATRICES/$name".mtx* 2>/dev/null | head -1)
    [ -n "$f" ] || continue
    want=$(awk -F'\t' -v n="$name" '$1 == n { print $5, $6 }' "$RVS_MATRICES/INDEX.tsv")
    convert --to mtx -o "$T/r.mtx.gz" "$f" </dev/null
    got=$(zcat "$T/r.mtx.gz" | head -1 | awk '{ print $4, $5 }')
    expect_eq "$name banner" "$got" "$want"
    convert --to mtx "$f" >"$T/r1" </dev/null
    convert --to mtx "$T/r.mtx.gz" >"$T/r2" </dev/null
    cmp -s "$T/r1" "$T/r2" && ok || bad "$name: .mtx.gz output does not read back to the same matrix"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] && ok || bad "no real matrix found for the writer test"
fi
finish
