"""rvskit.SpMV: librvskit's SpMV operator (rvs_spmv_op) as a scipy.sparse.linalg.LinearOperator."""

import ctypes
import sys
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from . import _hub, _lib
from .errors import ERR_ARG, ERR_DIM, ERR_UNSUPPORTED, Error


@dataclass
class SpMVInfo:
    """What an rvskit.SpMV runs and what it cost: device, precision, format and knobs running now,
    how they were chosen ("model", "trial", "cache", "fixed", "tuned": switched between calls
    to a faster candidate, or "default": on the GPU, the rule's CSR, run at once while the model
    decides between the first calls), the model's predicted_ms of one product (None where none),
    decide_ms (choosing at creation), tune_ms (what trying candidates between calls has added to
    the calls so far), switches, calls, and items (1 unless the matrix is split in row blocks)."""
    device: str
    precision: str
    format: str
    knobs: str
    how: str
    predicted_ms: object
    decide_ms: float
    tune_ms: float
    switches: int
    calls: int
    items: int


def _is_cupy(x):
    return type(x).__module__.split(".")[0] in ("cupy", "cupyx")


def _cupy():
    return sys.modules["cupy"]  # imported by whoever made the CuPy object


class SpMV(LinearOperator):
    """y = A x by librvskit, made once and applied many times.

        op = rvskit.SpMV(A, device="gpu")
        y = op @ x                       # or op.matvec(x), op(x), op.dot(x)
        x, info = scipy.sparse.linalg.cg(op, b)

    A: a sparse matrix (any scipy.sparse matrix, or what scipy.sparse.csr_matrix takes; its
    numpy arrays are borrowed, not copied, when it is already a canonical CSR of a value type
    librvskit computes in), or a cupyx.scipy.sparse matrix on the GPU (copied to the host once
    to plan from).

    device: "gpu", "cpu", or None for the GPU when there is one. precision: "f32" or "f64"
    [the matrix's; integers as f64]; complex matrices stay complex (c64, c128). The fitted
    model chooses the format at once; the candidates it could not tell apart (cuSPARSE's CSR
    SpMV always among them on the GPU) are tried between calls, within a tenth of the calls'
    time, and the faster one takes over. format: a fixed format ("csr", "ellr", "hcc", ...)
    instead; knobs: "KEY=VALUE,..." tunables set over the chosen ones (spmv(1) --tune);
    tune=False: no trials between calls; cache=False: the trial cache is neither read nor
    written; threads: CPU threads [all].

    x: a NumPy array (1-D of A's columns, or 2-D with one column per product), on either
    device; or, on the GPU, a CuPy array, multiplied in device memory without a copy through
    the host (a plan that keeps part of the matrix on the CPU or streams it copies it through
    the host instead). y has the operator's dtype and x's kind (NumPy or CuPy); x of another
    dtype is converted first, a complex x for a real operator is done as its two parts.

    op.info() says what runs and what choosing and tuning cost, op.report() adds the candidates
    with their predicted and measured times, op.H is the operator of A's conjugate transpose
    (made on first use). An operator is not to be applied from two threads at once.

    Raises rvskit.Error: ERR_NODEV for device "gpu" without a GPU, ERR_UNSUPPORTED for a matrix
    past 2^31 columns, ERR_ARG for an unknown device, precision or format, ERR_DIM for an x of
    the wrong length."""

    def __init__(self, matrix, device=None, precision=None, format=None, tune=True, cache=True, threads=0,
                 knobs=None):
        L = _lib.lib()
        self._settings = dict(device=device, precision=precision, format=format, tune=tune, cache=cache,
                              threads=threads, knobs=knobs)
        self._handle = None
        self._adjoint_op = None
        self._source = matrix
        o = _lib.SpmvOpOptions()
        L.rvs_spmv_op_options_default(ctypes.byref(o))
        if device not in (None, "cpu", "gpu"):
            raise Error("device %r is not 'cpu', 'gpu' or None" % (device,), ERR_ARG)
        o.device = -1 if device is None else _lib.DEV_GPU if device == "gpu" else _lib.DEV_CPU
        o.threads, o.tune, o.use_cache = int(threads), 1 if tune else 0, 1 if cache else 0
        if format is not None:
            ops = L.rvs_format_by_name(str(format).encode())
            if not ops:
                raise Error("unknown format %r" % (format,), ERR_ARG)
            o.format = ops.contents.id
        self._knobs = None if knobs is None else str(knobs).encode()  # the op keeps the pointer
        o.tune_knobs = self._knobs
        handle = ctypes.c_void_p()
        self._err = _lib.RvsError()
        self._errp = ctypes.byref(self._err)
        if _is_cupy(matrix):
            dtype, shape = self._create_from_device(L, matrix, precision, o, handle)
        else:
            self._lent = _hub.lend(matrix)
            dtype = _hub.value_dtype(self._lent.dtype, precision)
            o.vtype = _hub.VTYPES[dtype]
            shape = self._lent.shape
            _lib.check(L.rvs_spmv_op_create(ctypes.byref(handle), self._lent.ref, ctypes.byref(o), self._errp),
                       self._err)
        self._handle = handle.value
        self._free = L.rvs_spmv_op_free
        self._apply = L.rvs_spmv_op_apply
        self._apply_device = L.rvs_spmv_op_apply_device
        self._rows, self._cols = shape
        self._xshape = (shape[1],)
        self._device_vectors = True
        super().__init__(dtype=dtype, shape=shape)
        s = self.info()
        self.device = s.device

    def _create_from_device(self, L, A, precision, o, handle):
        """The operator of a cupyx.scipy.sparse matrix: its CSR arrays as librvskit takes them."""
        cp = _cupy()
        if not hasattr(A, "tocsr"):  # a dense CuPy array
            import cupyx.scipy.sparse
            A = cupyx.scipy.sparse.csr_matrix(A)
        A = A.tocsr()
        if not getattr(A, "has_canonical_format", False):
            A = A.copy()
            A.sum_duplicates()
        dtype = _hub.value_dtype(A.dtype, precision)
        rows, cols = A.shape
        if cols > _hub.COL32_MAX:
            raise Error("%d columns need 64-bit column indices, which SpMV does not hold" % cols, ERR_UNSUPPORTED)
        indptr = cp.ascontiguousarray(A.indptr.astype(cp.int64))
        indices = cp.ascontiguousarray(A.indices.astype(cp.int32))
        data = cp.ascontiguousarray(A.data.astype(dtype))
        o.vtype = _hub.VTYPES[dtype]
        cp.cuda.get_current_stream().synchronize()
        _lib.check(L.rvs_spmv_op_create_device(ctypes.byref(handle), rows, cols, int(A.nnz), indptr.data.ptr,
                                               indices.data.ptr, data.data.ptr, o.vtype, ctypes.byref(o),
                                               self._errp), self._err)
        return dtype, (rows, cols)

    def __del__(self):
        if getattr(self, "_handle", None):
            try:
                self._free(self._handle)
            except Exception:  # interpreter shutdown
                pass
            self._handle = None

    # -- products ------------------------------------------------------------------------------

    def _host(self, x):
        """y = A x for a NumPy vector x."""
        if np.iscomplexobj(x) and self.dtype.kind != "c":
            return self._host(x.real) + 1j * self._host(x.imag)
        x = np.ascontiguousarray(x, dtype=self.dtype).reshape(-1)
        if x.shape != self._xshape:
            raise Error("x has %d values, the matrix %d columns" % (x.size, self._cols), ERR_DIM)
        y = np.empty(self._rows, self.dtype)
        if self._apply(self._handle, x.ctypes.data, y.ctypes.data, self._errp):
            _lib.check(self._err.code, self._err)
        return y

    def _device(self, x):
        """y = A x for a CuPy vector x, in device memory when the plan allows it."""
        cp = _cupy()
        if x.ndim == 2:
            return cp.stack([self._device(x[:, j]) for j in range(x.shape[1])], axis=1)
        if x.dtype.kind == "c" and self.dtype.kind != "c":
            return self._device(x.real) + 1j * self._device(x.imag)
        if self.device != "gpu" or not self._device_vectors:
            return cp.asarray(self._host(cp.asnumpy(x)))
        x = cp.ascontiguousarray(x, dtype=self.dtype)
        if x.shape != self._xshape:
            raise Error("x has %d values, the matrix %d columns" % (x.size, self._cols), ERR_DIM)
        y = cp.empty(self._rows, self.dtype)
        cp.cuda.get_current_stream().synchronize()  # the op's kernels run on a stream of their own
        if self._apply_device(self._handle, x.data.ptr, y.data.ptr, self._errp):
            if self._err.code != ERR_UNSUPPORTED:
                _lib.check(self._err.code, self._err)
            self._device_vectors = False  # items on the CPU, or streamed: through the host
            return cp.asarray(self._host(cp.asnumpy(x)))
        return y

    def matvec(self, x):
        """y = A x (x: NumPy or CuPy, shape (N,) or (N, 1); y of the same shape)."""
        if type(x) is np.ndarray and x.shape == self._xshape and x.dtype == self.dtype and x.flags.c_contiguous:
            y = np.empty(self._rows, self.dtype)  # the common case, straight to the library
            if self._apply(self._handle, x.ctypes.data, y.ctypes.data, self._errp):
                _lib.check(self._err.code, self._err)
            return y
        if _is_cupy(x):
            y = self._device(x.reshape(-1))
            return y.reshape(-1, 1) if x.ndim == 2 else y
        x = np.asanyarray(x)
        if x.shape not in (self._xshape, (self._cols, 1)):
            raise Error("x has shape %s, the matrix %d columns" % (x.shape, self._cols), ERR_DIM)
        return super().matvec(x)

    def _matvec(self, x):
        return self._host(x)

    def dot(self, x):
        """A x for a vector or a matrix x (NumPy or CuPy), or the product with another
        LinearOperator or a scalar, as scipy's LinearOperator.dot."""
        if _is_cupy(x):
            if x.ndim == 1 or (x.ndim == 2 and x.shape[1] == 1):
                return self.matvec(x)
            return self._device(x)
        if isinstance(x, LinearOperator) or np.isscalar(x):
            return super().dot(x)
        x = np.asanyarray(x)
        if x.ndim == 1 or (x.ndim == 2 and x.shape[1] == 1):
            return self.matvec(x)
        if x.ndim != 2 or x.shape[0] != self._cols:
            raise Error("x has shape %s, the matrix %d columns" % (x.shape, self._cols), ERR_DIM)
        return super().dot(x)

    def __matmul__(self, x):
        if type(x) is np.ndarray and x.ndim == 1:
            return self.matvec(x)
        if np.isscalar(x):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self.dot(x)

    __mul__ = dot
    __call__ = dot

    # -- A^H -----------------------------------------------------------------------------------

    def _adjoint(self):
        """The operator of A's conjugate transpose, with the same settings (made once)."""
        if self._adjoint_op is None:
            if _is_cupy(self._source):
                source = self._source.conj().T.tocsr()
            else:
                a = self._lent
                source = sp.csr_matrix((a.data, a.indices, a.indptr), shape=a.shape).conj().T.tocsr()
            settings = dict(self._settings, device=self.device)
            self._adjoint_op = SpMV(source, **settings)
        return self._adjoint_op

    def _rmatvec(self, x):
        return self._adjoint()._host(x)

    def rmatvec(self, x):
        """y = A^H x (NumPy or CuPy), by the operator of A^H."""
        if _is_cupy(x):
            return self._adjoint().matvec(x)
        return super().rmatvec(x)

    # -- what runs -----------------------------------------------------------------------------

    def info(self):
        """rvskit.SpMVInfo: what runs now, how it was chosen, what choosing and tuning cost."""
        s = _lib.SpmvOpStats()
        _lib.lib().rvs_spmv_op_info(self._handle, ctypes.byref(s))
        return SpMVInfo(device="gpu" if s.device == _lib.DEV_GPU else "cpu", precision=_lib.VTYPE_NAMES[s.vtype],
                        format=_lib.format_name(s.format), knobs=_lib.knobs_text(s.knobs), how=_lib.how_name(s.how),
                        predicted_ms=s.pred_ms if s.pred_ms > 0 else None, decide_ms=s.decide_ms,
                        tune_ms=s.tune_ms, switches=s.switches, calls=s.calls, items=s.items)

    def report(self):
        """The operator as text: what runs, then the advisor's candidates with the model's and the
        trials' times in ms ("*" chosen, "+" tried between calls), as spmv(1) --plan prints them."""
        s = self.info()
        head = "# %s %s %s %s (%s), %d item%s, decided in %.3f ms, %d calls, %d switches, tuning %.3f ms\n" % (
            s.device, s.precision, s.format, s.knobs, s.how, s.items, "" if s.items == 1 else "s", s.decide_ms,
            s.calls, s.switches, s.tune_ms)
        return head + _lib.printed(lambda f: _lib.lib().rvs_plan_print_candidates(
            f, _lib.lib().rvs_spmv_op_plan(self._handle), b""))

    def __repr__(self):
        s = self.info()
        return "<%dx%d rvskit.SpMV on the %s, %s in %s %s>" % (self._rows, self._cols, s.device, s.precision,
                                                               s.format, s.knobs)

