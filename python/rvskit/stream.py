"""Read and write RVS streams (rvs(5), version 1.x) as numpy arrays and scipy.sparse matrices."""

import io
import os
import struct
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .crc32c import crc32c
from .errors import ERR_FORMAT, Error

MAGIC = b"\x89RVS\r\n\x1a\n"
MAJOR, MINOR = 1, 1
VALUE_TYPES = {1: np.dtype("<f4"), 2: np.dtype("<f8"), 3: np.dtype("<c8"), 4: np.dtype("<c16")}
VALUE_NAMES = {1: "f32", 2: "f64", 3: "c64", 4: "c128"}
ELEMENT_TYPES = {1: np.dtype("<i4"), 2: np.dtype("<i8"), 3: np.dtype("<f4"), 4: np.dtype("<f8"),
                 5: np.dtype("u1"), 6: np.dtype("<u4"), 7: np.dtype("<c8"), 8: np.dtype("<c16")}
FORMATS = {1: "csr", 2: "coo", 3: "ell", 4: "ellr", 5: "pellr", 6: "biell", 7: "jad", 8: "hyb",
           9: "hyb-dia", 10: "dia", 11: "hcc"}
ALGORITHMS = {1: "rows", 2: "nnz", 3: "pmf", 4: "diag", 5: "metis"}
DEVICES = {0: "cpu", 1: "gpu"}
ENTRIES = {0: "all", 1: "diag", 2: "offdiag"}
COL32_MAX = 2**31 - 1


class StreamError(Error, ValueError):
    """The input is not a valid RVS stream; the message names the chunk and what is wrong
    (code ERR_FORMAT)."""

    def __init__(self, message, code=ERR_FORMAT):
        super().__init__(message, code)


@dataclass
class PMF:
    """Distribution of the row lengths: k[i] stored entries in b[i] rows (b[i] > 0)."""
    rows: int
    cols: int
    nnz: int
    empty_rows: int
    min: int
    max: int
    mean: float
    stddev: float
    ell_density: float
    k: np.ndarray
    b: np.ndarray

    @property
    def p(self):
        """p_k = b_k / rows."""
        return self.b / self.rows if self.rows else np.zeros(len(self.b))


@dataclass
class Part:
    """One row vector set: its rows in the order the part stores them (0-based)."""
    rows: np.ndarray
    device: str = "cpu"        # "cpu" or "gpu"
    cp: float = 1.0            # computing power given to the part
    entries: str = "all"       # "all", or "diag"/"offdiag" for Algorithm 4
    # the part's statistics, as rvskit.partition computes them (None when read from a stream):
    nnz: object = None         # entries it holds
    width: object = None       # its longest row (entries held)
    e: object = None           # rows * width: the slots of an ELL of the part
    padded: object = None      # e - nnz: the zeros such an ELL pads
    density: object = None     # nnz / e


@dataclass
class Partition:
    alg: str                   # "rows", "nnz", "pmf" or "diag"
    parts: list
    block_size: int = 0
    # the partition's statistics, as rvskit.partition computes them (None when read from a stream):
    nnz: object = None         # entries of the matrix
    e_total: object = None     # the parts' e summed
    padded_total: object = None
    mean_density: object = None    # Eq. 7 of Yang et al.: nnz / e_total
    mean_zero_fill: object = None  # Eq. 9: 1 - mean_density
    rel_diff_pct: object = None    # how far the parts' nnz are from their computing powers' shares, in %


@dataclass
class FormatBlock:
    """The whole matrix (part None) or part `part` (0-based) in one storage format: its named
    arrays as rvskit-formats(7) lays them out."""
    format: str
    rows: int
    cols: int
    nnz: int
    arrays: dict
    part: object = None
    vtype: str = "f64"         # "f32", "f64", or complex "c64", "c128"
    params: list = field(default_factory=lambda: [0] * 8)


