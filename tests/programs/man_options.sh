# man_options.sh - every option a program's --help lists has an entry under OPTIONS in its man
# page, and every entry there is an option of --help; every man page renders without warnings.
. "$RVS_SRC/tests/lib/common.sh"
command -v man >/dev/null || { echo "man is not installed"; exit 77; }

# The options an entry names in its tag: in --help the text before the description of a line
# that starts with an option ("  -f, --format X   ...", "      --plan   ..."); in the page the
# line after each .TP of OPTIONS (".BR \-f \", \" \-\-format ..."). Prose that mentions an option
# does not count.
opt_tokens() { grep -oE -- '(^|[ ,"(])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed -E 's/^[ ,"(]//' | sort -u; }
help_options() { sed -nE 's/^ {2,8}(-.*)/\1/p' | sed -E 's/   .*//' | opt_tokens; }
man_options() {
  awk '/^\.SH/ { in_opt = ($0 ~ /^\.SH "?OPTIONS"?$/) } in_opt && tag { print; tag = 0 } in_opt && /^\.TP/ { tag = 1 }' "$1" |
    sed -E 's/\\-/-/g; s/\\f[BIRP]//g; s/\\f\(..//g' | opt_tokens
}

# the parser itself: a help text and a page of known options
printf '  -f, --format X   a\n      --plan       b (--not-this)\n  -x FILE          c\n' >"$T/help"
expect_eq "help parser" "$(help_options <"$T/help" | tr '\n' ' ')" "--format --plan -f -x "
printf '.TH T 1\n.SH OPTIONS\n.TP\n.BR \\-f ", " \\-\\-format " \\fIX\\fP"\na \\-\\-not\\-this\n' >"$T/t.1"
printf '.TP\n.BR \\-\\-cpu ", " \\-\\-gpu\nb\n.TP\n.BI \\-x " FILE"\nc\n.SH EXIT STATUS\n.TP\n.B \\-\\-late\nd\n' >>"$T/t.1"
expect_eq "man parser" "$(man_options "$T/t.1" | tr '\n' ' ')" "--cpu --format --gpu -f -x "

progs="pmf partition convert spmv spgemm rvsgen rvsinfo"
[ -x "$RVS_BIN/spmv-mpi" ] && progs="$progs spmv-mpi"
for p in $progs; do
  page="$RVS_SRC/man/man1/$p.1"
  if ! [ -x "$RVS_BIN/$p" ] || ! [ -f "$page" ]; then bad "$p: not built or no man page"; continue; fi
  "$p" --help | help_options >"$T/h"
  man_options "$page" >"$T/m"
  [ -s "$T/h" ] && [ -s "$T/m" ] && ok || bad "$p: no options found in --help or in $p.1"
  only_help=$(comm -23 "$T/h" "$T/m" | tr '\n' ' ')
  only_man=$(comm -13 "$T/h" "$T/m" | tr '\n' ' ')
  expect_eq "$p: in --help, not under OPTIONS in $p.1" "$only_help" ""
  expect_eq "$p: under OPTIONS in $p.1, not in --help" "$only_man" ""
done
for f in "$RVS_SRC"/man/man*/*.[157]; do
  w=$(groff -man -ww -z "$f" 2>&1 | head -3)
  expect_eq "$(basename "$f"): groff -ww" "$w" ""
done
finish
