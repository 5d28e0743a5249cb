# usage.sh - every program: --help, --version, a bad option
. "$RVS_SRC/tests/lib/common.sh"
for p in pmf partition convert spmv spgemm rvsgen rvsinfo; do
  if ! [ -x "$RVS_BIN/$p" ]; then bad "$p not built"; continue; fi
  out=$("$p" --help 2>/dev/null); st=$?
  expect_eq "$p --help status" "$st" 0
  case "$out" in Usage:*) ok ;; *) bad "$p --help does not start with Usage:" ;; esac
  expect_eq "$p --version" "$("$p" --version)" "$p (rvskit) 0.1.0"
  expect_fail 64 "^$p: .*--help" -- "$p" --no-such-option
  [ -f "$RVS_SRC/man/man1/$p.1" ] && ok || bad "no man page for $p"
done
[ -f "$RVS_SRC/man/man5/rvs.5" ] && ok || bad "no rvs.5"
[ -f "$RVS_SRC/man/man7/rvskit.7" ] && ok || bad "no rvskit.7"
# the library's pages: the overview, the SpMV operator, reading and writing, partitions
for f in rvskit rvs_spmv_op rvs_mm_read rvs_partition; do
  [ -f "$RVS_SRC/man/man3/$f.3" ] && ok || bad "no $f.3"
done
# man pages render without warnings, and fit 80 columns (as man shows them at MANWIDTH=80)
if command -v groff >/dev/null; then
  for f in "$RVS_SRC"/man/man*/*.[1357]; do
    w=$(groff -man -Tutf8 -ww -z "$f" 2>&1 | head -3)
    [ -z "$w" ] && ok || bad "$f: $w"
  done
fi
if command -v man >/dev/null; then
  for f in "$RVS_SRC"/man/man*/*.[1357]; do
    w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null | head -2)
    [ -z "$w" ] && ok || bad "$(basename "$f"): man --warnings: $w"
    long=$(LC_ALL=C MANWIDTH=80 man -l "$f" 2>/dev/null | awk 'length($0) > 80' | head -1)
    [ -z "$long" ] && ok || bad "$(basename "$f") is wider than 80 columns: $long"
  done
fi
finish