@dataclass
class Stream:
    """Everything a stream carries. extra: (type, payload bytes) of the ancillary chunks kept
    as they are, e.g. ("mmhd", b"matrix coordinate real general")."""
    matrix: sp.csr_matrix
    name: str = ""
    pmf: object = None
    partition: object = None
    formats: list = field(default_factory=list)
    extra: list = field(default_factory=list)
    version: tuple = (MAJOR, MINOR)

    @property
    def source(self):
        """The Matrix Market banner the matrix was read from, as a dict (format, field,
        symmetry), or None."""
        for kind, payload in self.extra:
            if kind == "mmhd":
                words = payload.decode("ascii", "replace").split(" ")
                if len(words) == 4:
                    return dict(zip(("object", "format", "field", "symmetry"), words))
        return None


def pmf_of(matrix):
    """The PMF of a sparse matrix's row lengths, as pmf(1) computes it."""
    a = sp.csr_matrix(matrix)
    rows, cols = a.shape
    lengths = np.diff(a.indptr).astype(np.int64)
    k, b = np.unique(lengths, return_counts=True)
    nnz = int(lengths.sum())
    longest = int(lengths.max()) if rows else 0
    return PMF(rows=rows, cols=cols, nnz=nnz, empty_rows=int((lengths == 0).sum()),
               min=int(lengths.min()) if rows else 0, max=longest,
               mean=nnz / rows if rows else 0.0, stddev=float(lengths.std()) if rows else 0.0,
               ell_density=nnz / (rows * longest) if rows and longest else 0.0,
               k=k.astype(np.int64), b=b.astype(np.int64))


# -- reading ------------------------------------------------------------------------------------

class _Reader:
    """One forward pass over the chunks of a stream held in memory."""

    def __init__(self, data, verify):
        self.data = memoryview(data).cast("B")
        self.at = 0
        self.verify = verify
        self.count = 0

    def fail(self, msg):
        raise StreamError(msg)

    def prelude(self):
        d = self.data
        if len(d) < 16 or bytes(d[:8]) != MAGIC:
            self.fail("not an RVS stream (bad magic)")
        major, minor, crc = struct.unpack_from("<HHI", d, 8)
        if self.verify and crc32c(d[:12]) != crc:
            self.fail("prelude: CRC mismatch")
        if major > MAJOR:
            self.fail("stream version %d.%d is newer than this reader (%d.x)" % (major, minor, MAJOR))
        self.at = 16
        return major, minor

    def chunk(self):
        """The next chunk: (type, payload memoryview)."""
        d, at = self.data, self.at
        if at == len(d):
            self.fail("stream ends without an end chunk: truncated")
        if len(d) - at < 12:
            self.fail("stream truncated inside a chunk head (at byte %d)" % at)
        kind = bytes(d[at:at + 4])
        if not kind.isalpha():
            self.fail("chunk at byte %d: type %r is not four letters" % (at, kind))
        kind = kind.decode("ascii")
        (length,) = struct.unpack_from("<Q", d, at + 4)
        end = at + 12 + length
        if length > len(d) or end + 4 > len(d):
            self.fail("stream truncated inside chunk '%s' (at byte %d)" % (kind, at))
        (crc,) = struct.unpack_from("<I", d, end)
        if self.verify and crc32c(d[at:end]) != crc:
            self.fail("chunk '%s' at byte %d: CRC mismatch" % (kind, at))
        self.at = end + 4
        self.count += 1
        return kind, d[at + 12:end]

    def array(self, want=None):
        """The next chunk as an ARRY: (name, numpy array viewing the data)."""
        kind, p = self.chunk()
        if kind != "ARRY":
            self.fail("chunk '%s' where an ARRY chunk must come%s" % (kind, " ('%s')" % want if want else ""))
        if len(p) < 24:
            self.fail("chunk 'ARRY': payload of %d bytes, need 24" % len(p))
        name = bytes(p[:8]).rstrip(b"\0").decode("ascii", "replace")
        dtype, _, count = struct.unpack_from("<IIQ", p, 8)
        if dtype not in ELEMENT_TYPES:
            self.fail("array '%s': unknown element type %d" % (name, dtype))
        dt = ELEMENT_TYPES[dtype]
        if count * dt.itemsize != len(p) - 24:
            self.fail("array '%s': %d elements of %d bytes, payload holds %d bytes"
                      % (name, count, dt.itemsize, len(p) - 24))
        if want and name != want:
            self.fail("array '%s' where '%s' must come" % (name, want))
        return name, np.frombuffer(p, dtype=dt, count=count, offset=24)


