"""test_python.py - the Python module rvskit against the C programs: round trips both ways,
the papers' partition, format arrays, damage detection, and Matrix Market that scipy reads.
Run by python.sh with RVS_BIN, RVS_DATA, RVS_SRC and a temporary folder T in the environment."""

import io
import os
import re
import subprocess
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

import rvskit

BIN, DATA, SRC, T = (os.environ[k] for k in ("RVS_BIN", "RVS_DATA", "RVS_SRC", "T"))
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))
from rvs_sparse import same  # noqa: E402
checks = failures = 0


def check(cond, what):
    global checks, failures
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what, file=sys.stderr)


def run(*args, data=None):
    """Run a program of the build tree; its stdout as bytes (a failure is a check failure)."""
    p = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), input=data, capture_output=True)
    check(p.returncode == 0, "%s: status %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()[:300]))
    return p.stdout


def c_to_python():
    """The card's pipeline written by C, read by Python: matrix, PMF, partition, blocks."""
    m = os.path.join(DATA, "pmf20.mtx")
    s1 = run("pmf", m)
    s2 = run("partition", "--alg", "pmf", "--cp", "1,2,6", data=s1)
    s3 = run("convert", "--gpu-format", "ellr", "--cpu-format", "csr", data=s2)
    s = rvskit.read(io.BytesIO(s3))
    ref = scipy.io.mmread(m).tocsr()
    check(same(s.matrix, ref), "matrix differs from scipy.io.mmread")
    check(s.name == "pmf20.mtx" and s.version == (1, 1), "name %r version %r" % (s.name, s.version))
    check(s.source == {"object": "matrix", "format": "coordinate", "field": "real", "symmetry": "general"},
          "source %r" % (s.source,))
    q = rvskit.pmf_of(ref)
    check(list(s.pmf.k) == list(q.k) == [1, 2, 3, 5, 6, 7, 9, 10, 13] and list(s.pmf.b) == list(q.b),
          "pmf k %s b %s" % (s.pmf.k, s.pmf.b))
    check(s.pmf.mean == 5.85 and s.pmf.max == 13 and abs(s.pmf.ell_density - 0.45) < 1e-15, "pmf stats")
    # Algorithm 3 on the paper's example: the golden row vector sets (1-based in the paper)
    golden = [{1, 3, 5, 7, 13, 16, 19}, {2, 6, 8, 10, 17}, {4, 9, 11, 12, 14, 15, 18, 20}]
    got = [set(int(r) + 1 for r in p.rows) for p in s.partition.parts]
    check(s.partition.alg == "pmf" and got == golden, "partition %s" % got)
    check([p.device for p in s.partition.parts] == ["cpu", "cpu", "gpu"] and
          [p.cp for p in s.partition.parts] == [1.0, 2.0, 6.0], "devices and computing powers")
    check([(b.part, b.format) for b in s.formats] == [(0, "csr"), (1, "csr"), (2, "ellr")], "blocks")
    # a CSR block is the part's rows of the matrix, in the part's order
    part0 = s.partition.parts[0].rows
    b0 = s.formats[0]
    blk = sp.csr_matrix((b0.arrays["values"], b0.arrays["colind"], b0.arrays["rowptr"]), shape=(b0.rows, b0.cols))
    check(same(blk, ref[part0]), "CSR block of part 1 differs from the matrix's rows")
    # an ELLR block: col/values slot arrays (padding col = -1) and row lengths rl
    b2, rows2 = s.formats[2], s.partition.parts[2].rows
    rl = b2.arrays["rl"]
    check(list(rl) == list(np.diff(ref.indptr)[rows2]), "ELLR row lengths")
    check(int(b2.arrays["col"].min()) >= -1 and b2.nnz == 76, "ELLR arrays")
    # Python writes back exactly what C wrote
    check(rvskit.to_bytes(s) == s3, "Python's stream differs byte for byte from C's")
    return s3


def python_to_c():
    """Streams written by Python, read by the C programs."""
    rng = np.random.default_rng(7)
    for dtype in (np.float64, np.float32):
        a = sp.random(300, 200, density=0.03, random_state=11, format="csr").astype(dtype)
        a.data = (rng.standard_normal(a.nnz) * 10.0 ** rng.integers(-30, 30, a.nnz)).astype(dtype)
        a[5] = 0  # an empty row
        a.eliminate_zeros()
        path = os.path.join(T, "py.rvs")
        s = rvskit.Stream(matrix=a, name="random",
                          partition=rvskit.Partition("rows", [rvskit.Part(np.arange(0, 100)),
                                                              rvskit.Part(np.arange(100, 300), "gpu", 3.0)]),
                          extra=[("xtra", b"kept as it is")])
        rvskit.write(path, s)
        data = open(path, "rb").read()
        # C passes the stream on unchanged, unknown ancillary chunk included
        check(run("convert", path) == data, "%s: convert changed a Python stream" % dtype.__name__)
        info = run("rvsinfo", "--json", path).decode()
        check('"valid":true' in info and '"type":"xtra","length":13' in info and '"parts":2' in info,
              "%s: rvsinfo: %s" % (dtype.__name__, info[:300]))
        check("ancillary, not known to this reader: \"kept as it is\"" in run("rvsinfo", path).decode(),
              "rvsinfo does not show the unknown ancillary chunk")
        # C writes it as Matrix Market, scipy reads the same numbers
        mtx = os.path.join(T, "py.mtx")
        run("convert", "-o", mtx, path)
        check(same(scipy.io.mmread(mtx).tocsr().astype(dtype), a), "%s: Matrix Market from C differs" % dtype.__name__)
        # the stored partition as C reads it
        check('"part":[{"device":"cpu","entries":"all","cp":1,"rows":100' in info and
              '{"device":"gpu","entries":"all","cp":3,"rows":200' in info, "partition as C reads it")
        # a PMF chunk from Python passes C's check of every integer against the hub
        s.pmf = rvskit.pmf_of(a)
        rvskit.write(path, s)
        info = run("rvsinfo", "--json", path).decode()
        check('"stored":true' in info and '"distinct_lengths":%d' % len(s.pmf.k) in info, "Python's PMF in C")
    # 64-bit column indices (more than 2^31 - 1 columns)
    wide = sp.csr_matrix(([1.5, -2.0], ([0, 1], [3, 2**31 + 5])), shape=(2, 2**31 + 10))
    data = rvskit.to_bytes(wide)
    check(rvskit.read(data).matrix.indices.max() == 2**31 + 5, "64-bit columns read back")
    check(run("convert", data=data) == data, "convert changed a stream with 64-bit columns")


def damage(good):
    """Damage is refused with a message naming what is wrong."""
    def refused(data, pattern, what):
        try:
            rvskit.read(data)
            check(False, what + ": accepted")
        except rvskit.StreamError as e:
            check(re.search(pattern, str(e)) is not None, "%s: message %r" % (what, str(e)))
    flip = bytearray(good)
    flip[900] ^= 0x55
    refused(bytes(flip), r"chunk 'ARRY' at byte \d+: CRC mismatch", "flipped byte")
    # without CRCs the flipped byte (inside the hub's values) reads as one changed value
    changed = rvskit.read(bytes(flip), verify=False).matrix.data != rvskit.read(good).matrix.data
    check(int(changed.sum()) == 1, "verify=False: %d values changed" % int(changed.sum()))
    for cut in (8, 16, 40, len(good) // 2, len(good) - 1):
        refused(good[:cut], r"truncated|magic", "cut at %d" % cut)
    refused(b"%%MatrixMarket matrix coordinate real general\n", "magic", "not a stream")
    # an unknown critical chunk, with a valid CRC, before the end chunk
    end = good.rindex(b"REND")
    chunk = b"QQQQ" + (0).to_bytes(8, "little")
    chunk += rvskit.crc32c(chunk).to_bytes(4, "little")
    refused(good[:end] + chunk + good[end:], "unknown critical chunk 'QQQQ'", "critical chunk")
    check(rvskit.crc32c(b"123456789") == 0xE3069283, "CRC-32C check value")
    big = np.random.default_rng(1).integers(0, 256, 300000, dtype=np.uint8).tobytes()
    check(rvskit.crc32c(big) == rvskit.crc32c(big[70000:], rvskit.crc32c(big[:70000])), "CRC-32C chaining")


def man_example():
    """rvs(5)'s annotated example is what Python and C write for [1 0 2; 0 0 3] from "A.mtx"."""
    page = open(os.path.join(SRC, "man", "man5", "rvs.5")).read()
    dump = re.findall(r"^[0-9a-f]{8}  ([0-9a-f ]+)$", page, re.M)
    want = bytes.fromhex("".join(dump).replace(" ", ""))
    got = rvskit.to_bytes(rvskit.Stream(matrix=sp.csr_matrix(np.array([[1.0, 0, 2], [0, 0, 3]])), name="A.mtx"))
    check(len(want) == 277 and got == want, "rvs.5 example: %d bytes, Python wrote %d" % (len(want), len(got)))
    check(run("convert", data=got) == want, "rvs.5 example: C wrote other bytes")


def scipy_reads_our_matrix_market():
    """What the programs write as Matrix Market, scipy reads: symmetric, pattern, gzip'd."""
    s7 = os.path.join(T, "s7.mtx.gz")
    run("rvsgen", "-o", s7, "stencil7", "4")
    a = scipy.io.mmread(s7).tocsr()
    b = rvskit.read(io.BytesIO(run("rvsgen", "stencil7", "4"))).matrix
    check(same(a, b), "scipy reads rvsgen's symmetric .mtx.gz as the stream's matrix")
    pat = os.path.join(T, "pat.mtx")
    with open(pat, "w") as f:
        f.write("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 4\n1 1\n2 1\n3 2\n4 4\n")
    out = os.path.join(T, "pat_out.mtx")
    run("convert", "-o", out, pat)
    check(open(out).readline().split()[3:] == ["pattern", "symmetric"], "pattern symmetric written back")
    check(same(scipy.io.mmread(out).tocsr().astype(np.float64), scipy.io.mmread(pat).tocsr().astype(np.float64)),
          "scipy reads our pattern output")


def main():
    good = c_to_python()
    python_to_c()
    damage(good)
    man_example()
    scipy_reads_our_matrix_market()
    print("%d checks, %d failed" % (checks, failures))
    sys.exit(1 if failures or not checks else 0)


main()
