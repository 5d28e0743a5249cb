# peer_cases.sh - reading what peers read: Matrix Market cases written here from the Matrix
# Market specification (NIST, "The Matrix Market Exchange Formats", 1996) and the behaviour
# that scipy.io.mmread and fast_matrix_market document, compressed inputs and SNAP edge lists;
# each checks its exact outcome: the matrix read (written back by `convert --to mtx`, which
# keeps field and symmetry), with the warning line where one is due, or the status, the one
# message line and an empty stdout. Prints a results table (case, source, outcome, verdict).
# The arguments name the compressed formats this build decodes.
. "$RVS_SRC/tests/lib/common.sh"
command -v convert >/dev/null 2>&1 || { echo "convert not built: skipped"; exit 77; }
built=" $* "
rows=()
# scipy.io.mmread, where a Python has it, reads each Matrix Market case too: the table shows
# whether it read the same matrix ("same"), another ("differs"), or refused it ("refuses").
# Where rvskit is meant to agree with it, a difference is a failure; the differences meant
# (rvskit documents them) are in scipy_differs.
SCIPY=
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import scipy.io' 2>/dev/null; then SCIPY=$p; break; fi
done
# scipy 1.10 reads integers exactly as int64 (rvskit: doubles, with a warning), takes a
# "real hermitian" file as symmetric, negative unsigned-integer values, and a pattern line's
# extra value; it refuses an uppercase banner (the spec: case does not matter) and comment or
# blank lines among the entries (fast_matrix_market reads them):
scipy_differs=" integer_beyond_2p53 hermitian_real_field unsigned_negative pattern_with_value "
scipy_differs+=" uppercase_banner comments_blank_lines "
# scipy_verdict INPUT [RVSKIT_OUTPUT]: same, differs, refuses (or both refused: same)
scipy_verdict() {
  "$SCIPY" - "$@" <<'PY' 2>/dev/null || echo error
import sys, warnings
import numpy as np, scipy.io
warnings.simplefilter("ignore")
def read(f):
    try:
        a = scipy.io.mmread(f)
    except Exception:
        return None
    return np.asarray(a.todense() if hasattr(a, "todense") else a)
a = read(sys.argv[1])
if len(sys.argv) < 3:
    print("same" if a is None else "reads")
elif a is None:
    print("refuses")
else:
    b = read(sys.argv[2])
    same = b is not None and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    print("same" if same else "differs")
PY
}
H='%%%%MatrixMarket matrix'

# peer NAME SOURCE OPTS INPUT(printf format) WANT [WARNING]: WANT is the convert --to mtx output
# with lines joined by ';', or "fail STATUS REGEX" (REGEX after "convert: FILE: "); WARNING a
# regex the one stderr line must match (no stderr line is allowed without one).
peer() {
  local name=$1 src=$2 opts=$3 input=$4 want=$5 warn=${6:-} f=$T/$1 verdict=pass
  printf "$input" >"$f"
  run_case "$name" "$src" "$opts" "$f" "$want" "$warn"
}

# run_case NAME SOURCE OPTS FILE WANT [WARNING]: the check itself, on a file already there.
run_case() {
  local name=$1 src=$2 opts=$3 f=$4 want=$5 warn=${6:-} verdict=pass outcome
  local before=$fails
  if [[ $want == fail* ]]; then
    read -r _ st re <<<"$want"
    expect_fail "$st" "^convert: $f: $re" -- convert $opts --to mtx "$f"
    outcome="refused: $st"
  else
    convert $opts --to mtx "$f" >"$T/out" 2>"$T/err" </dev/null
    local s=$?
    cp "$T/out" "$T/out.mtx"
    expect_eq "$name: status" "$s" 0
    expect_eq "$name: matrix" "$(tr '\n' ';' <"$T/out")" "$want"
    if [ -n "$warn" ]; then
      expect_eq "$name: one warning line" "$(wc -l <"$T/err")" 1
      grep -Eq -- "^convert: $f: warning: $warn" "$T/err" && ok || bad "$name: warning '$(cat "$T/err")'"
      outcome="read + warning"
    else
      expect_eq "$name: stderr" "$(cat "$T/err")" ""
      outcome="read: $(head -1 "$T/out" | cut -d' ' -f4-5)"
    fi
  fi
  local sp=-
  if [ -n "$SCIPY" ] && [ -z "$opts" ] && [[ $src != gzip && $src != bzip2 && $src != xz && $src != zstd ]]; then
    if [[ $want == fail* ]]; then sp=$(scipy_verdict "$f"); else sp=$(scipy_verdict "$f" "$T/out.mtx"); fi
    if [[ $scipy_differs == *" $name "* ]]; then
      [ "$sp" != same ] && ok || bad "$name: scipy now agrees; update scipy_differs"
    else
      [ "$sp" = same ] && ok || bad "$name: scipy.io.mmread: $sp"
    fi
  fi
  [ "$fails" -eq "$before" ] || verdict=FAIL
  rows+=("$(printf '%-24s %-6s %-32s %-8s %s' "$name" "$src" "$outcome" "$sp" "$verdict")")
}

