# install.sh - the installed tree: install into a temporary prefix, build the example program
# against that prefix only (CMake package, shared and static; pkg-config), run the installed
# commands under their names (and the card's pipeline through libexec/rvskit), read the man
# pages, complete a command line, import the Python module, draw from the installed plots.
. "$RVS_SRC/tests/lib/common.sh"
command -v cmake >/dev/null || { echo "cmake missing"; exit 77; }
P=$T/prefix
M=$RVS_DATA/pmf20.mtx
if ! cmake --install "$RVS_BIN" --prefix "$P" >"$T/install.log" 2>&1; then
  bad "cmake --install: $(tail -5 "$T/install.log")"
  finish
fi
(cd "$P" && find . | LC_ALL=C sort) >"$T/tree"
echo "installed tree:"; sed 's/^/  /' "$T/tree"

# what is there: commands that shadow nobody, the programs, the library, headers, packages
mpi=; mpix=; [ -x "$RVS_BIN/spmv-mpi" ] && mpi="rvs-spmv-mpi " && mpix=" spmv-mpi" # built when MPI was found
expect_eq "bin" "$(ls "$P/bin" | tr '\n' ' ')" "rvs-convert rvs-partition rvs-pmf rvs-spgemm rvs-spmv ${mpi}rvsgen rvsinfo "
expect_eq "libexec" "$(ls "$P/libexec/rvskit" | tr '\n' ' ')" "convert partition pmf rvsgen rvsinfo spgemm spmv${mpix} "
for f in lib/librvskit.a lib/librvskit.so lib/pkgconfig/rvskit.pc lib/cmake/rvskit/rvskitConfig.cmake \
         lib/cmake/rvskit/rvskitTargets.cmake include/rvskit/rvskit.h include/rvskit/rvs_stream.h \
         include/rvskit/rvskit_config.h share/man/man1/rvs-pmf.1 share/man/man1/rvsgen.1 \
         share/man/man1/rvsinfo.1 share/man/man5/rvs.5 share/man/man7/rvskit.7 share/man/man3/rvskit.3 \
         share/man/man3/rvs_spmv_op.3 share/man/man3/rvs_mm_read.3 share/man/man3/rvs_partition.3 \
         share/bash-completion/completions/rvs-convert share/rvskit/plots/pmf.gp \
         share/doc/rvskit/examples/pmf_stats.c; do
  [ -e "$P/$f" ] && ok || bad "not installed: $f"
done
expect_eq "SONAME" "$(objdump -p "$P/lib/librvskit.so" | awk '$1 == "SONAME" { print $2 }')" librvskit.so.0
grep -E "rvs_tool|rvs_json|rvs_calibrate|stream_layout|fmt_parts|librvstool|librvsformat" "$T/tree" &&
  bad "private headers or in-tree libraries installed" || ok
# the public header set: what rvskit.h includes; the engine's plans and runner, the kernels'
# and the GPU layer's headers stay internal
for h in rvs_stream.h rvs_mm.h rvs_csr.h rvs_format.h rvs_partition.h rvs_pmf.h rvs_spmv_op.h rvs_spgemm_run.h; do
  [ -e "$P/include/rvskit/$h" ] && ok || bad "public header not installed: $h"
done
grep -E "/(rvs|rvs_engine|rvs_engine_spgemm|rvs_gpu|rvs_cpu|rvs_cusparse|rvs_mem|rvs_draw|rvs_source)\.h$" "$T/tree" &&
  bad "internal headers installed" || ok
