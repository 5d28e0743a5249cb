"""python_spmv.py - rvskit from Python against what a scipy or CuPy user calls instead; one table
row per call, run by bench/python_spmv.sh (PYTHONPATH=python, RVSKIT_LIB set).

    python_spmv.py spmv NAME STREAM PRECISION   op @ x against scipy (CPU) and CuPy's cuSPARSE (GPU)
    python_spmv.py mmread FILE C_SECONDS        rvskit.mmread against the C reader and scipy.io.mmread

spmv: the matrix is read from an RVS stream (rvsgen's) by the stream reader; every timing is a
median of per-call wall times, each call ending with its y ready (CuPy: the stream synchronized),
fresh y each call as `A @ x` gives it. CPU: scipy's A @ x (one thread) and op @ x on all cores
(OMP_NUM_THREADS). GPU: CuPy's cupyx.scipy.sparse.csr_matrix @ x (cuSPARSE) and op @ x, both
on CuPy vectors; the operator first makes WARM calls (its tuning between calls settles). The
Python overhead of a call is op @ x less the bare ctypes call of rvs_spmv_op_apply (or
_apply_device) on the same operator and x, into a fresh y each (as op @ x makes), calls made
in turns, with the library's function replaced on both sides by a C function that does nothing
(libm's fegetround, which returns 0): what Python adds, without the product's call-to-call
noise, which on a large matrix is larger than the overhead. Every y is checked against scipy's."""

import ctypes
import ctypes.util
import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import rvskit

WARM = int(os.environ.get("WARM", "10000"))        # operator calls before the GPU timing
CALLS_GPU = int(os.environ.get("CALLS_GPU", "200"))
CALLS_CPU = int(os.environ.get("CALLS_CPU", "20"))
CALLS_RAW = int(os.environ.get("CALLS_RAW", "4000"))  # the overhead's medians: many short calls


def median_call(f, n, sync=None):
    """Median wall time of n calls of f (each followed by sync), seconds."""
    t = np.empty(n)
    for i in range(n):
        t0 = time.perf_counter()
        f()
        if sync:
            sync()
        t[i] = time.perf_counter() - t0
    return float(np.median(t))


def overhead_us(python_call, raw_call, sync=None):
    """What python_call takes beyond raw_call, microseconds: the median of the differences of
    calls made in turns, each first in every other pair (a slow stretch of the machine falls on
    both), over as many pairs as take about a second (CALLS_RAW at most, 20 at least)."""
    n = int(min(CALLS_RAW, max(20, 0.5 / max(median_call(python_call, 5, sync), 1e-7))))
    d = np.empty(n)
    for i in range(n):  # the order turns too: the second call of a pair finds warmer caches
        if i % 2:
            d[i] = median_call(python_call, 1, sync) - median_call(raw_call, 1, sync)
        else:
            d[i] = -median_call(raw_call, 1, sync) + median_call(python_call, 1, sync)
    return float(np.median(d)) * 1e6


def no_op_like(f):
    """A C function that does nothing and returns 0 (libm's fegetround: FE_TONEAREST), taking
    what f takes, so that the overhead's two sides make the same conversions and call."""
    g = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6").fegetround
    g.argtypes, g.restype = f.argtypes, f.restype
    return g


def overhead_of(op, attr, python_call, bare_call):
    """overhead_us with op's library call (op.<attr>, which bare_call gets as its argument too)
    replaced by a no-op on both sides."""
    real = getattr(op, attr)
    stub = no_op_like(real)
    setattr(op, attr, stub)
    try:
        return overhead_us(python_call, lambda: bare_call(stub))
    finally:
        setattr(op, attr, real)


def close(a, x, y, vt):
    """y is A x within the tolerance of its precision (relative to sum |a_ij x_j| per row)."""
    ref = a.astype(np.float64) @ x.astype(np.float64)
    scale = abs(a).astype(np.float64) @ np.abs(x.astype(np.float64)) + 1e-300
    return bool(np.all(np.abs(np.asarray(y, np.float64) - ref) <= (1e-4 if vt == "f32" else 1e-10) * scale))


def cupy_or_none():
    try:
        import cupy
        import cupyx.scipy.sparse  # noqa: F401
        return cupy
    except ImportError:
        return None