# -- the specification ------------------------------------------------------------------------
peer spec_example spec "" "$H coordinate real general\n%%=====\n%% the example of the spec\n%%\n  5  5  8\n    1     1   1.000e+00\n    2     2   1.050e+01\n    3     3   1.500e-02\n    1     4   6.000e+00\n    4     2   2.505e+02\n    4     4  -2.800e+02\n    4     5   3.332e+01\n    5     5   1.200e+01\n" \
  "%%MatrixMarket matrix coordinate real general;5 5 8;1 1 1;1 4 6;2 2 10.5;3 3 0.015;4 2 250.5;4 4 -280;4 5 33.32;5 5 12;"
peer pattern_symmetric spec "" "$H coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n" \
  "%%MatrixMarket matrix coordinate pattern symmetric;3 3 3;1 1;2 1;3 2;"
peer integer_general spec "" "$H coordinate integer general\n2 3 3\n1 3 -4\n2 1 7\n2 2 0\n" \
  "%%MatrixMarket matrix coordinate integer general;2 3 3;1 3 -4;2 1 7;2 2 0;"
peer complex_general spec "" "$H coordinate complex general\n2 2 2\n1 1 1.5 -2\n2 1 0 1\n" \
  "%%MatrixMarket matrix coordinate complex general;2 2 2;1 1 1.5 -2;2 1 0 1;"
peer complex_hermitian spec "" "$H coordinate complex hermitian\n2 2 2\n1 1 3 0\n2 1 1 2\n" \
  "%%MatrixMarket matrix coordinate complex hermitian;2 2 2;1 1 3 0;2 1 1 2;"
peer hermitian_real_field spec "" "$H coordinate real hermitian\n2 2 1\n1 1 3\n" \
  "fail 65 line 1: hermitian needs the complex field, not real$"
peer skew_symmetric spec "" "$H coordinate real skew-symmetric\n3 3 2\n2 1 4\n3 2 -1\n" \
  "%%MatrixMarket matrix coordinate real skew-symmetric;3 3 2;2 1 4;3 2 -1;"
peer array_general spec "" "$H array real general\n%% column by column\n2 2\n1\n0\n3\n4\n" \
  "%%MatrixMarket matrix coordinate real general;2 2 3;1 1 1;1 2 3;2 2 4;"
peer array_symmetric spec "" "$H array real symmetric\n2 2\n1\n2\n4\n" \
  "%%MatrixMarket matrix coordinate real symmetric;2 2 3;1 1 1;2 1 2;2 2 4;"
peer array_pattern spec "" "$H array pattern general\n2 2\n" "fail 65 line 1: an array cannot be a pattern$"
peer uppercase_banner spec "" "%%%%MATRIXMARKET MATRIX COORDINATE REAL GENERAL\n2 2 2\n1 2 5\n2 1 6\n" \
  "%%MatrixMarket matrix coordinate real general;2 2 2;1 2 5;2 1 6;"
peer vector_object spec "" "%%%%MatrixMarket vector coordinate real general\n2 2 1\n1 1 5\n" \
  "fail 65 line 1: unknown object 'vector' \\(want matrix\\)$"
peer index_zero spec "" "$H coordinate real general\n2 2 1\n0 1 5\n" "fail 65 line 3: row index 0 out of range 1\\.\\.2$"
peer fewer_entries spec "" "$H coordinate real general\n2 2 3\n1 1 5\n2 2 6\n" "fail 65 declares 3 entries, file has 2$"
peer pattern_with_value spec "" "$H coordinate pattern general\n2 2 1\n1 1 5\n" \
  "fail 65 line 3: unexpected text '5' after the entry$"
peer empty_matrix spec "" "$H coordinate real general\n0 0 0\n" "%%MatrixMarket matrix coordinate real symmetric;0 0 0;"

# -- what scipy.io.mmread and fast_matrix_market read -----------------------------------------
peer skew_with_diagonal scipy "" "$H coordinate real skew-symmetric\n3 3 2\n2 1 1\n3 3 2\n" \
  "%%MatrixMarket matrix coordinate real general;3 3 3;1 2 -1;2 1 1;3 3 2;" \
  "line 4: skew-symmetric file with 1 diagonal entry: kept as read, as scipy and fast_matrix_market do$"
peer unsigned_integer scipy "" "$H coordinate unsigned-integer general\n2 2 2\n1 1 7\n2 1 4000000000\n" \
  "%%MatrixMarket matrix coordinate unsigned-integer general;2 2 2;1 1 7;2 1 4000000000;"
peer unsigned_negative scipy "" "$H coordinate unsigned-integer general\n2 2 1\n1 1 -1\n" \
  "fail 65 line 3: value '-1' is negative in an unsigned-integer matrix$"
peer integer_beyond_2p53 fmm "" "$H coordinate integer general\n2 2 2\n1 1 9007199254740993\n1 2 -3\n" \
  "%%MatrixMarket matrix coordinate integer general;2 2 2;1 1 9007199254740992;1 2 -3;" \
  "line 3: 1 integer value beyond 2\\^53 in magnitude, rounded to the nearest double$"
