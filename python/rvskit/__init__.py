"""rvskit - rvskit from Python: RVS streams (the container rvskit's programs pass through pipes,
rvs(5)), and librvskit's reader, analysis, advisor, SpMV and SpGEMM on scipy and CuPy objects.

Over librvskit (ctypes; the library is found as rvskit-python(7) says, or named by RVSKIT_LIB):

    A = rvskit.mmread("A.mtx.gz")     # scipy.sparse.csr_matrix, any compression, symmetric expanded
    rvskit.pmf(A), rvskit.partition(A, "pmf", cp=[1, 3])   # pmf(1), partition(1) and statistics
    rvskit.advise(A, device="gpu")    # the format auto chooses, with the model's and trials' times
    op = rvskit.SpMV(A, device="gpu") # a scipy LinearOperator: op @ x (NumPy or CuPy), cg(op, b)
    C = rvskit.spgemm(A, B)           # C = A*B on the CPU, the GPU or both

Every failure raises rvskit.Error (its code, one of rvskit.ERR_*, and the library's message).

The streams, in pure Python over numpy and scipy:

    import rvskit
    s = rvskit.read("A.rvs")          # or a file object (sys.stdin.buffer) or bytes
    s.matrix                          # scipy.sparse.csr_matrix (float64 or float32)
    s.pmf.k, s.pmf.b, s.pmf.mean      # row-length distribution, when pmf(1) stored one
    [p.rows for p in s.partition.parts]   # row vector sets of partition(1), 0-based
    s.formats[0].format, s.formats[0].arrays   # format blocks of convert(1): named arrays
    s.source                          # the Matrix Market banner it was read from, if known

    rvskit.write("B.rvs", scipy_matrix)       # a stream with its PMF, for partition(1) etc.
    rvskit.write(sys.stdout.buffer, s)        # a Stream, with its partition, blocks, chunks

Every chunk's CRC-32C is checked on reading (read(..., verify=False) skips it) and written on
writing; malformed input raises StreamError (an rvskit.Error) naming the chunk.
"""

from .advise import Advice, Candidate, advise
from .compute import SpgemmInfo, devices, gpu_count, mmread, partition, pmf, spgemm
from .crc32c import crc32c
from .errors import (ERR_ARG, ERR_CHECK, ERR_CRC, ERR_DEVICE, ERR_DIM, ERR_EMPTY, ERR_FORMAT, ERR_INTERNAL,
                     ERR_IO, ERR_NODEV, ERR_NOFILE, ERR_NOMEM, ERR_OVERFLOW, ERR_RANGE, ERR_TRUNCATED,
                     ERR_UNSUPPORTED, ERR_VERSION, Error)
from ._lib import library_path
from .spmv import SpMV, SpMVInfo
from .stream import (FormatBlock, Part, Partition, PMF, Stream, StreamError, pmf_of, read,
                     to_bytes, write)

__version__ = "0.1.0"
__all__ = ["Advice", "advise", "Candidate", "crc32c", "devices", "Error", "FormatBlock", "gpu_count", "library_path",
           "mmread", "Part", "Partition", "partition", "PMF", "pmf", "pmf_of", "read", "spgemm", "SpgemmInfo",
           "SpMV", "SpMVInfo", "Stream", "StreamError", "to_bytes", "write",
           "ERR_ARG", "ERR_CHECK", "ERR_CRC", "ERR_DEVICE", "ERR_DIM", "ERR_EMPTY", "ERR_FORMAT", "ERR_INTERNAL",
           "ERR_IO", "ERR_NODEV", "ERR_NOFILE", "ERR_NOMEM", "ERR_OVERFLOW", "ERR_RANGE", "ERR_TRUNCATED",
           "ERR_UNSUPPORTED", "ERR_VERSION"]