# every public header compiles on its own, as C and as C++
for h in "$P"/include/rvskit/*.h; do
  echo "#include <rvskit/$(basename "$h")>" | cc -std=c11 -Wall -Werror -fsyntax-only -I"$P/include" -x c - 2>"$T/h.err" &&
    ok || bad "$(basename "$h") does not compile alone: $(head -3 "$T/h.err")"
done
if command -v c++ >/dev/null; then
  echo "#include <rvskit/rvskit.h>" | c++ -fsyntax-only -I"$P/include" -x c++ - 2>"$T/h.err" && ok ||
    bad "rvskit.h in C++: $(head -3 "$T/h.err")"
fi

# the example, built against the installed tree only: CMake package (shared, then static);
# a sanitizer build installs sanitized libraries, so its examples are built the same way
san=""
[ "${RVS_SANITIZED:-OFF}" = ON ] && san="-fsanitize=address,undefined"
want=$(printf 'rows 20 cols 20 nnz 117\nrow length min 1 max 13 mean 5.850 stddev 3.609')
for static in OFF ON; do
  b=$T/example-$static
  if cmake -S "$P/share/doc/rvskit/examples" -B "$b" -DCMAKE_PREFIX_PATH="$P" -DRVSKIT_STATIC=$static \
       -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_FLAGS="$san" >"$T/ex.log" 2>&1 && cmake --build "$b" >>"$T/ex.log" 2>&1; then
    out=$("$b/pmf_stats" "$M")
    expect_eq "example ($static) output" "$(echo "$out" | sed -n '2,3p')" "$want"
    if [ $static = ON ]; then
      ldd "$b/pmf_stats" | grep -q librvskit && bad "static example needs librvskit.so" || ok
    else
      ldd "$b/pmf_stats" | grep -q "librvskit.so.0 => $P/lib/" && ok || bad "shared example: $(ldd "$b/pmf_stats" | grep rvskit)"
    fi
  else
    bad "example with RVSKIT_STATIC=$static: $(grep -iE 'error|not found' "$T/ex.log" | head -5)"
  fi
done
# ... and through pkg-config, shared and static
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$P/lib/pkgconfig
  if cc $san -o "$T/ex-pc" "$P/share/doc/rvskit/examples/pmf_stats.c" $(pkg-config --cflags --libs rvskit) \
       -Wl,-rpath,"$P/lib" 2>"$T/pc.err"; then
    expect_eq "pkg-config example" "$("$T/ex-pc" "$M" | sed -n '2,3p')" "$want"
  else
    bad "pkg-config build: $(head -5 "$T/pc.err")"
  fi
  if cc $san -o "$T/ex-pcs" "$P/share/doc/rvskit/examples/pmf_stats.c" $(pkg-config --cflags rvskit) \
       "$P/lib/librvskit.a" $(pkg-config --static --libs rvskit | sed 's/-lrvskit//') 2>"$T/pcs.err"; then
    expect_eq "pkg-config static example" "$("$T/ex-pcs" "$M" | sed -n '2,3p')" "$want"
  else
    bad "pkg-config static build: $(head -5 "$T/pcs.err")"
  fi
else
  echo "pkg-config missing: its checks skipped"
fi

# the installed commands, under their names; the card's pipeline both ways
expect_eq "rvs-pmf --version" "$("$P/bin/rvs-pmf" --version)" "rvs-pmf (rvskit) 0.1.0"
expect_fail 66 "^rvs-pmf: $T/missing.mtx: " -- "$P/bin/rvs-pmf" "$T/missing.mtx"
( export PATH="$P/bin:/usr/bin:/bin"
  rvs-pmf "$M" | rvs-partition --alg pmf --cp 1,2,6 | rvs-convert --gpu-format ellr --cpu-format csr |
    rvs-spmv --cpu --check >"$T/card1" 2>&1
  echo "${PIPESTATUS[*]}" >"$T/card1.st" )
expect_eq "card pipeline, rvs- names" "$(cat "$T/card1.st")" "0 0 0 0"
( export PATH="$P/libexec/rvskit:/usr/bin:/bin"
  [ "$(command -v pmf)" = "$P/libexec/rvskit/pmf" ] || echo "pmf is $(command -v pmf)" >"$T/card2.st"
  pmf "$M" | partition --alg pmf --cp 1,2,6 | convert --gpu-format ellr --cpu-format csr |
    spmv --cpu --check >"$T/card2" 2>&1
  echo "${PIPESTATUS[*]}" >>"$T/card2.st" )
expect_eq "card pipeline, libexec/rvskit first on PATH" "$(cat "$T/card2.st")" "0 0 0 0"
grep -q "^# check ok" "$T/card2" && ok || bad "card pipeline output: $(head -c 300 "$T/card2")"

# man pages from the prefix: the installed names, clean at 80 columns
if command -v man >/dev/null; then
  expect_eq "man rvs-pmf" "$(MANWIDTH=80 man -M "$P/share/man" rvs-pmf 2>/dev/null | sed -n '1p' | awk '{ print $1 }')" "RVS-PMF(1)"
  MANWIDTH=80 man -M "$P/share/man" 7 rvskit 2>/dev/null | grep -q "rvs-pmf(1)" && ok || bad "rvskit.7 installed does not name rvs-pmf(1)"
  expect_eq "man 3 rvs_spmv_op" "$(MANWIDTH=80 man -M "$P/share/man" 3 rvs_spmv_op 2>/dev/null | sed -n '1p' | awk '{ print $1 }')" "RVS_SPMV_OP(3)"
  MANWIDTH=80 man -M "$P/share/man" 3 rvskit 2>/dev/null | grep -q "pkg-config --cflags --libs rvskit" && ok ||
    bad "rvskit.3 installed does not say how to link"
  for f in "$P"/share/man/man*/*; do
    w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null | head -2)
    [ -z "$w" ] && ok || bad "$(basename "$f"): $w"
  done
  for f in "$P"/share/man/man*/*; do
    long=$(LC_ALL=C MANWIDTH=80 man -l "$f" 2>/dev/null | awk 'length($0) > 80' | head -1)
    [ -z "$long" ] && ok || bad "$(basename "$f") is wider than 80 columns: $long"
  done
else
  echo "man missing: its checks skipped"
fi

# bash completion of the installed commands
comp() { PATH="$P/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
  _rvskit "$1"; echo "${COMPREPLY[*]}"' _ "$P/share/bash-completion/completions/rvskit" "$@"; }
expect_eq "complete rvs-convert --to el" "$(comp rvs-convert --to el)" "ell ellr"
expect_eq "complete rvs-pmf --js" "$(comp rvs-pmf --js)" "--json"
expect_eq "complete rvs-partition --alg p" "$(comp rvs-partition --alg p)" "pmf"
expect_eq "complete rvsgen st" "$(comp rvsgen st)" "stencil7 stencil27"
expect_eq "completion links" "$(readlink "$P/share/bash-completion/completions/rvs-spmv")" rvskit

# the Python module where the prefix puts it
for py in python3 /usr/bin/python3; do
  "$py" -c 'import numpy, scipy' 2>/dev/null || continue
  dir=$(dirname "$(dirname "$(find "$P/lib" -path '*/rvskit/__init__.py' | head -1)")")
  expect_eq "python from the prefix" "$(cd "$T" && "$P/bin/rvs-pmf" "$M" |
    PYTHONPATH="$dir" "$py" -c 'import sys, rvskit; s = rvskit.read(sys.stdin.buffer); print(rvskit.__file__.startswith(sys.argv[1]), s.matrix.nnz)' "$P")" "True 117"
  # ... computing with the library of the prefix, found from the module's place
  expect_eq "python finds the installed library" "$(python_loads_librvskit; cd "$T" && env -u RVSKIT_LIB PYTHONPATH="$dir" "$py" -c \
    'import sys, rvskit; print(rvskit.library_path().startswith(sys.argv[1]), rvskit.mmread(sys.argv[2]).nnz)' "$P" "$M")" "True 117"
  # pip install ./python (a copy: pip builds in the tree it is given), the library named by RVSKIT_LIB
  if "$py" -m pip --version >/dev/null 2>&1 && "$py" -c 'import setuptools' 2>/dev/null; then
    cp -r "$RVS_SRC/python" "$T/pysrc" && rm -rf "$T/pysrc/build" "$T/pysrc"/*.egg-info
    if "$py" -m pip install -q --no-build-isolation --no-index --no-deps --target "$T/pip" "$T/pysrc" >"$T/pip.log" 2>&1; then
      expect_eq "pip install ./python" "$(python_loads_librvskit; cd "$T" && RVSKIT_LIB="$P/lib/librvskit.so" PYTHONPATH="$T/pip" "$py" -c \
        'import sys, rvskit; print(rvskit.__file__.startswith(sys.argv[1]), rvskit.pmf(rvskit.mmread(sys.argv[2])).max)' "$T/pip" "$M")" "True 13"
    else
      bad "pip install ./python: $(tail -3 "$T/pip.log")"
    fi
  else
    echo "pip or setuptools missing: pip install ./python not tried"
  fi
  break
done

# the installed plot script finds the installed programs
if command -v gnuplot >/dev/null; then
  expect_eq "installed density.sh" "$(env -i PATH=/usr/bin:/bin "$P/share/rvskit/plots/density.sh" --cp 1,2,6 "$M" | tail -1)" \
    "pmf20 0.5318 0.5680 0.7548"
  env -i PATH=/usr/bin:/bin "$P/share/rvskit/plots/spy.sh" -o "$T/spy.png" "$M" && [ -s "$T/spy.png" ] && ok ||
    bad "installed spy.sh"
fi

# a staged install (DESTDIR) puts everything, links included, under the stage
DESTDIR=$T/stage cmake --install "$RVS_BIN" --prefix /opt/rvskit >/dev/null 2>&1
expect_eq "DESTDIR link" "$(readlink "$T/stage/opt/rvskit/bin/rvs-spmv")" "../libexec/rvskit/spmv"
"$T/stage/opt/rvskit/bin/rvs-spmv" --version >/dev/null && ok || bad "staged rvs-spmv does not run"
finish
