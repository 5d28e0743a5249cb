"""The CSR hub between scipy and librvskit: a scipy matrix lent to C as an rvs_csr over its own
numpy arrays, and an rvs_csr made by C handed to scipy as numpy views of its arrays, freed by C
when the last view goes."""

import ctypes

import numpy as np
import scipy.sparse as sp

from . import _lib
from .errors import ERR_ARG, Error

COL32_MAX = 2**31 - 1
VTYPES = {np.dtype(np.float32): _lib.F32, np.dtype(np.float64): _lib.F64, np.dtype(np.complex64): _lib.C64,
          np.dtype(np.complex128): _lib.C128}
DTYPES = {v: k for k, v in VTYPES.items()}
PRECISIONS = {"f32": (np.float32, np.complex64), "f64": (np.float64, np.complex128)}


def value_dtype(dtype, precision=None):
    """The dtype librvskit computes in for values of dtype: f32, f64, c64 or c128 as they are,
    booleans and integers as f64; precision "f32" or "f64" sets the precision, complex kept."""
    dtype = np.dtype(dtype)
    cplx = dtype.kind == "c"
    if dtype.kind not in "biufc":
        raise Error("values of type %s are not numbers" % dtype, ERR_ARG)
    if precision is None:
        if dtype in VTYPES:
            return dtype
        return np.dtype(np.complex128 if cplx else np.float64)
    if precision not in PRECISIONS:
        raise Error("precision %r is not 'f32' or 'f64'" % (precision,), ERR_ARG)
    return np.dtype(PRECISIONS[precision][cplx])


class Lent:
    """A scipy matrix as an rvs_csr (.csr, passed to C by reference) over numpy arrays this
    object keeps alive: the C side borrows them and must not outlive it."""

    def __init__(self, matrix, dtype=None):
        a = matrix if sp.isspmatrix_csr(matrix) or isinstance(matrix, getattr(sp, "csr_array", ())) else None
        if a is None:
            try:
                a = sp.csr_matrix(matrix)
            except (TypeError, ValueError) as e:
                raise Error("not a matrix scipy.sparse can take: %s" % e, ERR_ARG) from None
        if a.ndim != 2:
            raise Error("a matrix has two dimensions, not %d" % a.ndim, ERR_ARG)
        dtype = value_dtype(a.dtype) if dtype is None else np.dtype(dtype)
        if not a.has_canonical_format:  # librvskit's rows are sorted, without duplicates
            a = a.copy()
            a.sum_duplicates()
        rows, cols = a.shape
        self.shape, self.dtype = a.shape, dtype
        self.indptr = np.ascontiguousarray(a.indptr, dtype=np.int64)
        wide = cols > COL32_MAX
        self.indices = np.ascontiguousarray(a.indices, dtype=np.int64 if wide else np.int32)
        self.data = np.ascontiguousarray(a.data, dtype=dtype)
        nnz = int(self.indptr[-1]) if rows else 0
        if len(self.indices) < nnz or len(self.data) < nnz:
            raise Error("the row pointers name %d entries, the arrays hold %d" % (nnz, len(self.indices)), ERR_ARG)
        p = self.indices.ctypes.data
        self.csr = _lib.Csr(rows, cols, nnz, VTYPES[dtype], self.indptr.ctypes.data, None if wide else p,
                            p if wide else None, self.data.ctypes.data)
        self.ref = ctypes.byref(self.csr)

    def validate(self):
        """librvskit's check of the structure (row pointers, columns in range); rvskit.Error."""
        err = _lib.RvsError()
        _lib.check(_lib.lib().rvs_csr_validate(self.ref, ctypes.byref(err)), err)
        return self


def lend(matrix, dtype=None):
    """Lent(matrix, dtype), validated."""
    return Lent(matrix, dtype).validate()


class _Owner:
    """An rvs_csr whose arrays librvskit allocated: freed by it when this object goes."""

    def __init__(self, csr):
        self.csr = csr

    def __del__(self):
        try:
            _lib.lib().rvs_csr_free(ctypes.byref(self.csr))
        except Exception:  # interpreter shutdown: the process gives the memory back
            pass


class _View:
    """count values of dtype at address, as numpy sees them (__array_interface__), kept alive with
    their owner."""

    def __init__(self, owner, address, count, dtype):
        self.owner = owner
        self.__array_interface__ = {"data": (address, False), "shape": (count,), "typestr": dtype.str,
                                    "version": 3}


def _view(owner, address, count, dtype):
    dtype = np.dtype(dtype)
    if count == 0 or not address:
        return np.zeros(count, dtype)
    return np.asarray(_View(owner, address, count, dtype))


def to_scipy(csr):
    """A scipy CSR over the arrays of csr (an rvs_csr librvskit allocated), which it now owns."""
    owner = _Owner(csr)
    rows, cols, nnz = csr.rows, csr.cols, csr.nnz
    indptr = _view(owner, csr.rowptr, rows + 1, np.int64)
    if rows == 0:
        indptr = np.zeros(1, np.int64)
    if csr.colind:
        indices = _view(owner, csr.colind, nnz, np.int32)
    else:
        indices = _view(owner, csr.colind64, nnz, np.int64)
    data = _view(owner, csr.values, nnz, DTYPES[csr.vtype])
    return sp.csr_matrix((data, indices, indptr), shape=(rows, cols), copy=False)
