# python.sh [SCRIPT [ARGS...]] - the Python module (python/rvskit) by tests/python/SCRIPT
# [test_python.py: the stream reader and writer against the C programs], run by the first python3
# that has numpy and scipy (./setup installs Debian's python3-scipy).
. "$RVS_SRC/tests/lib/common.sh"
py=""
for p in "${RVS_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && "$p" -c 'import numpy, scipy' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "no python3 with numpy and scipy (apt-get install python3-scipy)"; exit 77; }
export T
script=${1:-test_python.py}
[ $# -gt 0 ] && shift
# the module loads this tree's librvskit; a sanitized one needs its runtimes first in python3
export RVSKIT_LIB=$RVS_BIN/librvskit.so
[ "$script" != test_python.py ] && python_loads_librvskit
PYTHONPATH="$RVS_SRC/python" "$py" "$RVS_SRC/tests/python/$script" "$@"
