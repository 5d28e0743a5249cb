"""Matrix Market reading, the PMF, partitions and SpGEMM through librvskit."""

import ctypes
import os
from dataclasses import dataclass

import numpy as np

from . import _hub, _lib
from .errors import ERR_ARG, ERR_DIM, Error
from .stream import PMF, Part, Partition


def _err():
    e = _lib.RvsError()
    return e, ctypes.byref(e)


def mmread(path, precision=None):
    """Read a Matrix Market file into a scipy.sparse.csr_matrix with librvskit's reader.

    path: a file name (str or os.PathLike); gzip, bzip2, xz and zstd files are read as they are,
    told by their first bytes, not their names. Coordinate and array files; real, integer,
    pattern and complex fields; symmetric, skew-symmetric and hermitian files are expanded to
    general. Duplicates are summed, explicit zeros kept, rows sorted. Values are float64
    (complex128 for complex files; pattern entries are 1.0); precision "f32" rounds them to
    float32 (complex64). The matrix's arrays are the ones the C reader filled (no copy, except
    the row pointers, which scipy keeps in 32 bits for matrices that fit).

    Raises rvskit.Error: ERR_NOFILE for a file that cannot be opened, ERR_FORMAT (the message
    names the line) for a malformed one, ERR_TRUNCATED for a cut compressed file."""
    csr, info = _lib.Csr(), _lib.MmInfo()
    e, ep = _err()
    name = os.fsencode(path)
    dtype = None if precision is None else _hub.value_dtype(np.float64, precision)  # checked before reading
    st = _lib.lib().rvs_mm_read_file(ctypes.byref(csr), ctypes.byref(info), name, None, None, ep)
    if st == 0 and dtype is not None:
        st = _lib.lib().rvs_csr_convert_values(ctypes.byref(csr), _hub.VTYPES[_hub.value_dtype(
            _hub.DTYPES[csr.vtype], precision)], ep)
    if st != 0:
        _lib.lib().rvs_csr_free(ctypes.byref(csr))
        raise Error("%s: %s" % (os.fsdecode(path), _lib.message(st, e)), st)
    return _hub.to_scipy(csr)


def pmf(matrix):
    """The distribution of the row lengths of a sparse matrix (any scipy.sparse matrix, or what
    scipy.sparse.csr_matrix takes), as pmf(1) computes it: rvskit.PMF with k (the distinct row
    lengths, ascending), b (how many rows have each), p (b / rows), rows, cols, nnz, empty_rows,
    min, max, mean, stddev (population) and ell_density (nnz / (rows * max))."""
    a = _hub.Lent(matrix)
    p = _lib.Pmf()
    e, ep = _err()
    L = _lib.lib()
    _lib.check(L.rvs_pmf_compute(ctypes.byref(p), a.ref, ep), e)
    try:
        k = np.ctypeslib.as_array(ctypes.cast(p.k, ctypes.POINTER(ctypes.c_int64)), (p.nbins,)).copy() \
            if p.nbins else np.zeros(0, np.int64)
        b = np.ctypeslib.as_array(ctypes.cast(p.b, ctypes.POINTER(ctypes.c_int64)), (p.nbins,)).copy() \
            if p.nbins else np.zeros(0, np.int64)
        return PMF(rows=p.rows, cols=p.cols, nnz=p.nnz, empty_rows=p.empty_rows, min=p.min, max=p.max,
                   mean=p.mean, stddev=p.stddev, ell_density=p.ell_density, k=k, b=b)
    finally:
        L.rvs_pmf_free(ctypes.byref(p))


def _dtype_of(matrix):
    return getattr(matrix, "dtype", np.float64)


ALGORITHMS = ("rows", "nnz", "pmf", "diag", "metis")
ENTRIES = {0: "all", 1: "diag", 2: "offdiag"}
DEVICES = {"cpu": _lib.DEV_CPU, "gpu": _lib.DEV_GPU}


