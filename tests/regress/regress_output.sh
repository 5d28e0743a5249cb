# regress_output.sh CASE - regression tests for output-file defects, one case per finding (below)
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/fault.sh"
command -v pmf >/dev/null 2>&1 || { echo "pmf not built: skipped"; exit 77; }
A=$RVS_DATA/spgemm_a.mtx
# spmv-mpi, where built, as an MPI singleton (or under mpirun) on loopback
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1

# only_files DIR NAME...: DIR holds exactly these names (no temporary file left behind)
only_files() {
  local dir=$1; shift
  local want=""
  [ $# -gt 0 ] && want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  expect_eq "files in $dir" "$(cd "$dir" && ls -A | sort | tr '\n' ' ')" "$want"
}

# output_programs: "NAME COMMAND" lines, every program that writes a file with -o (spmv and
# spmv-mpi with -y); OUT stands for the output's path
output_programs() {
  cat <<EOF2
x.rvs rvsgen stencil7 6 -o OUT
a.rvs pmf -o OUT $A
a.rvs partition --cp 1,2 -o OUT $A
a.rvs convert --to coo -o OUT $A
a.mtx convert --to mtx -o OUT $A
c.rvs spgemm --cpu $A -o OUT
y.mtx spmv --cpu -y OUT $A
EOF2
  command -v spmv-mpi >/dev/null 2>&1 && echo "y.mtx spmv-mpi --cpu -y OUT $A"
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
  done <<<"$(output_programs)"
  # the target itself a link is written through (rvskit(7); output_through_symlink below)
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
# output_temporary_on_signal: SIGINT, SIGTERM or SIGHUP while an output went to its temporary
# file (rvsgen stencil7 100 -o x.rvs, 67 MB) left .x.rvs.XXXXXX behind. The temporary goes on
# those signals too, and the program still dies of the signal. Each program is stopped just
# before it renames a finished temporary file into place (tests/lib/preload.c), then signalled.
output_temporary_on_signal)
  preload=$RVS_BIN/tests/preload.so
  [ -f "$preload" ] || { echo "no $preload: skipped"; exit 77; }
  [ "${RVS_SANITIZED:-OFF}" = ON ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
  set -m # job control: a background job of a non-interactive shell would ignore SIGINT
  # end_of PID: its exit status into $st (wait returns at once while bash has the job stopped;
  # not in a subshell, which cannot wait for it)
  end_of() {
    for _ in $(seq 600); do
      wait "$1"; st=$?
      [ "$st" -ne $((128 + $(kill -l STOP))) ] && break
      sleep 0.05
    done
  }
  d=$T/out
  programs=$(output_programs)
  for sig in INT TERM HUP; do
    while read -r out cmd; do
      rm -rf "$d"; mkdir "$d"
      cmd=${cmd//OUT/$d/$out}
      LD_PRELOAD=$preload RVS_PRELOAD_STOP=rename $cmd >/dev/null 2>"$T/err" </dev/null &
      pid=$!
      state=""
      for _ in $(seq 600); do
        state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
        [ "$state" = T ] && break
        sleep 0.05
      done
      if [ "$state" != T ]; then bad "$cmd: did not reach rename ($(cat "$T/err"))"; kill -KILL "$pid"; wait "$pid"; continue; fi
      expect_eq "$cmd: a temporary file before SIG$sig" "$(ls -A "$d" | grep -c '^\.')" 1
      kill -"$sig" "$pid"
      kill -CONT "$pid"
      end_of "$pid"
      expect_eq "$cmd: status after SIG$sig" "$st" "$((128 + $(kill -l "$sig")))"
      # no temporary file; the output itself only if a thread other than the stopped one took
      # the signal while that one renamed it into place (spmv-mpi's MPI threads)
      expect_eq "$cmd: temporary files after SIG$sig" "$(ls -A "$d" | grep -c '^\.')" 0
    done <<<"$programs"
  done
  # a signal ignored when the program started (nohup) stays ignored: the output is written
  rm -rf "$d"; mkdir "$d"
  LD_PRELOAD=$preload RVS_PRELOAD_STOP=rename bash -c "trap '' HUP; exec pmf -o '$d/a.rvs' '$A'" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] && break; sleep 0.05; done
  kill -HUP "$pid"; kill -CONT "$pid"
  end_of "$pid"
  expect_eq "pmf with SIGHUP ignored: status" "$st" 0
  only_files "$d" a.rvs
  set +m
  ;;
# output_through_symlink: -o naming a symbolic link (ln -s nodir/t.rvs dl; pmf A.mtx -o dl)
# replaced the link by a regular file. Every program writes through the link, as the shell's >
# does, by a temporary file beside the file the link names; a link into a missing folder is an
# error (74), and a link of another user in a sticky world-writable folder is not followed (as
# fs.protected_symlinks does not follow it). See rvskit(7).
output_through_symlink)
  d=$T/links
  mkdir -p "$d" "$T/tgt"
  while read -r out cmd; do
    [ -n "$out" ] || continue
    ext=${out#*.}
    prog=${cmd%% *}
    rm -f "$d"/* "$d"/.??* "$T/tgt"/* "$T/tgt"/.??*
    ${cmd//OUT/$T/direct.$ext} >/dev/null 2>&1 || bad "$cmd: direct run"
    # to an existing file, through a chain of two links
    echo old >"$T/tgt/t.$ext"
    ln -s "$T/tgt/t.$ext" "$d/l1.$ext"
    ln -s "l1.$ext" "$d/l2.$ext"
    c=${cmd//OUT/$d/l2.$ext}
    $c >/dev/null 2>"$T/err" || bad "$c: status $? ($(cat "$T/err"))"
    [ -L "$d/l2.$ext" ] && [ -L "$d/l1.$ext" ] && ok || bad "$c: a link was replaced"
    cmp -s "$T/tgt/t.$ext" "$T/direct.$ext" && ok || bad "$c: the target does not hold the output"
    only_files "$T/tgt" "t.$ext"
    only_files "$d" "l1.$ext" "l2.$ext"
    # a dangling link into an existing folder: the file it names is made
    rm -f "$T/tgt/t.$ext"
    $c >/dev/null 2>"$T/err" || bad "$c (dangling): status $? ($(cat "$T/err"))"
    cmp -s "$T/tgt/t.$ext" "$T/direct.$ext" && ok || bad "$c (dangling): no output at the target"
    # a link into a folder that does not exist: the error names the link, nothing is made
    ln -s "nodir/t.$ext" "$d/dl.$ext"
    c=${cmd//OUT/$d/dl.$ext}
    c=${c/#spmv-mpi /mpirun -q -np 1 spmv-mpi } # an MPI singleton adds lines of its own to an error
    expect_fail_sh 74 "^$prog: (rank 0: )?$d/dl\\.$ext: cannot create $d/dl\\.$ext: No such file or directory\$" 4000 60 -- "$c"
    [ -L "$d/dl.$ext" ] && ok || bad "$c: the dangling link was replaced"
    # a link to a device: written in place
    ln -s /dev/null "$d/null.$ext"
    c=${cmd//OUT/$d/null.$ext}
    $c >/dev/null 2>"$T/err" || bad "$c: status $? ($(cat "$T/err"))"
    [ -L "$d/null.$ext" ] && [ -c /dev/null ] && ok || bad "$c: /dev/null or its link replaced"
  done <<<"$(output_programs)"
  # another user's link in a sticky world-writable folder is not followed (when we may chown)
  s=$T/sticky
  mkdir "$s" && chmod 1777 "$s"
  ln -s "$T/victim" "$s/theirs.rvs"
  echo precious >"$T/victim"
  if [ "$(id -u)" = 0 ] && chown -h nobody "$s/theirs.rvs" 2>/dev/null; then
    expect_fail_sh 74 "^pmf: $s/theirs\\.rvs: cannot create $s/theirs\\.rvs: a symbolic link of another user in a sticky world-writable folder is not followed\$" \
      4000 60 -- "pmf -o '$s/theirs.rvs' '$A'"
    expect_eq "victim" "$(cat "$T/victim")" "precious"
  fi
  ;;
# stdout_closed: with standard output closed (>&-), spgemm -o C.rvs and pmf --json -o wrote the
# -o file and exited 74, partition --report -o wrote nothing, pmf --version exited 0. One rule:
# a program started with standard output closed exits 74 at once, before it reads or writes
# anything ("prog: stdout: closed"); one started with standard input closed and told to read it
# exits 66 ("prog: stdin: closed", rvsinfo said "Is a directory"). See rvskit(7).
stdout_closed)
  d=$T/closed
  mkdir -p "$d"
  # closed_fails STATUS REGEX 'command': one stderr line, the status, nothing made in $d
  closed_fails() {
    rm -f "$d"/* "$d"/.??*
    timeout -k 5 60 bash -c "$3" 2>"$T/err"
    local st=$?
    expect_eq "$3: status" "$st" "$1"
    grep -Eq -- "$2" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ] && ok || bad "$3: stderr '$(cat "$T/err")'"
    only_files "$d"
  }
  while read -r out cmd; do
    [ -n "$out" ] || continue
    prog=${cmd%% *}
    closed_fails 74 "^$prog: stdout: closed \\(" "${cmd//OUT/$d/$out} >&-"
    closed_fails 74 "^$prog: stdout: closed \\(" "$prog --version >&-"
    closed_fails 74 "^$prog: stdout: closed \\(" "$prog --help >&-"
    # stdin closed does not matter to a program that reads a file; stderr closed neither, and
    # nothing meant for it lands in the output
    rm -f "$d"/*
    timeout 60 bash -c "${cmd//OUT/$d/$out} >/dev/null <&- 2>&-" && ok || bad "$cmd <&- 2>&-: status $?"
    [ -s "$d/$out" ] && ok || bad "$cmd <&- 2>&-: no output"
  done <<<"$(output_programs)"
  closed_fails 74 "^rvsinfo: stdout: closed \\(" "rvsinfo '$A' >&-"
  closed_fails 74 "^partition: stdout: closed \\(" "partition --report -o '$d/p.rvs' '$A' >&-"
  closed_fails 74 "^pmf: stdout: closed \\(" "pmf --json -o '$d/p.rvs' '$A' >&-"
  for p in rvsinfo pmf "partition --cp 1,1" "convert --to csr" "spmv --cpu" "spgemm --cpu"; do
    closed_fails 66 "^${p%% *}: stdin: closed\$" "$p <&- >/dev/null"
  done
  closed_fails 66 "^spmv: stdin: closed\$" "spmv --cpu -x - '$A' <&- >/dev/null"
  # a warning of the reader, stderr closed: not in the output
  printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 9007199254740993\n' >"$T/big.mtx"
  rm -f "$d"/*
  pmf -o "$d/big.rvs" "$T/big.mtx" 2>&- || bad "pmf 2>&-: status $?"
  pmf -o "$T/big.rvs" "$T/big.mtx" 2>/dev/null
  cmp -s "$d/big.rvs" "$T/big.rvs" && ok || bad "pmf 2>&-: the output differs"
  ;;
*) echo "regress_output.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
finish
