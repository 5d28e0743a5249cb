# format_check.sh - .ci/format-check passes a file formatted as .clang-format says, and fails,
# naming it, on one that is not; it refuses a file that does not exist.
. "$RVS_SRC/tests/lib/common.sh"
command -v clang-format-14 >/dev/null || command -v clang-format >/dev/null ||
  { echo "clang-format is not installed"; exit 77; }
cp "$RVS_SRC/.clang-format" "$T/"   # clang-format finds the style beside the files it checks
printf 'int f(int a)\n{\n    if (a > 1) {\n        return a * 2;\n    }\n    return 0;\n}\n' > "$T/good.c"
printf 'int f(int a){\n  if(a>1) return a*2;\n  return 0;}\n' > "$T/bad.c"
out=$("$RVS_SRC/.ci/format-check" "$T/good.c"); st=$?
expect_eq "formatted file: status" "$st" 0
expect_eq "formatted file: output" "$out" ""
out=$("$RVS_SRC/.ci/format-check" "$T/good.c" "$T/bad.c"); st=$?
expect_eq "mis-formatted file: status" "$st" 1
case "$out" in "$T/bad.c: not formatted"*) ok ;; *) bad "mis-formatted file not named: '$out'" ;; esac
case "$out" in *good.c*) bad "a formatted file was named: '$out'" ;; *) ok ;; esac
"$RVS_SRC/.ci/format-check" "$T/none.c" >/dev/null 2>&1; st=$?
expect_eq "missing file: status" "$st" 1
finish
