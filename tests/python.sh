# python.sh - the Python module (python/rvskit) against the C programs: tests/test_python.py,
# run by the first python3 that has numpy and scipy (./setup installs Debian's python3-scipy).
. "$RVS_SRC/tests/lib/common.sh"
py=""
for p in "${RVS_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && "$p" -c 'import numpy, scipy' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "no python3 with numpy and scipy (apt-get install python3-scipy)"; exit 77; }
export T
PYTHONPATH="$RVS_SRC/python" "$py" "$RVS_SRC/tests/test_python.py"