peer hermitian_diag_imag scipy "" "$H coordinate complex hermitian\n2 2 2\n1 1 3 1\n2 1 0 2\n" \
  "%%MatrixMarket matrix coordinate complex general;2 2 3;1 1 3 1;1 2 0 -2;2 1 0 2;" \
  "line 3: hermitian file with 1 diagonal entry not real: kept as read, as scipy and fast_matrix_market do$"
peer symmetric_upper_entry scipy "" "$H coordinate real symmetric\n2 2 1\n1 2 7\n" \
  "%%MatrixMarket matrix coordinate real symmetric;2 2 1;2 1 7;"
peer duplicates_summed scipy "" "$H coordinate integer general\n2 2 3\n1 1 3\n1 1 4\n2 1 1\n" \
  "%%MatrixMarket matrix coordinate integer general;2 2 2;1 1 7;2 1 1;"
peer comments_blank_lines fmm "" "$H coordinate real general\n%% after the banner\n\n%% between\n2 2 2\n\n1 2 1.5\n%% inside the data\n\n2 1 -1\n\n" \
  "%%MatrixMarket matrix coordinate real general;2 2 2;1 2 1.5;2 1 -1;"
peer crlf_line_ends fmm "" "$H coordinate real general\r\n%% c\r\n2 2 2\r\n1 2 1.5\r\n2 1 -1\r\n" \
  "%%MatrixMarket matrix coordinate real general;2 2 2;1 2 1.5;2 1 -1;"
peer odd_whitespace fmm "" "$H coordinate real general  \n 2\t2  2 \n\t1  2\t1.5   \n   2 1 -1\t\n" \
  "%%MatrixMarket matrix coordinate real general;2 2 2;1 2 1.5;2 1 -1;"
peer number_forms fmm "" "$H coordinate real general\n2 2 4\n1 1 +1.5\n1 2 .5\n2 1 1.E+2\n2 2 -0.0e0\n" \
  "%%MatrixMarket matrix coordinate real general;2 2 4;1 1 1.5;1 2 0.5;2 1 100;2 2 -0;"
peer inf_nan fmm "" "$H coordinate real general\n2 2 3\n1 2 inf\n2 1 nan\n2 2 -Infinity\n" \
  "%%MatrixMarket matrix coordinate real general;2 2 3;1 2 inf;2 1 nan;2 2 -inf;"
peer no_final_newline fmm "" "$H coordinate real general\n2 2 1\n2 2 4" \
  "%%MatrixMarket matrix coordinate real symmetric;2 2 1;2 2 4;"

# -- compressed inputs (by magic bytes, not by name) ------------------------------------------
plain=$(convert --to mtx "$RVS_DATA/pmf20.mtx" | tr '\n' ';')
gzip -c "$RVS_DATA/pmf20.mtx" >"$T/gzip_input"
run_case gzip_input gzip "" "$T/gzip_input" "$plain"
for c in "bzip2 bz2 libbz2" "xz xz liblzma" "zstd zst libzstd"; do
  read -r name suf lib <<<"$c"
  cp "$RVS_DATA/compressed/pmf20.mtx.$suf" "$T/${name}_input"
  if [[ $built == *" $name "* ]]; then
    run_case "${name}_input" "$name" "" "$T/${name}_input" "$plain"
  else
    run_case "${name}_input" "$name" "" "$T/${name}_input" \
      "fail 65 unsupported compression: $name \\(rvskit was built without $lib; decompress the input first\\)$"
  fi
done
printf '\x28\xb5\x2f\xfd\x04\x58garbage' >"$T/zstd_corrupt"
if [[ $built == *" zstd "* ]]; then
  run_case zstd_corrupt zstd "" "$T/zstd_corrupt" "fail 65 zstd: "
fi
head -c 200 "$RVS_DATA/compressed/pmf20.mtx.xz" >"$T/xz_truncated"
if [[ $built == *" xz "* ]]; then
  run_case xz_truncated xz "" "$T/xz_truncated" "fail 65 xz: compressed data ends early$"
fi

# -- SNAP edge lists (--edges) ----------------------------------------------------------------
peer edges_snap snap --edges "# Directed graph: x.txt\n# Nodes: 3 Edges: 3\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t0\n" \
  "%%MatrixMarket matrix coordinate pattern general;3 3 3;1 2;2 3;3 1;"
peer edges_weighted snap --edges "%% weights\n0 1 0.5\n2 2 -1\n" \
  "%%MatrixMarket matrix coordinate real general;3 3 2;1 2 0.5;3 3 -1;"
peer edges_one_index snap --edges "0 1\n2\n" "fail 65 line 2: an edge needs two indices, 'src dst'$"
peer edges_negative snap --edges "0 -1\n" "fail 65 line 1: destination index -1 is negative \\(edge lists are 0-based\\)$"

[ -n "$SCIPY" ] && echo "scipy: scipy.io.mmread $("$SCIPY" -c 'import scipy; print(scipy.__version__)') on the same file"
printf '\n%-24s %-6s %-32s %-8s %s\n' case source outcome scipy verdict
printf '%s\n' "${rows[@]}"
finish
