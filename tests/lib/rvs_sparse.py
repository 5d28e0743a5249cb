"""rvs_sparse.py - what the Python tests (tests/test_python*.py) compare sparse matrices with."""

import numpy as np
import scipy.sparse as sp


def same(a, b):
    """The same sparse matrix: shape, structure (explicit zeros included) and values bit for bit."""
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    a.sort_indices()
    b.sort_indices()
    return (a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.indptr, b.indptr)
            and np.array_equal(a.indices, b.indices) and a.data.tobytes() == b.data.tobytes())