def partition(matrix, alg="pmf", cp=None, devices=None, block_size=0):
    """Split the rows of a sparse matrix into row vector sets, as partition(1) does.

    alg: "rows", "nnz", "pmf" (Algorithms 1-3 of Yang et al., "Performance Optimization Using
    Partitioned SpMV on GPUs and Multicore CPUs", IEEE Transactions on Computers, 2015) or "diag"
    (Algorithm 4: part 1 holds the entries inside the diagonal blocks of block_size [32] rows) or
    "metis" (METIS k-way on the graph of A + A^T, square matrices, where rvskit was built with METIS:
    few x entries cross the parts).
    cp: the computing power of each part (a sequence of positive numbers, one per part); None:
    partition(1)'s default, buckets of similar row length on the GPU when there is one.
    devices: "cpu" or "gpu" per part (None: partition(1)'s default with cp None, else all "cpu").

    Returns rvskit.Partition (alg, block_size, parts, and the statistics nnz, e_total,
    padded_total, mean_density, mean_zero_fill, rel_diff_pct); each rvskit.Part has its rows
    (0-based, in the order the part stores them), device, cp, entries and its nnz, width, e,
    padded and density. rvskit.Error (ERR_ARG) for an unknown algorithm, a computing power that
    is not positive, or too few parts for diag."""
    L = _lib.lib()
    if alg not in ALGORITHMS:
        raise Error("unknown partition algorithm %r (rows, nnz, pmf, diag, metis)" % (alg,), ERR_ARG)
    a = _hub.Lent(matrix)
    code = L.rvs_alg_from_name(alg.encode())
    e, ep = _err()
    if cp is None:
        k = ctypes.c_int()
        pcp, pdev = ctypes.POINTER(ctypes.c_double)(), ctypes.POINTER(ctypes.c_int)()
        note = ctypes.create_string_buffer(256)
        _lib.check(L.rvs_default_cp(a.ref, code, L.rvs_gpu_count(), None, ctypes.byref(pcp), ctypes.byref(pdev),
                                    ctypes.byref(k), note, len(note), ep), e)
        cps = [pcp[i] for i in range(k.value)]
        devs = [pdev[i] for i in range(k.value)]
        _lib.libc().free(pcp)
        _lib.libc().free(pdev)
        if devices is not None:
            devs = _device_codes(devices, len(cps))
    else:
        cps = [float(c) for c in np.atleast_1d(np.asarray(cp, dtype=np.float64))]
        devs = _device_codes(devices, len(cps))
    if not cps or not all(c > 0 for c in cps):
        raise Error("computing powers must be positive numbers, one per part: %r" % (cp,), ERR_ARG)
    P = _lib.Partition()
    cp_arr = (ctypes.c_double * len(cps))(*cps)
    dev_arr = (ctypes.c_int * len(devs))(*devs)
    _lib.check(L.rvs_partition_compute(ctypes.byref(P), a.ref, code, len(cps), cp_arr, dev_arr, int(block_size),
                                       ep), e)
    try:
        parts = []
        for i in range(P.k):
            q = P.parts[i]
            rows = np.ctypeslib.as_array(ctypes.cast(q.rows, ctypes.POINTER(ctypes.c_int64)), (q.nrows,)).copy() \
                if q.nrows else np.zeros(0, np.int64)
            parts.append(Part(rows=rows, device="gpu" if q.device == _lib.DEV_GPU else "cpu", cp=q.cp,
                              entries=ENTRIES.get(q.entries, "all"), nnz=q.nnz, width=q.width, e=q.e,
                              padded=q.padded, density=q.density))
        return Partition(alg=alg, parts=parts, block_size=P.block_size, nnz=P.nnz, e_total=P.e_total,
                         padded_total=P.padded_total, mean_density=P.mean_density,
                         mean_zero_fill=P.mean_zero_fill, rel_diff_pct=P.rel_diff_pct)
    finally:
        L.rvs_partition_free(ctypes.byref(P))


def _device_codes(devices, k):
    if devices is None:
        return [_lib.DEV_CPU] * k
    devices = [devices] * k if isinstance(devices, str) else list(devices)
    if len(devices) != k or any(d not in DEVICES for d in devices):
        raise Error("devices: %d of 'cpu' or 'gpu' wanted, one per part: %r" % (k, devices), ERR_ARG)
    return [DEVICES[d] for d in devices]


def gpu_count():
    """The number of usable GPUs (0 without one, or in a library built without CUDA)."""
    return _lib.lib().rvs_gpu_count()


