"""test_python_compute.py - the Python module's computing half (rvskit over librvskit) against
scipy: mmread, pmf, partition, advise, SpMV, spgemm, rvskit.Error, and the ctypes layouts
against C's. Every function on the shared matrices (RVS_MATRICES) and on generated ones, in
f64, f32 and complex where the C side takes them, and bad input raising rvskit.Error.

    python3 tests/python/test_python_compute.py cpu|gpu [unittest options]

cpu: everything that needs no GPU (the GPU calls are checked to fail with ERR_NODEV when there
is none); gpu: the GPU half, with CuPy where it is installed (exit 77 without a GPU). Run by
tests/python/python.sh with RVS_BIN, RVS_DATA, RVS_MATRICES and a temporary folder T in the
environment. pytest runs both halves, the GPU classes skipped without a GPU:
    PYTHONPATH=python RVS_BIN=build python3 -m pytest tests/python/test_python_compute.py"""

import bz2
import gzip
import inspect
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import rvskit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from rvs_sparse import same  # noqa: E402
BIN = os.environ.get("RVS_BIN", os.path.join(HERE, "..", "build"))
DATA = os.environ.get("RVS_DATA", os.path.join(HERE, "..", "data"))
MATRICES = os.environ.get("RVS_MATRICES", os.path.join(HERE, "..", "..", "shared", "matrices"))
T = os.environ.get("T") or tempfile.mkdtemp(prefix="rvskit-test-")
os.environ.setdefault("XDG_CACHE_HOME", os.path.join(T, "cache"))  # the trial cache stays in the test's folder


def shared_index():
    """INDEX.tsv of the shared matrices as dicts, [] when they are absent."""
    path = os.path.join(MATRICES, "INDEX.tsv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    for r in rows:
        for k in ("rows", "cols", "nnz_declared"):
            r[k] = int(r[k])
        r["path"] = os.path.join(MATRICES, r["name"] + ".mtx")
        if not os.path.exists(r["path"]):
            r["path"] += ".gz"
    return [r for r in rows if os.path.exists(r["path"])]


INDEX = shared_index()
warnings.simplefilter("ignore", sp.SparseEfficiencyWarning)  # the tests change rows of CSR matrices
needs_shared = unittest.skipUnless(INDEX, "no shared matrices in RVS_MATRICES")


def scipy_read(path):
    """scipy.io.mmread's CSR, canonical, values as float64 or complex128."""
    a = sp.csr_matrix(scipy.io.mmread(path))
    a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    a.sum_duplicates()
    return a


def close_product(a, x, y, tol):
    """y is A x row by row within tol of sum_j |a_ij x_j| (the C tests' rule), computed in
    double (double complex)."""
    a = sp.csr_matrix(a)
    wide = np.complex128 if a.dtype.kind == "c" or np.iscomplexobj(x) else np.float64
    ref = a.astype(wide) @ np.asarray(x, dtype=wide)
    scale = abs(a).astype(np.float64) @ np.abs(np.asarray(x, dtype=wide)) + 1e-300
    err = np.abs(np.asarray(y, dtype=wide) - ref) / scale
    return y.shape == ref.shape and bool(np.all(err <= tol)), float(err.max()) if err.size else 0.0


def structure(a):
    """The stored entries of a as ones (explicit zeros included), int64."""
    a = sp.csr_matrix(a)
    a.sum_duplicates()
    return sp.csr_matrix((np.ones(a.nnz, np.int64), a.indices, a.indptr), shape=a.shape)


def random_csr(rows, cols, density, dtype, seed):
    rng = np.random.default_rng(seed)
    a = sp.random(rows, cols, density=density, format="csr", random_state=seed, dtype=np.float64)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * sp.csr_matrix((rng.standard_normal(a.nnz), a.indices, a.indptr), shape=a.shape)
    return sp.csr_matrix(a, dtype=dtype)


def vector(n, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, n)
    return x.astype(dtype)


def laplacian(n):
    """The 2-D five-point Laplacian on an n x n grid: symmetric positive definite."""
    t = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(n, n))
    return sp.csr_matrix(sp.kronsum(t, t))


TOL = {np.dtype(np.float64): 1e-10, np.dtype(np.float32): 1e-4, np.dtype(np.complex128): 1e-10,
       np.dtype(np.complex64): 1e-4}


class ErrorCase(unittest.TestCase):
    def assertFails(self, code, pattern, f, *args, **kwargs):
        """f(*args, **kwargs) raises rvskit.Error with code and a message matching pattern."""
        with self.assertRaises(rvskit.Error) as cm:
            f(*args, **kwargs)
        self.assertEqual(cm.exception.code, code, str(cm.exception))
        self.assertRegex(str(cm.exception), pattern)
        return cm.exception


