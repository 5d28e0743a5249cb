# regress_output.sh CASE - regression tests for output-file defects, one case per finding (below)
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/fault.sh"
command -v pmf >/dev/null 2>&1 || { echo "pmf not built: skipped"; exit 77; }
A=$RVS_DATA/spgemm_a.mtx

# only_files DIR NAME...: DIR holds exactly these names (no temporary file left behind)
only_files() {
  local dir=$1; shift
  local want=""
  [ $# -gt 0 ] && want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  expect_eq "files in $dir" "$(cd "$dir" && ls -A | sort | tr '\n' ' ')" "$want"
}

case "${1:-}" in
# tool_output_symlink_planted: -o FILE wrote through FILE.tmp.PID opened with fopen, which follows
# symbolic links: another user could plant out.rvs.tmp.<pid> as a link in a shared directory and
# have the file it points at overwritten (and out.rvs became a link to it). Temporary files are
# now made by mkstemp (O_EXCL) beside the target and renamed over it.
tool_output_symlink_planted)
  d=$T/shared
  mkdir "$d"
  echo "precious" >"$T/victim"
  # the old name, planted for the pid the program will have (exec keeps the shell's pid)
  # NAME COMMAND: the command writes $d/NAME
  while read -r out cmd; do
    cmd=${cmd//OUT/$d/$out}
    rm -f "$d/$out"
    bash -c "ln -s '$T/victim' '$d/$out.tmp.'\$\$; exec $cmd" >/dev/null 2>"$T/err"
    expect_eq "$cmd: status" "$?" 0
    expect_eq "$cmd: victim" "$(cat "$T/victim")" "precious"
    [ -f "$d/$out" ] && [ ! -L "$d/$out" ] && [ -s "$d/$out" ] && ok || bad "$cmd: $out is not a regular file with data"
    rm -f "$d/$out".tmp.* "$d/$out"
    only_files "$d"
  done <<EOF2
out.rvs pmf -o OUT $A
out.rvs partition --cp 1,2 -o OUT $A
out.rvs convert --to coo -o OUT $A
out.mtx convert --to mtx -o OUT $A
out.rvs spgemm --cpu $A -o OUT
out.mtx spmv --cpu -y OUT $A
EOF2
  # the target itself a link: replaced by the new file, never written through
  ln -sf "$T/victim" "$d/link.rvs"
  expect_ok -- pmf -o "$d/link.rvs" "$A"
  expect_eq "link target" "$(cat "$T/victim")" "precious"
  [ -f "$d/link.rvs" ] && [ ! -L "$d/link.rvs" ] && ok || bad "link.rvs is still a link"
  # the mode of a plain create: 0666 less the umask, or an existing file's own
  rm -f "$d"/*
  (umask 022; pmf -o "$d/a.rvs" "$A")
  expect_eq "mode, umask 022" "$(stat -c %a "$d/a.rvs")" 644
  (umask 077; pmf -o "$d/b.rvs" "$A")
  expect_eq "mode, umask 077" "$(stat -c %a "$d/b.rvs")" 600
  chmod 640 "$d/a.rvs"
  (umask 022; pmf -o "$d/a.rvs" "$A")
  expect_eq "mode of an existing file" "$(stat -c %a "$d/a.rvs")" 640
  # a write that fails half way (file size limit) leaves neither the target nor a temporary
  rm -f "$d"/*
  expect_fail_sh 74 "^pmf: $d/c\\.rvs: .*File too large\$" 2000 30 -- \
    "trap '' XFSZ; ulimit -f 1; pmf -o '$d/c.rvs' '$RVS_DATA/pmf20.mtx'"
  only_files "$d"
  ;;
# spgemm_report_before_write_failure: spgemm -o onto a full disk printed its report on stdout,
# then exited 74; the file is written first now, so a failure leaves stdout empty.
spgemm_report_before_write_failure)
  ln -s /dev/full "$T/full.mtx"
  expect_fail_sh 74 "^spgemm: /dev/full: .*No space left on device\$" 2000 30 -- "spgemm --cpu '$A' -o /dev/full"
  expect_fail_sh 74 "^spgemm: $T/full\\.mtx: .*No space left on device\$" 2000 30 -- "spgemm --cpu '$A' -o '$T/full.mtx'"
  expect_fail_sh 74 "^spgemm: $T/no/dir/c\\.mtx: cannot create $T/no/dir/c\\.mtx: No such file or directory\$" 2000 30 -- \
    "spgemm --cpu '$A' -o '$T/no/dir/c.mtx'"
  # and on success the report still comes, after the file
  expect_ok_sh 2000 30 -- "spgemm --cpu '$A' -o '$T/c.mtx' | grep -q '^nnz_c ' && test -s '$T/c.mtx'"
  ;;
*) echo "regress_output.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
finish
