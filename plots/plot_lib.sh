# plot_lib.sh - sourced by the plot scripts: finding rvskit's programs and gnuplot, the input,
# the output and the one-line errors (sysexits: 64 usage, 69 a program missing, 74 I/O, 70 a
# gnuplot that failed, 65 a table with nothing to draw). Sets plot_tmp, a folder removed on exit.

# plot_die STATUS MESSAGE: "script: MESSAGE" on stderr and exit STATUS.
plot_die() { echo "$plot_name: $2" >&2; exit "$1"; }

# plot_usage MESSAGE: a usage error.
plot_usage() { echo "$plot_name: $1 (try '$plot_name --help')" >&2; exit 64; }

# plot_parse SHORT LONG ARGS...: the options every plot script takes (-o/--output FILE into
# out, -p/--pixels WxH into plot_size as gnuplot's "size='W,H'" setting, -h/--help printing
# plot_help) and its own option SHORT/LONG with a value (into plot_value; "" "" for none); the
# operands are left in plot_args.
plot_parse() {
  local short=$1 long=$2
  shift 2
  plot_args=() plot_size="size=''"
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) echo "$plot_help"; exit 0 ;;
      -o|--output) [ $# -ge 2 ] || plot_usage "option '$1' needs a value"; out=$2; shift 2 ;;
      -p|--pixels)
        [ $# -ge 2 ] || plot_usage "option '$1' needs a value"
        [[ $2 =~ ^[1-9][0-9]{1,3}x[1-9][0-9]{1,3}$ ]] || plot_usage "--pixels: '$2' is not WxH (10 to 9999 each)"
        plot_size="size='${2/x/,}'"
        shift 2 ;;
      --) shift; plot_args+=("$@"); break ;;
      -) plot_args+=("$1"); shift ;;
      -*)
        if [ -n "$short" ] && { [ "$1" = "$short" ] || [ "$1" = "$long" ]; }; then
          [ $# -ge 2 ] || plot_usage "option '$1' needs a value"
          plot_value=$2
          shift 2
        else
          plot_usage "unknown option '$1'"
        fi ;;
      *) plot_args+=("$1"); shift ;;
    esac
  done
  [ ${#plot_args[@]} -le 1 ] || plot_usage "one input file at most"
}

# rvs_find NAME: the path of rvskit's program NAME, from RVS_BIN when set, else the build tree
# beside these scripts (plots/../build), else an installed tree (PREFIX/share/rvskit/plots ->
# PREFIX/libexec/rvskit), else PATH (rvs-NAME, or NAME). Status 1 when there is none.
rvs_find() {
  local here d
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  for d in "${RVS_BIN:-}" "$here/../build" "$here/../../../libexec/rvskit"; do
    if [ -n "$d" ] && [ -x "$d/$1" ]; then echo "$d/$1"; return 0; fi
  done
  command -v "rvs-$1" 2>/dev/null || command -v "$1" 2>/dev/null || return 1
}

# plot_setup: the programs (rvsinfo, gnuplot) and the scratch folder.
plot_setup() {
  rvsinfo=$(rvs_find rvsinfo) || plot_die 69 "rvsinfo not found (build rvskit, or set RVS_BIN)"
  command -v gnuplot >/dev/null || plot_die 69 "gnuplot not found (install gnuplot-nox)"
  plot_tmp=$(mktemp -d "${TMPDIR:-/tmp}/$plot_name.XXXXXX")
  trap 'rm -rf "$plot_tmp"' EXIT
}

# plot_input [FILE]: the input, FILE or (FILE absent or '-') a copy of standard input, which
# the scripts read more than once; plot_read PROGRAM ARGS... runs PROGRAM on it, under its name.
plot_input() {
  plot_stdin=0
  if [ $# -eq 0 ] || [ "$1" = - ]; then
    plot_in=$plot_tmp/input plot_stdin=1
    cat > "$plot_in" || plot_die 74 "stdin: read error"
  else
    plot_in=$1
  fi
}
plot_read() {
  if [ "$plot_stdin" = 1 ]; then "$@" - < "$plot_in"; else "$@" "$plot_in" < /dev/null; fi
}

# plot_quote TEXT: TEXT as a gnuplot string in single quotes (a quote doubled).
plot_quote() { printf "'%s'" "${1//\'/\'\'}"; }

# plot_draw SCRIPT.gp OUT SETTINGS: draw OUT with gnuplot (SETTINGS: its -e assignments; the
# input's name goes in as what, for its messages); no picture is left behind when it fails.
plot_draw() {
  local gp=$1 out=$2 settings=$3 what=stdin st=0 msg
  [ "$plot_stdin" = 1 ] || what=$plot_in
  { : > "$out"; } 2>/dev/null || plot_die 74 "$out: cannot write"
  gnuplot -e "out=$(plot_quote "$out"); what=$(plot_quote "$what"); $plot_size; $settings" "$gp" \
    2> "$plot_tmp/gnuplot.err" || st=$?
  if [ "$st" -ne 0 ] || [ ! -s "$out" ]; then
    rm -f "$out"
    msg=$(grep -v '^ *$' "$plot_tmp/gnuplot.err" | tail -1)
    # 65: the table holds nothing to draw (the script says what); else gnuplot failed
    [ "$st" -eq 65 ] && plot_die 65 "$msg"
    plot_die 70 "gnuplot: $msg"
  fi
}
