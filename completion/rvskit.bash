# rvskit.bash - bash completion for the installed rvskit programs (rvs-pmf, rvs-partition,
# rvs-convert, rvs-spmv, rvs-spgemm, rvsgen, rvsinfo): options from each program's --help,
# the values of options that take a fixed set, file names otherwise.
# Installed as share/bash-completion/completions/rvskit, with a link per command name.

# _rvskit_values PROG OPTION: the fixed values of OPTION, or nothing.
_rvskit_values()
{
    local prog=$1 opt=$2 formats
    case $opt in
        --to|--gpu-format|--cpu-format)
            [[ $prog == *convert ]] || return
            formats=$("$prog" --help 2>/dev/null | sed -n 's/^FORMAT is one of: \(.*\)\.$/\1/p' | tr ',' ' ')
            [[ $opt == --to ]] && formats="$formats mtx auto"
            [[ $opt != --to ]] && formats="$formats auto"
            echo "$formats" ;;
        --format|-f) [[ $prog == *spmv ]] && echo "auto csr coo ell ellr pellr biell jad hyb hyb-dia dia hcc" ;;
        --alg|-a)
            [[ $prog == *partition ]] && echo "rows nnz pmf diag metis"
            [[ $prog == *spmv-mpi ]] && echo "auto rows nnz pmf metis" ;;
        --precision|-p) echo "f32 f64" ;;
        --hyb-k|-k) echo "auto third" ;;
    esac
}

_rvskit()
{
    local cur prev prog=$1 values
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    values=$(_rvskit_values "$prog" "$prev")
    if [[ -n $values ]]; then
        COMPREPLY=($(compgen -W "$values" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        # every long option the program's --help lists (a value follows a space in the listing)
        local opts
        opts=$("$prog" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    if [[ $prog == rvsgen && $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "stencil7 stencil27 rmat replica" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}

complete -F _rvskit rvs-pmf rvs-partition rvs-convert rvs-spmv rvs-spgemm rvsgen rvsinfo rvs-spmv-mpi