def _read_matrix(r, p):
    if len(p) < 36:
        r.fail("chunk 'MHDR': payload of %d bytes, need at least 36" % len(p))
    rows, cols, nnz, vtype, width, namelen = struct.unpack_from("<qqqIII", p, 0)
    if rows < 0 or cols < 0 or nnz < 0 or vtype not in VALUE_TYPES or namelen != len(p) - 36:
        r.fail("chunk 'MHDR': bad fields (rows %d cols %d nnz %d type %d name length %d)"
               % (rows, cols, nnz, vtype, namelen))
    if width != (8 if cols > COL32_MAX else 4):
        r.fail("chunk 'MHDR': index width %d for %d columns" % (width, cols))
    name = bytes(p[36:]).decode("utf-8", "replace")
    _, rowptr = r.array("rowptr")
    _, colind = r.array("colind")
    _, values = r.array("values")
    if (rowptr.dtype != np.int64 or len(rowptr) != rows + 1 or len(colind) != nnz
            or colind.dtype.itemsize != width or values.dtype != VALUE_TYPES[vtype] or len(values) != nnz):
        r.fail("hub arrays disagree with MHDR (%d x %d, nnz %d)" % (rows, cols, nnz))
    if rows and (rowptr[0] != 0 or rowptr[-1] != nnz or np.any(np.diff(rowptr) < 0)):
        r.fail("array 'rowptr': not a CSR row pointer (0 .. nnz, non-decreasing)")
    if nnz and (colind.min() < 0 or colind.max() >= cols):
        r.fail("array 'colind': column index out of range 0..%d" % (cols - 1))
    matrix = sp.csr_matrix((values.copy(), colind.copy(), rowptr.copy()), shape=(rows, cols))
    return name, matrix


def _read_pmf(r, p):
    if len(p) < 80:
        r.fail("chunk 'pmfs': payload of %d bytes, need at least 80" % len(p))
    rows, cols, nnz, empty, lo, hi, mean, std, dens, nb = struct.unpack_from("<6q3dq", p, 0)
    if nb < 0 or len(p) != 80 + 16 * nb:
        r.fail("chunk 'pmfs': %d lengths, payload holds %d bytes" % (nb, len(p)))
    k = np.frombuffer(p, dtype="<i8", count=nb, offset=80).copy()
    b = np.frombuffer(p, dtype="<i8", count=nb, offset=80 + 8 * nb).copy()
    return PMF(rows, cols, nnz, empty, lo, hi, mean, std, dens, k, b)


def _read_partition(r, p, rows):
    if len(p) < 16:
        r.fail("chunk 'PART': payload of %d bytes, need at least 16" % len(p))
    alg, k, block = struct.unpack_from("<IIq", p, 0)
    if alg not in ALGORITHMS or not 1 <= k <= 65536:
        r.fail("chunk 'PART': algorithm %d, %d parts" % (alg, k))
    at, parts = 16, []
    for i in range(k):
        if len(p) - at < 24:
            r.fail("chunk 'PART': part %d cut short" % (i + 1))
        dev, ent, cp, n = struct.unpack_from("<IIdq", p, at)
        if dev not in DEVICES or ent not in ENTRIES or not cp > 0 or n < 0 or n > rows or len(p) - at - 24 < 8 * n:
            r.fail("chunk 'PART': part %d: bad fields" % (i + 1))
        part_rows = np.frombuffer(p, dtype="<i8", count=n, offset=at + 24).copy()
        if n and (part_rows.min() < 0 or part_rows.max() >= rows):
            r.fail("chunk 'PART': part %d: row index out of range" % (i + 1))
        parts.append(Part(part_rows, DEVICES[dev], cp, ENTRIES[ent]))
        at += 24 + 8 * n
    if at != len(p):
        r.fail("chunk 'PART': %d bytes after the last part" % (len(p) - at))
    return Partition(ALGORITHMS[alg], parts, block)