def spmv(name, path, vt):
    dt = np.float32 if vt == "f32" else np.float64
    a = rvskit.read(path, verify=False).matrix.astype(dt)
    a.sort_indices()
    x = np.random.default_rng(1).uniform(-1, 1, a.shape[1]).astype(dt)
    ok = True
    # CPU: scipy against the operator
    sci_ms = median_call(lambda: a @ x, CALLS_CPU) * 1e3
    op = rvskit.SpMV(a, device="cpu", cache=False)
    ok &= close(a, x, op @ x, vt)
    cpu_ms = median_call(lambda: op @ x, CALLS_CPU) * 1e3
    h, xp, ep, rows = op._handle, x.ctypes.data, op._errp, a.shape[0]

    def bare(raw):  # a fresh y, as op @ x makes
        y = np.empty(rows, dt)
        raw(h, xp, y.ctypes.data, ep)
    ovh_cpu = overhead_of(op, "_apply", lambda: op @ x, bare)
    del op
    row = [name, vt, a.shape[0], a.nnz, "%.4f" % sci_ms, "%.4f" % cpu_ms, "%.2f" % (sci_ms / cpu_ms),
           "%.2f" % ovh_cpu]
    cp = cupy_or_none()
    if rvskit.gpu_count() == 0 or cp is None:
        row += ["-"] * 7
    else:
        sync = cp.cuda.get_current_stream().synchronize
        xd = cp.asarray(x)
        import cupyx.scipy.sparse as csp
        ad = csp.csr_matrix(a)
        ok &= close(a, x, cp.asnumpy(ad @ xd), vt)
        cus_ms = median_call(lambda: ad @ xd, CALLS_GPU, sync) * 1e3
        op = rvskit.SpMV(a, device="gpu", cache=False)
        ok &= close(a, x, cp.asnumpy(op @ xd), vt)
        t_end = time.perf_counter() + 30  # at most half a minute of warming
        for i in range(WARM):
            op @ xd
            if i % 1000 == 999 and time.perf_counter() > t_end:
                break
        gpu_ms = median_call(lambda: op @ xd, CALLS_GPU, sync) * 1e3
        ok &= close(a, x, cp.asnumpy(op @ xd), vt)
        h, xp, ep = op._handle, xd.data.ptr, op._errp

        def bare_device(raw):
            yd = cp.empty(rows, dt)
            raw(h, xp, yd.data.ptr, ep)
        ovh_gpu = overhead_of(op, "_apply_device", lambda: op @ xd, bare_device)
        s = op.info()
        row += ["%.4f" % cus_ms, "%.4f" % gpu_ms, "%.2f" % (cus_ms / gpu_ms), "%.2f" % ovh_gpu,
                s.format + ("@" + s.knobs if s.knobs != "default" else ""), s.how, s.switches]
    row.append("ok" if ok else "WRONG")
    print(" ".join(str(v) for v in row))


def mmread(path, c_seconds):
    """One row: MB, the C reader's seconds (bench_mmread, given), rvskit.mmread's (the first call
    in this process, and a second), scipy's."""
    mb = os.path.getsize(path) / 1e6
    rvskit.library_path()  # loaded before the clock starts, as in a session that has used it
    t = time.perf_counter()
    a = rvskit.mmread(path)
    t_rvs = time.perf_counter() - t
    nnz = a.nnz
    del a
    t = time.perf_counter()
    a = rvskit.mmread(path)  # again: what the first read paid once (threads, the library's pages)
    t_rvs2 = time.perf_counter() - t
    del a
    t = time.perf_counter()
    b = scipy.io.mmread(path)
    t_sci = time.perf_counter() - t
    b = sp.csr_matrix(b)
    t_csr = time.perf_counter() - t
    b.sum_duplicates()
    c = float(c_seconds)
    print("%s %.1f %.3f %.3f %.3f %.3f %.3f %.2f %.2f %.2f %s" % (os.path.basename(path), mb, c, t_rvs, t_rvs2,
                                                                t_sci, t_csr, c / t_rvs, t_sci / t_rvs,
                                                                t_csr / t_rvs,
                                                            "ok" if nnz == b.nnz else "WRONG"))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "spmv" and len(sys.argv) == 5:
        spmv(*sys.argv[2:])
    elif cmd == "mmread" and len(sys.argv) == 4:
        mmread(*sys.argv[2:])
    else:
        sys.exit(__doc__)