def devices():
    """The processors librvskit sees: a dict with cpu_threads, gpus, gpu (the name and memory of
    device 0, or why there is none) and gpu_free_bytes."""
    d = _lib.Devices()
    _lib.lib().rvs_engine_devices_probe(ctypes.byref(d), 0, 1)
    return {"cpu_threads": d.cpu_threads, "gpus": d.gpus, "gpu": _lib.text(d.gpu_desc),
            "gpu_free_bytes": d.gpu_free_bytes}


# -- SpGEMM -----------------------------------------------------------------------------------

SPGEMM_WHERE = {1: "cpu", 2: "gpu", 3: "hybrid"}


@dataclass
class SpgemmInfo:
    """What one rvskit.spgemm did: where it ran (and why, when chosen), the products a_ik * b_kj
    (flops = 2 * products), nnz of C, and seconds: total (host CSR to host CSR) and its stages
    setup (starting the GPU), pre (counting, binning, the symbolic pass, the choice), transfer,
    multiply and compress; kernel: device compute alone (GPU)."""
    device: str
    why: str
    products: int
    nnz: int
    total_s: float
    setup_s: float
    pre_s: float
    transfer_s: float
    multiply_s: float
    compress_s: float
    kernel_s: float
    cpu_rows: int
    gpu_rows: int


def spgemm(a, b=None, device="auto", precision=None, info=False):
    """C = A*B (A*A when b is None) for sparse A and B, as a scipy.sparse.csr_matrix.

    device: "auto" (chosen from the product count and the calibration, as spgemm(1) does
    without a device option; the CPU when a GPU was presumed and is absent), "cpu" (OpenMP),
    "gpu" (row-wise, rows the device cannot hold computed on the CPU) or "hybrid" (long rows on
    the CPU, the rest on the GPU at the same time). Values are computed in the operands' type:
    complex when either is, float32 when both are float32, else float64; precision "f32" or
    "f64" sets the precision. Every structural product is kept (numerical zeros included).
    info=True returns (C, rvskit.SpgemmInfo).

    Raises rvskit.Error: ERR_DIM when A's columns are not B's rows, ERR_NODEV for "gpu" or
    "hybrid" without a GPU, ERR_ARG for an unknown device."""
    L = _lib.lib()
    calls = {"cpu": None, "gpu": L.rvs_spgemm_gpu, "hybrid": L.rvs_spgemm_hybrid, "auto": L.rvs_spgemm_auto}
    if device not in calls:
        raise Error("device %r is not 'auto', 'cpu', 'gpu' or 'hybrid'" % (device,), ERR_ARG)
    da = _hub.value_dtype(_dtype_of(a))
    db = _hub.value_dtype(_dtype_of(b)) if b is not None else da
    dt = np.result_type(da, db)
    dt = _hub.value_dtype(dt, precision)
    A = _hub.lend(a, dt)
    B = _hub.lend(b, dt) if b is not None else A
    if A.shape[1] != B.shape[0]:
        raise Error("dimension mismatch: A is %d x %d, B is %d x %d" % (A.shape + B.shape), ERR_DIM)
    C, stats, opts = _lib.Csr(), _lib.SpgemmStats(), _lib.SpgemmOptions()
    where, why = ctypes.c_int(0), ctypes.create_string_buffer(256)
    e, ep = _err()
    if device == "cpu":
        st = L.rvs_spgemm_cpu(ctypes.byref(C), A.ref, B.ref, ctypes.byref(stats), ep)
    elif device == "auto":
        st = L.rvs_spgemm_auto(ctypes.byref(C), A.ref, B.ref, ctypes.byref(opts), ctypes.byref(stats),
                               ctypes.byref(where), why, len(why), ep)
    else:
        st = calls[device](ctypes.byref(C), A.ref, B.ref, ctypes.byref(opts), ctypes.byref(stats), ep)
    _lib.check(st, e)
    result = _hub.to_scipy(C)
    if not info:
        return result
    ran = SPGEMM_WHERE.get(where.value, "cpu") if device == "auto" else device
    return result, SpgemmInfo(device=ran, why=_lib.text(why.value), products=stats.products, nnz=stats.nnz_c,
                              total_s=stats.t_total, setup_s=stats.t_setup, pre_s=stats.t_pre,
                              transfer_s=stats.t_transfer, multiply_s=stats.t_multiply,
                              compress_s=stats.t_compress, kernel_s=stats.t_kernel, cpu_rows=stats.cpu_rows,
                              gpu_rows=stats.gpu_rows)