def _read_format(r, p, nparts):
    if len(p) != 104:
        r.fail("chunk 'FMTB': payload of %d bytes, want 104" % len(p))
    part, fid, vtype, narrays, rows, cols, nnz = struct.unpack_from("<iIIIqqq", p, 0)
    params = list(struct.unpack_from("<8q", p, 40))
    if fid not in FORMATS or vtype not in VALUE_TYPES or narrays > 12 or not -1 <= part < nparts:
        r.fail("chunk 'FMTB': format %d, value type %d, %d arrays, part %d" % (fid, vtype, narrays, part))
    arrays = {}
    for _ in range(narrays):
        name, a = r.array()
        if name in arrays:
            r.fail("format block: array '%s' twice" % name)
        arrays[name] = a.copy()
    return FormatBlock(FORMATS[fid], rows, cols, nnz, arrays, None if part < 0 else part,
                       VALUE_NAMES[vtype], params)


def read(source, verify=True):
    """Read a stream from a path, a binary file object or bytes. verify=False skips the CRCs
    (every other check stays). Raises StreamError for anything malformed."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = source
    elif isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            data = f.read()
    else:
        data = source.read()
    r = _Reader(data, verify)
    version = r.prelude()
    s = Stream(matrix=None, version=version)
    while True:
        kind, p = r.chunk()
        if kind == "MHDR" and s.matrix is None:
            s.name, s.matrix = _read_matrix(r, p)
        elif kind == "REND":
            if s.matrix is None:
                r.fail("stream has no matrix (MHDR)")
            if len(p) != 8 or struct.unpack("<Q", p)[0] != r.count - 1:
                r.fail("chunk 'REND': wrong chunk count")
            return s
        elif kind[0].islower() and kind != "pmfs":
            s.extra.append((kind, bytes(p)))
        elif s.matrix is None:
            r.fail("chunk '%s' before the matrix (MHDR)" % kind)
        elif kind == "pmfs" and s.pmf is None:
            s.pmf = _read_pmf(r, p)
        elif kind == "PART" and s.partition is None and all(b.part is None for b in s.formats):
            # after whole-matrix blocks too (rvs(5)); a part's block needs the PART before it
            s.partition = _read_partition(r, p, s.matrix.shape[0])
        elif kind == "FMTB":
            s.formats.append(_read_format(r, p, len(s.partition.parts) if s.partition else 0))
        elif kind[0].isupper() and kind not in ("MHDR", "ARRY", "PART"):
            r.fail("unknown critical chunk '%s'" % kind)
        else:
            r.fail("chunk '%s' out of place" % kind)


# -- writing ------------------------------------------------------------------------------------

class _Writer:
    def __init__(self, f):
        self.f = f
        self.count = 0

    def chunk(self, kind, *pieces):
        """A chunk whose payload is the concatenation of pieces (bytes or numpy arrays)."""
        pieces = [memoryview(np.ascontiguousarray(x)).cast("B") if isinstance(x, np.ndarray) else x
                  for x in pieces]
        head = kind.encode("ascii") + struct.pack("<Q", sum(len(x) for x in pieces))
        crc = crc32c(head)
        self.f.write(head)
        for x in pieces:
            crc = crc32c(x, crc)
            self.f.write(x)
        self.f.write(struct.pack("<I", crc))
        self.count += 1

    def array(self, name, a):
        codes = {v: k for k, v in ELEMENT_TYPES.items()}
        a = np.ascontiguousarray(a)
        dt = a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype
        if dt not in codes:
            raise ValueError("array '%s': element type %s has no stream code" % (name, a.dtype))
        a = a.astype(dt, copy=False)
        self.chunk("ARRY", name.encode("ascii").ljust(8, b"\0"), struct.pack("<IIQ", codes[dt], 0, a.size), a)


def _hub(matrix):
    """CSR with sorted, summed entries, f32 and c64 values kept, other complex values as c128,
    anything else as f64."""
    a = sp.csr_matrix(matrix, copy=True)
    a.sum_duplicates()
    a.sort_indices()
    if a.dtype in (np.float32, np.complex64):
        dt = np.dtype(a.dtype).newbyteorder("<")
    else:
        dt = np.dtype("<c16") if np.iscomplexobj(a.data) else np.dtype("<f8")
    return a, dt


def _vtype_code(dt):
    """The value type's code in MHDR and FMTB."""
    return {v: k for k, v in VALUE_TYPES.items()}[np.dtype(dt).newbyteorder("<")]


