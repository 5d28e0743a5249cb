"""rvskit - RVS streams (the container rvskit's programs pass through pipes, rvs(5)) in Python.

Pure Python over numpy and scipy:

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
writing; malformed input raises StreamError naming the chunk.
"""

from .crc32c import crc32c
from .stream import (FormatBlock, Part, Partition, PMF, Stream, StreamError, pmf_of, read,
                     to_bytes, write)

__version__ = "0.1.0"
__all__ = ["crc32c", "FormatBlock", "Part", "Partition", "PMF", "Stream", "StreamError", "pmf_of",
           "read", "to_bytes", "write"]