def write_text(name, text):
    path = os.path.join(T, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# -- the ctypes layouts ----------------------------------------------------------------------

class Layout(unittest.TestCase):
    def test_layouts_match_c(self):
        """Every structure and field the module passes has C's size and offset."""
        prog = os.path.join(BIN, "tests", "py_layout")
        if not os.path.exists(prog):
            self.skipTest("py_layout not built")
        from rvskit import _lib
        lines = subprocess.run([prog], check=True, capture_output=True, text=True).stdout.split("\n")
        seen = 0
        for line in filter(None, lines):
            name, value = line.split()
            struct, _, fieldname = name.partition(".")
            cls = _lib.STRUCTS[struct]
            got = getattr(cls, fieldname).offset if fieldname else __import__("ctypes").sizeof(cls)
            self.assertEqual(got, int(value), name)
            seen += 1
        self.assertGreater(seen, 150)


# -- Matrix Market -------------------------------------------------------------------------------

class Mmread(ErrorCase):
    @needs_shared
    def test_shared_matrices_as_scipy_reads_them(self):
        """Every shared matrix (real, integer, pattern, complex; general and symmetric) reads as
        scipy.io.mmread reads it, values bit for bit, explicit zeros kept."""
        for r in INDEX:
            with self.subTest(matrix=r["name"]):
                a = rvskit.mmread(r["path"])
                self.assertIsInstance(a, sp.csr_matrix)
                self.assertEqual(a.dtype, np.complex128 if r["field"] == "complex" else np.float64)
                self.assertTrue(same(a, scipy_read(r["path"])))

    def test_no_copy_of_the_c_arrays(self):
        """The values and column indices are the C reader's arrays, viewed; they outlive the
        call and stay valid after other reads."""
        a = rvskit.mmread(os.path.join(DATA, "pmf20.mtx"))
        self.assertFalse(a.data.flags.owndata)
        self.assertFalse(a.indices.flags.owndata)
        ref = scipy_read(os.path.join(DATA, "pmf20.mtx"))
        for _ in range(20):
            rvskit.mmread(os.path.join(DATA, "pmf20.mtx"))
        self.assertTrue(same(a, ref))
        b = a.copy()
        del a
        self.assertTrue(same(b, ref))

    def test_every_compression(self):
        """gzip, bzip2, xz and zstd files read as the plain file, told by their bytes, not names."""
        src = os.path.join(DATA, "pmf20.mtx")
        want = rvskit.mmread(src)
        raw = open(src, "rb").read()
        for name, pack in (("gz", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress)):
            path = os.path.join(T, "m." + name)
            open(path, "wb").write(pack(raw))
            self.assertTrue(same(rvskit.mmread(path), want), name)
            plain_name = os.path.join(T, "packed-%s.mtx" % name)
            shutil.copy(path, plain_name)
            self.assertTrue(same(rvskit.mmread(plain_name), want), name + " named .mtx")
        if shutil.which("zstd"):
            path = os.path.join(T, "m.zst")
            subprocess.run(["zstd", "-q", "-f", src, "-o", path], check=True)
            self.assertTrue(same(rvskit.mmread(path), want), "zst")
        cut = os.path.join(T, "cut.mtx.gz")
        open(cut, "wb").write(gzip.compress(raw)[:200])
        self.assertFails(rvskit.ERR_TRUNCATED, ".", rvskit.mmread, cut)

    def test_fields_and_symmetries(self):
        """complex hermitian, skew-symmetric, pattern, integer and array files, expanded as scipy
        expands them."""
        files = {
            "herm.mtx": "%%MatrixMarket matrix coordinate complex hermitian\n3 3 4\n1 1 2 0\n2 1 1.5 -2\n"
                        "3 2 0 1\n3 3 -1 0\n",
            "skew.mtx": "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 4\n3 1 -0.5\n",
            "pat.mtx": "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n2 3\n1 2\n",
            "int.mtx": "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 7\n2 1 -3\n",
            "arr.mtx": "%%MatrixMarket matrix array real general\n2 2\n1\n0\n2.5\n-4\n",
            "carr.mtx": "%%MatrixMarket matrix array complex general\n1 2\n1 2\n3 -4\n",
            "csym.mtx": "%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n1 1 1 1\n2 1 0 3\n",
        }
        for name, text in files.items():
            with self.subTest(file=name):
                path = write_text(name, text)
                a = rvskit.mmread(path)
                b = scipy_read(path)
                b.eliminate_zeros() if name.startswith(("arr", "carr")) else None  # array: stored entries only
                a2 = a.copy()
                a2.eliminate_zeros() if name.startswith(("arr", "carr")) else None
                self.assertTrue(same(a2, b), "%s\n%s\n%s" % (name, a.toarray(), b.toarray()))

    def test_precision_f32(self):
        path = os.path.join(DATA, "pmf20.mtx")
        a = rvskit.mmread(path, precision="f32")
        self.assertEqual(a.dtype, np.float32)
        self.assertTrue(same(a, rvskit.mmread(path).astype(np.float32)))
        c = rvskit.mmread(write_text("c.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 0.1 3\n"),
                          precision="f32")
        self.assertEqual(c.dtype, np.complex64)
        self.assertEqual(c[0, 0], np.complex64(0.1 + 3j))
        self.assertFails(rvskit.ERR_ARG, "precision", rvskit.mmread, path, precision="f16")

    def test_empty_and_pathlike(self):
        import pathlib
        a = rvskit.mmread(pathlib.Path(write_text("e.mtx", "%%MatrixMarket matrix coordinate real general\n4 3 0\n")))
        self.assertEqual((a.shape, a.nnz), ((4, 3), 0))
        self.assertEqual(list(a.indptr), [0] * 5)

    def test_bad_input(self):
        self.assertFails(rvskit.ERR_NOFILE, "no-such.mtx: ", rvskit.mmread, os.path.join(T, "no-such.mtx"))
        path = write_text("bad.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 2\n")
        e = self.assertFails(rvskit.ERR_RANGE, "line 4", rvskit.mmread, path)
        self.assertEqual(e.name, "RANGE")
        path = write_text("bad2.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n")
        self.assertFails(rvskit.ERR_FORMAT, "declares 2 entries, file has 1", rvskit.mmread, path)
        self.assertFails(rvskit.ERR_FORMAT, ".", rvskit.mmread, write_text("bad3.mtx", "hello\n"))


# -- PMF and partitions ----------------------------------------------------------------------

PMF20_LENGTHS = [2, 5, 3, 7, 1, 5, 2, 6, 13, 5, 7, 9, 3, 10, 7, 1, 6, 13, 2, 10]


class Pmf(ErrorCase):
    def check_pmf(self, a):
        p = rvskit.pmf(a)
        q = rvskit.pmf_of(structure(a))  # duplicates summed, as librvskit's hub holds them
        self.assertEqual((p.rows, p.cols, p.nnz, p.empty_rows, p.min, p.max), (q.rows, q.cols, q.nnz, q.empty_rows,
                                                                               q.min, q.max))
        self.assertEqual(list(p.k), list(q.k))
        self.assertEqual(list(p.b), list(q.b))
        self.assertAlmostEqual(p.mean, q.mean, delta=1e-12 * max(1, q.mean))
        self.assertAlmostEqual(p.stddev, q.stddev, delta=1e-9 * max(1, q.stddev))
        self.assertAlmostEqual(p.ell_density, q.ell_density, delta=1e-15)
        return p

    def test_paper_example(self):
        """The 20 x 20 matrix of Yang et al.'s Fig. 1: its lengths, mean, longest row, density."""
        p = self.check_pmf(rvskit.mmread(os.path.join(DATA, "pmf20.mtx")))
        want_k, want_b = np.unique(PMF20_LENGTHS, return_counts=True)
        self.assertEqual((list(p.k), list(p.b)), (list(want_k), list(want_b)))
        self.assertEqual((p.mean, p.max, p.ell_density), (5.85, 13, 0.45))
        self.assertTrue(np.allclose(p.p, want_b / 20))

    @needs_shared
    def test_shared_matrices(self):
        for r in INDEX[::3]:
            with self.subTest(matrix=r["name"]):
                self.check_pmf(rvskit.mmread(r["path"]))

    def test_inputs_of_every_kind(self):
        """COO, dense, integer and complex values, unsorted rows with duplicates, empty rows."""
        a = random_csr(50, 40, 0.1, np.float64, 3)
        a[7] = 0
        a.eliminate_zeros()
        for m in (a.tocoo(), a.toarray(), a.astype(np.int32), random_csr(30, 30, 0.2, np.complex64, 4),
                  sp.csr_matrix((np.ones(4), np.array([3, 1, 3, 0]), np.array([0, 3, 3, 4])), shape=(3, 5))):
            with self.subTest(kind=type(m).__name__):
                self.check_pmf(m)
        self.assertFails(rvskit.ERR_ARG, "not a matrix", rvskit.pmf, "text")


class Partition(ErrorCase):
    def setUp(self):
        self.a = rvskit.mmread(os.path.join(DATA, "pmf20.mtx"))

    def rows1(self, P):
        return [sorted(int(r) + 1 for r in p.rows) for p in P.parts]

    def test_paper_algorithms(self):
        """Algorithms 1-3 on the paper's example with CP = (1, 2, 6): the worked results (DESIGN)."""
        P = rvskit.partition(self.a, "rows", [1, 2, 6])
        self.assertEqual(self.rows1(P), [[1, 2], [3, 4, 5, 6], list(range(7, 21))])
        self.assertEqual([p.nnz for p in P.parts], [7, 16, 94])
        self.assertEqual([p.width for p in P.parts], [5, 7, 13])
        self.assertAlmostEqual(P.mean_density, 117 / 220)
        P = rvskit.partition(self.a, "nnz", [1, 2, 6])
        self.assertEqual(self.rows1(P), [[1, 2, 3], [4, 5, 6, 7, 8], list(range(9, 21))])
        self.assertEqual(([p.nnz for p in P.parts], P.padded_total), ([10, 21, 86], 89))
        P = rvskit.partition(self.a, "pmf", [1, 2, 6], devices=["cpu", "cpu", "gpu"])
        self.assertEqual(self.rows1(P), [[1, 3, 5, 7, 13, 16, 19], [2, 6, 8, 10, 17], [4, 9, 11, 12, 14, 15, 18, 20]])
        self.assertEqual(([p.nnz for p in P.parts], P.padded_total, P.nnz), ([14, 27, 76], 38, 117))
        self.assertEqual([round(p.density, 2) for p in P.parts], [0.67, 0.9, 0.73])
        self.assertAlmostEqual(P.mean_density, 117 / 155)
        self.assertAlmostEqual(P.mean_zero_fill, 1 - 117 / 155)
        self.assertEqual([p.device for p in P.parts], ["cpu", "cpu", "gpu"])
        self.assertEqual([p.cp for p in P.parts], [1.0, 2.0, 6.0])
        self.assertEqual(P.e_total, sum(p.e for p in P.parts))
        # the same as partition(1) stores it
        stream = subprocess.run([os.path.join(BIN, "partition"), "--alg", "pmf", "--cp", "1,2,6"],
                                input=subprocess.run([os.path.join(BIN, "pmf"), os.path.join(DATA, "pmf20.mtx")],
                                                     capture_output=True, check=True).stdout,
                                capture_output=True, check=True).stdout
        s = rvskit.read(stream)
        self.assertEqual([list(p.rows) for p in s.partition.parts], [list(p.rows) for p in P.parts])

    def test_value_types(self):
        """Only the structure counts: f32 and complex matrices split as their f64 twin does."""
        want = [list(p.rows) for p in rvskit.partition(self.a, "pmf", [1, 2, 6]).parts]
        for dt in (np.float32, np.complex64, np.complex128):
            got = rvskit.partition(self.a.astype(dt) * (1 + 1j if dt != np.float32 else 1), "pmf", [1, 2, 6])
            self.assertEqual([list(p.rows) for p in got.parts], want, np.dtype(dt).name)

    def test_diag_and_default(self):
        P = rvskit.partition(self.a, "diag", [1, 1, 1], block_size=4)
        self.assertEqual(P.block_size, 4)
        self.assertEqual([p.entries for p in P.parts], ["diag", "offdiag", "offdiag"])
        self.assertEqual(sum(p.nnz for p in P.parts), 117)
        P = rvskit.partition(self.a)  # partition(1)'s buckets, on the GPU when there is one
        self.assertEqual(sorted(r for p in P.parts for r in p.rows), list(range(20)))
        self.assertTrue(all(p.device == ("gpu" if rvskit.gpu_count() else "cpu") for p in P.parts))

    @needs_shared
    def test_shared_matrices_split_every_row_once(self):
        for r in INDEX[::7]:
            a = rvskit.mmread(r["path"])
            for alg in ("rows", "nnz", "pmf"):
                with self.subTest(matrix=r["name"], alg=alg):
                    P = rvskit.partition(a, alg, [1, 3])
                    rows = np.concatenate([p.rows for p in P.parts])
                    self.assertEqual(sorted(rows.tolist()), list(range(a.shape[0])))
                    self.assertEqual(sum(p.nnz for p in P.parts), a.nnz)

    def test_bad_input(self):
        self.assertFails(rvskit.ERR_ARG, "algorithm", rvskit.partition, self.a, "best", [1])
        self.assertFails(rvskit.ERR_ARG, "positive", rvskit.partition, self.a, "rows", [1, -2])
        self.assertFails(rvskit.ERR_ARG, "devices", rvskit.partition, self.a, "rows", [1, 2], devices=["cpu"])
        self.assertFails(rvskit.ERR_ARG, "devices", rvskit.partition, self.a, "rows", [1], devices="tpu")
        self.assertFails(rvskit.ERR_ARG, ".", rvskit.partition, self.a, "diag", [1])


# -- the advisor -------------------------------------------------------------------------------

class Advise(ErrorCase):
    def check_advice(self, adv, device, precision):
        self.assertEqual((adv.device, adv.precision), (device, precision))
        self.assertIn(adv.how, ("model", "trial", "cache"))
        self.assertEqual(adv.candidates[adv.chosen].format, adv.format)
        self.assertIn(adv.format, ("csr", "coo", "ell", "ellr", "pellr", "biell", "jad", "hyb", "hyb-dia", "dia",
                                   "hcc"))
        self.assertGreater(adv.decide_ms, 0)
        if adv.how == "trial":
            self.assertEqual(adv.candidates[adv.chosen].status, "ran")
            ran = [c for c in adv.candidates if c.status == "ran"]
            self.assertTrue(all(c.trial_ms is not None and c.trial_ms >= 0 for c in ran))
            self.assertEqual(adv.trial_ms, min(c.trial_ms for c in ran))
        if adv.how == "model":
            self.assertIsNotNone(adv.predicted_ms)

    def test_cpu(self):
        a = random_csr(3000, 3000, 0.003, np.float64, 5)
        self.check_advice(rvskit.advise(a, device="cpu", cache=False), "cpu", "f64")
        adv = rvskit.advise(a, device="cpu", trials=True, cache=False, iters=3)
        self.check_advice(adv, "cpu", "f64")
        self.assertEqual(adv.how, "trial")
        self.assertGreater(len([c for c in adv.candidates if c.status == "ran"]), 1)
        self.check_advice(rvskit.advise(a, device="cpu", precision="f32", cache=False), "cpu", "f32")
        self.check_advice(rvskit.advise(random_csr(500, 500, 0.01, np.complex128, 6), device="cpu", cache=False),
                          "cpu", "c128")

    def test_trial_cache(self):
        """A decision by trials is remembered for the next matrix of that shape."""
        a = random_csr(2000, 2000, 0.004, np.float64, 15)
        first = rvskit.advise(a, device="cpu", trials=True, iters=2)
        again = rvskit.advise(a, device="cpu", trials=True, iters=2)
        self.assertEqual((again.how, again.format, again.knobs), ("cache", first.format, first.knobs))

    def test_bad_input(self):
        a = random_csr(10, 10, 0.3, np.float64, 1)
        self.assertFails(rvskit.ERR_ARG, "device", rvskit.advise, a, device="tpu")
        if rvskit.gpu_count() == 0:
            self.assertFails(rvskit.ERR_NODEV, "GPU", rvskit.advise, a, device="gpu")


# -- SpMV --------------------------------------------------------------------------------------

def spmv_suite():
    """Square and rectangular shared matrices of every kind, at most 100 of them."""
    return [r for r in INDEX if r["nnz_declared"] <= 200000][::2][:100]


class SpMVCases:
    """Checks shared by the CPU and the GPU: the device is self.device."""
    device = "cpu"

    def check(self, a, precision=None, calls=3, seed=0, **kw):
        op = rvskit.SpMV(a, device=self.device, precision=precision, cache=False, **kw)
        want = a.dtype
        if precision is not None:
            want = np.dtype({"f32": np.float32, "f64": np.float64}[precision])
            want = np.result_type(want, np.complex64) if a.dtype.kind == "c" else want
        self.assertEqual(op.dtype, want)
        self.assertEqual(op.shape, a.shape)
        for c in range(calls):
            x = vector(a.shape[1], op.dtype, seed + c)
            y = op @ x
            self.assertEqual((y.dtype, y.shape), (op.dtype, (a.shape[0],)))
            ok, err = close_product(a, x, y, TOL[op.dtype])
            self.assertTrue(ok, "error %g" % err)
        info = op.info()
        self.assertEqual((info.device, info.calls), (self.device, calls))
        return op

    @needs_shared
    def test_shared_matrices(self):
        for r in spmv_suite():
            a = rvskit.mmread(r["path"])
            for precision in (None, "f32"):
                with self.subTest(matrix=r["name"], precision=precision):
                    self.check(a, precision)

    def test_generated_every_type(self):
        for dt in (np.float64, np.float32, np.complex128, np.complex64):
            for shape in ((1, 1), (300, 200), (2000, 2000)):
                with self.subTest(dtype=np.dtype(dt).name, shape=shape):
                    a = random_csr(shape[0], shape[1], min(1.0, 8.0 / shape[1]), dt, 11)
                    a[0] = 0  # an empty row
                    a.eliminate_zeros()
                    self.check(a)

    def test_cg_converges_as_scipy(self):
        a = laplacian(40)
        b = np.ones(a.shape[0])
        op = rvskit.SpMV(a, device=self.device, cache=False)
        # SciPy 1.12 renamed cg's tol to rtol and 1.14 dropped tol
        tight = {"rtol" if "rtol" in inspect.signature(spla.cg).parameters else "tol": 1e-10}
        x, info = spla.cg(op, b, maxiter=2000, **tight)
        x_ref, info_ref = spla.cg(a, b, maxiter=2000, **tight)
        self.assertEqual((info, info_ref), (0, 0))
        self.assertLess(np.linalg.norm(a @ x - b) / np.linalg.norm(b), 1e-9)
        self.assertTrue(np.allclose(x, x_ref, rtol=1e-7, atol=1e-9))
        self.assertGreater(op.info().calls, 10)

    def test_linear_operator_forms(self):
        """matvec, op(x), dot, matmat, (N, 1) columns, lists, other dtypes, complex x, A^H."""
        a = random_csr(120, 90, 0.05, np.float64, 12)
        op = rvskit.SpMV(a, device=self.device, cache=False)
        x = vector(90, np.float64, 1)
        ref = a @ x
        for y in (op.matvec(x), op(x), op.dot(x), op @ list(x), op @ x.astype(np.float32),
                  op.matvec(x.reshape(-1, 1)).ravel(), (op * x), op @ np.asfortranarray(x)):
            self.assertTrue(close_product(a, x, y, 1e-6)[0])
        X = np.stack([vector(90, np.float64, s) for s in range(3)], axis=1)
        Y = op @ X
        self.assertEqual(Y.shape, (120, 3))
        self.assertTrue(np.allclose(Y, a @ X, rtol=1e-12, atol=1e-12))
        self.assertTrue(np.allclose(op.matmat(X), a @ X, rtol=1e-12, atol=1e-12))
        z = vector(90, np.complex128, 2)
        self.assertTrue(np.allclose(op @ z, a @ z, rtol=1e-12, atol=1e-12))
        w = vector(120, np.float64, 3)
        self.assertTrue(np.allclose(op.rmatvec(w), a.T @ w, rtol=1e-12, atol=1e-12))
        self.assertTrue(np.allclose(op.H @ w, a.T @ w, rtol=1e-12, atol=1e-12))
        self.assertIsInstance(op.H, rvskit.SpMV)
        c = random_csr(60, 50, 0.1, np.complex128, 13)
        opc = rvskit.SpMV(c, device=self.device, cache=False)
        v = vector(60, np.complex128, 4)
        self.assertTrue(np.allclose(opc.H @ v, c.conj().T @ v, rtol=1e-12, atol=1e-12))
        self.assertTrue(np.allclose((op * 2.0) @ x, 2 * ref, rtol=1e-12))  # a scalar: scipy's operator
        with self.assertRaises(ValueError):
            op @ 2.0

    def test_fixed_format_and_report(self):
        a = random_csr(800, 800, 0.01, np.float64, 14)
        op = self.check(a, format="ellr", tune=False)
        self.assertEqual((op.info().format, op.info().how), ("ellr", "fixed"))
        op = self.check(a, format="hcc", knobs="hcc-np=2")
        self.assertEqual(op.info().format, "hcc")
        op = self.check(a)
        text = op.report()
        self.assertIn("# %s f64 %s" % (self.device, op.info().format), text)
        self.assertRegex(repr(op), r"<800x800 rvskit.SpMV on the %s, f64 in " % self.device)

    def test_bad_input(self):
        a = random_csr(30, 20, 0.2, np.float64, 1)
        op = rvskit.SpMV(a, device=self.device, cache=False)
        self.assertFails(rvskit.ERR_DIM, "20 columns", op.matvec, np.ones(21))
        self.assertFails(rvskit.ERR_DIM, "20 columns", lambda: op @ np.ones(19, dtype=np.float32))
        self.assertFails(rvskit.ERR_DIM, "20 columns", lambda: op @ np.ones((21, 2)))
        self.assertFails(rvskit.ERR_DIM, "20 columns", op.matvec, [[1.0, 2.0]])
        self.assertFails(rvskit.ERR_ARG, "device", rvskit.SpMV, a, device="tpu")
        self.assertFails(rvskit.ERR_ARG, "format", rvskit.SpMV, a, device=self.device, format="nope")
        self.assertFails(rvskit.ERR_ARG, "precision", rvskit.SpMV, a, device=self.device, precision="f16")
        self.assertFails(rvskit.ERR_ARG, "not a matrix", rvskit.SpMV, np.array([["a"]], dtype=object))
        wide = sp.csr_matrix(([1.5], ([0], [2**31 + 5])), shape=(2, 2**31 + 10))
        self.assertFails(rvskit.ERR_UNSUPPORTED, "64-bit", rvskit.SpMV, wide, device=self.device)
        broken = a.copy()
        broken.indices[3] = 25  # past the columns, after scipy checked the matrix
        self.assertFails(rvskit.ERR_RANGE, ".", rvskit.SpMV, broken, device=self.device)


class SpMVCpu(SpMVCases, ErrorCase):
    device = "cpu"

    def test_no_gpu(self):
        if rvskit.gpu_count() == 0:
            a = random_csr(10, 10, 0.3, np.float64, 1)
            self.assertFails(rvskit.ERR_NODEV, "GPU", rvskit.SpMV, a, device="gpu")
            self.assertEqual(rvskit.SpMV(a, cache=False).info().device, "cpu")  # None: the CPU here

    def test_borrowed_arrays(self):
        """The operator reads the caller's arrays (no copy): they stay alive as long as it does."""
        a = random_csr(500, 500, 0.01, np.float64, 21)
        op = rvskit.SpMV(a, device="cpu", cache=False)
        self.assertTrue(np.shares_memory(op._lent.data, a.data))
        x = vector(500, np.float64, 3)
        ref = a @ x
        del a
        self.assertTrue(np.allclose(op @ x, ref, rtol=1e-12, atol=1e-14))


# -- SpGEMM ------------------------------------------------------------------------------------

class SpgemmCases:
    device = "cpu"

    def check(self, a, b=None, precision=None, device=None):
        c, info = rvskit.spgemm(a, b, device=device or self.device, precision=precision, info=True)
        bb = a if b is None else b
        ref = sp.csr_matrix(a).astype(np.complex128 if c.dtype.kind == "c" else np.float64) @ bb
        ref = sp.csr_matrix(ref)
        self.assertIsInstance(c, sp.csr_matrix)
        self.assertEqual(c.shape, ref.shape)
        self.assertEqual(info.nnz, c.nnz)
        self.assertTrue(c.has_sorted_indices)
        diff = abs(c - ref)
        scale = (abs(sp.csr_matrix(a)) @ abs(sp.csr_matrix(bb))).max() if c.nnz else 1
        self.assertLessEqual(diff.max() if diff.nnz else 0, TOL[c.dtype] * max(1, scale))
        # structural: every product kept, numerical zeros included, as scipy's pattern product
        pattern = structure(a) @ structure(bb)  # counts of products: never a cancelling zero
        pattern.sort_indices()
        self.assertTrue(np.array_equal(c.indptr, pattern.indptr) and np.array_equal(c.indices, pattern.indices))
        return c, info

    @needs_shared
    def test_shared_matrices(self):
        for r in [r for r in INDEX if r["rows"] == r["cols"] and r["nnz_declared"] <= 60000][::4]:
            with self.subTest(matrix=r["name"]):
                self.check(rvskit.mmread(r["path"]))

    def test_generated_every_type(self):
        for dt in (np.float64, np.float32, np.complex128, np.complex64):
            with self.subTest(dtype=np.dtype(dt).name):
                a = random_csr(300, 200, 0.03, dt, 1)
                b = random_csr(200, 250, 0.03, dt, 2)
                c, _ = self.check(a, b)
                self.assertEqual(c.dtype, dt)
        c, _ = self.check(random_csr(50, 40, 0.1, np.float64, 3), random_csr(40, 30, 0.1, np.complex64, 4))
        self.assertEqual(c.dtype, np.complex128)
        c, _ = self.check(random_csr(50, 40, 0.1, np.float64, 3), random_csr(40, 30, 0.1, np.float64, 4),
                          precision="f32")
        self.assertEqual(c.dtype, np.float32)

    def test_owned_by_c(self):
        c = rvskit.spgemm(random_csr(100, 100, 0.05, np.float64, 5), device=self.device)
        self.assertFalse(c.data.flags.owndata)

    def test_bad_input(self):
        a, b = random_csr(10, 8, 0.3, np.float64, 1), random_csr(9, 8, 0.3, np.float64, 2)
        self.assertFails(rvskit.ERR_DIM, "10 x 8.*9 x 8", rvskit.spgemm, a, b, device=self.device)
        self.assertFails(rvskit.ERR_ARG, "device", rvskit.spgemm, a, device="tpu")


class SpgemmCpu(SpgemmCases, ErrorCase):
    device = "cpu"

    def test_auto(self):
        a = random_csr(400, 400, 0.02, np.float64, 7)
        c, info = rvskit.spgemm(a, info=True)
        self.assertIn(info.device, ("cpu", "gpu", "hybrid"))
        self.assertTrue(info.why)
        products = structure(a) @ np.diff(a.indptr)  # a_ik b_kj per row i
        self.assertEqual(info.products, int(products.sum()))
        self.check(a, device="auto")

    def test_no_gpu(self):
        if rvskit.gpu_count() == 0:
            a = random_csr(10, 10, 0.3, np.float64, 1)
            for device in ("gpu", "hybrid"):
                self.assertFails(rvskit.ERR_NODEV, ".", rvskit.spgemm, a, device=device)


# -- errors and loading --------------------------------------------------------------------------

class Errors(ErrorCase):
    def test_one_class(self):
        self.assertTrue(issubclass(rvskit.StreamError, rvskit.Error))
        with self.assertRaises(rvskit.Error) as cm:
            rvskit.read(b"not a stream")
        self.assertEqual(cm.exception.code, rvskit.ERR_FORMAT)

    def test_library_not_found(self):
        """Without the library the stream reader still works and a computing call says why."""
        code = ("import sys, rvskit\n"
                "s = rvskit.read(sys.stdin.buffer)\n"
                "try:\n    rvskit.pmf(s.matrix)\nexcept rvskit.Error as e:\n    print(s.matrix.nnz, e.name, e)\n")
        stream = subprocess.run([os.path.join(BIN, "pmf"), os.path.join(DATA, "pmf20.mtx")], capture_output=True,
                                check=True).stdout
        env = dict(os.environ, RVSKIT_LIB=os.path.join(T, "nowhere", "librvskit.so"))
        out = subprocess.run([sys.executable, "-c", code], input=stream, env=env, capture_output=True, check=True)
        self.assertRegex(out.stdout.decode(), r"^117 NOFILE librvskit.so not found \(set RVSKIT_LIB")

    def test_library_path(self):
        """RVSKIT_LIB names the library; without it one is found (here: the source tree's build/)."""
        path = rvskit.library_path()
        self.assertTrue(os.path.exists(path), path)
        if os.environ.get("RVSKIT_LIB"):
            self.assertEqual(path, os.path.realpath(os.environ["RVSKIT_LIB"]))
        env = {k: v for k, v in os.environ.items() if k != "RVSKIT_LIB"}
        out = subprocess.run([sys.executable, "-c", "import rvskit; print(rvskit.library_path())"], env=env,
                             capture_output=True, text=True)
        self.assertTrue(out.returncode == 0 and os.path.exists(out.stdout.strip()), out.stderr[-300:])


# -- the GPU -------------------------------------------------------------------------------------

def cupy_or_none():
    try:
        import cupy
        import cupyx.scipy.sparse  # noqa: F401
        return cupy
    except ImportError:
        return None


needs_gpu = unittest.skipUnless(rvskit.gpu_count() > 0, "no usable GPU")


@needs_gpu
class SpMVGpu(SpMVCases, ErrorCase):
    device = "gpu"

    def test_cupy_vectors_stay_on_the_device(self):
        cp = cupy_or_none()
        if cp is None:
            self.skipTest("no CuPy")
        for dt in (np.float64, np.float32, np.complex128):
            with self.subTest(dtype=np.dtype(dt).name):
                a = random_csr(5000, 4000, 0.002, dt, 31)
                op = rvskit.SpMV(a, device="gpu", cache=False)
                for c in range(5):
                    x = vector(4000, dt, c)
                    xd = cp.asarray(x) * 1  # made by a CuPy kernel: the op must wait for it
                    y = op @ xd
                    self.assertIsInstance(y, cp.ndarray)
                    self.assertEqual(y.dtype, op.dtype)
                    self.assertTrue(close_product(a, x, cp.asnumpy(y), TOL[np.dtype(dt)])[0])
                self.assertTrue(op._device_vectors)
                Y = op @ cp.asarray(np.stack([vector(4000, dt, 9), vector(4000, dt, 10)], axis=1))
                self.assertEqual(Y.shape, (5000, 2))
                on_cpu = rvskit.SpMV(a, device="cpu", cache=False) @ xd  # through the host, back to CuPy
                self.assertIsInstance(on_cpu, cp.ndarray)
                self.assertTrue(close_product(a, x, cp.asnumpy(on_cpu), TOL[np.dtype(dt)])[0])
                w = vector(5000, dt, 11)
                self.assertTrue(close_product(a.conj().T, w, cp.asnumpy(op.rmatvec(cp.asarray(w))),
                                              TOL[np.dtype(dt)])[0])

    def test_cupy_matrix_and_cg(self):
        cp = cupy_or_none()
        if cp is None:
            self.skipTest("no CuPy")
        import cupyx.scipy.sparse as csp
        a = laplacian(60)
        op = rvskit.SpMV(csp.csr_matrix(a), device="gpu", cache=False)
        self.assertEqual(op.shape, a.shape)
        x = vector(a.shape[1], np.float64, 3)
        self.assertTrue(close_product(a, x, cp.asnumpy(op @ cp.asarray(x)), 1e-10)[0])
        # CG in CuPy, every product on the device
        b = cp.ones(a.shape[0])
        xk = cp.zeros_like(b)
        r = b.copy()
        p = r.copy()
        rr = float(r @ r)
        for _ in range(2000):
            q = op @ p
            alpha = rr / float(p @ q)
            xk += alpha * p
            r -= alpha * q
            rr_new = float(r @ r)
            if rr_new ** 0.5 < 1e-10 * a.shape[0] ** 0.5:
                break
            p = r + (rr_new / rr) * p
            rr = rr_new
        self.assertLess(np.linalg.norm(a @ cp.asnumpy(xk) - 1) / a.shape[0] ** 0.5, 1e-9)

    def test_advise_gpu(self):
        a = random_csr(20000, 20000, 0.0005, np.float64, 32)
        for trials in (False, True):
            adv = rvskit.advise(a, device="gpu", trials=trials, cache=False)
            Advise.check_advice(self, adv, "gpu", "f64")
        self.assertTrue(any(c.format == "csr" and "cusparse" in c.knobs for c in adv.candidates))


@needs_gpu
class SpgemmGpu(SpgemmCases, ErrorCase):
    device = "gpu"

    def test_hybrid_and_auto(self):
        a = random_csr(3000, 3000, 0.003, np.float64, 40)
        a[5] = random_csr(1, 3000, 0.5, np.float64, 41)  # a long row, which the hybrid gives the CPU
        c, info = self.check(a, device="hybrid")
        self.assertEqual(info.device, "hybrid")
        self.assertGreater(info.cpu_rows, 0)
        self.assertGreater(info.gpu_rows, 0)
        c, info = self.check(a, device="auto")
        self.assertIn(info.device, ("cpu", "gpu", "hybrid"))


def suite(mode):
    names = {"cpu": (Layout, Mmread, Pmf, Partition, Advise, SpMVCpu, SpgemmCpu, Errors),
             "gpu": (SpMVGpu, SpgemmGpu)}[mode]
    loader = unittest.TestLoader()
    return unittest.TestSuite(loader.loadTestsFromTestCase(c) for c in names)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    if mode not in ("cpu", "gpu"):
        sys.exit("usage: test_python_compute.py cpu|gpu")
    if mode == "gpu" and rvskit.gpu_count() == 0:
        print("skipped: no usable GPU (%s)" % rvskit.devices()["gpu"])
        sys.exit(77)
    result = unittest.TextTestRunner(verbosity=2).run(suite(mode))
    sys.exit(0 if result.wasSuccessful() and result.testsRun else 1)