def write(dest, stream, name=None):
    """Write a Stream, or a scipy.sparse matrix (or anything csr_matrix takes), to a path or a
    binary file object. A matrix alone gets its PMF chunk, as pmf(1) writes it."""
    if not isinstance(stream, Stream):
        stream = Stream(matrix=sp.csr_matrix(stream), pmf=None)
        stream.pmf = pmf_of(stream.matrix)
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "wb") as f:
            return write(f, stream, name)
    a, vt = _hub(stream.matrix)
    rows, cols = a.shape
    w = _Writer(dest)
    # the lowest version that describes the stream, as the C writer chooses it: 1.3 with complex values
    minor = 3 if vt.kind == "c" or any(b.vtype in ("c64", "c128") for b in stream.formats) else MINOR
    w.f.write(MAGIC + struct.pack("<HH", MAJOR, minor))
    w.f.write(struct.pack("<I", crc32c(MAGIC + struct.pack("<HH", MAJOR, minor))))
    label = (stream.name if name is None else name).encode("utf-8")[:255]
    width = 8 if cols > COL32_MAX else 4
    w.chunk("MHDR", struct.pack("<qqqIII", rows, cols, a.nnz, _vtype_code(vt), width, len(label)), label)
    w.array("rowptr", a.indptr.astype("<i8"))
    w.array("colind", a.indices.astype("<i4" if width == 4 else "<i8"))
    w.array("values", a.data.astype(vt))
    if stream.pmf is not None:
        q = pmf_of(a)  # the reader checks every integer against the hub: write the hub's own
        w.chunk("pmfs", struct.pack("<6q3dq", q.rows, q.cols, q.nnz, q.empty_rows, q.min, q.max, q.mean,
                                    q.stddev, q.ell_density, len(q.k)), q.k.astype("<i8"), q.b.astype("<i8"))
    if stream.partition is not None:
        _write_partition(w, stream.partition)
    for block in stream.formats:
        _write_format(w, block)
    for kind, payload in stream.extra:
        if len(kind) != 4 or not kind.isalpha() or not kind[0].islower():
            raise ValueError("extra chunk type %r is not four letters starting lower-case" % kind)
        w.chunk(kind, bytes(payload))
    w.chunk("REND", struct.pack("<Q", w.count))


def _write_partition(w, partition):
    codes = {v: k for k, v in ALGORITHMS.items()}
    pieces = [struct.pack("<IIq", codes[partition.alg], len(partition.parts), partition.block_size)]
    for part in partition.parts:
        rows = np.asarray(part.rows, dtype="<i8")
        dev = {v: k for k, v in DEVICES.items()}[part.device]
        ent = {v: k for k, v in ENTRIES.items()}[part.entries]
        pieces += [struct.pack("<IIdq", dev, ent, float(part.cp), len(rows)), rows]
    w.chunk("PART", *pieces)


def _write_format(w, block):
    fid = {v: k for k, v in FORMATS.items()}[block.format]
    part = -1 if block.part is None else block.part
    params = (list(block.params) + [0] * 8)[:8]
    vtype = {v: k for k, v in VALUE_NAMES.items()}[block.vtype]
    w.chunk("FMTB", struct.pack("<iIIIqqq", part, fid, vtype, len(block.arrays),
                                block.rows, block.cols, block.nnz), struct.pack("<8q", *params))
    for name, a in block.arrays.items():
        w.array(name, a)


def to_bytes(stream):
    """The stream as bytes."""
    buf = io.BytesIO()
    write(buf, stream)
    return buf.getvalue()
