"""librvskit through ctypes: where the library is found, the C structures the module passes, and
the prototypes of the functions it calls (include/rvskit/rvskit.h). Loaded on first use, so that
the stream reader works without the library."""

import ctypes
import ctypes.util
import os
import sys
import sysconfig

from .errors import ERR_NOFILE, Error

c_i64, c_int, c_dbl, c_ptr, c_char_p, c_size = (ctypes.c_int64, ctypes.c_int, ctypes.c_double, ctypes.c_void_p,
                                                ctypes.c_char_p, ctypes.c_size_t)

# value types (rvs_vtype), devices, partition algorithms: written to streams, never renumbered
F32, F64, C64, C128 = 1, 2, 3, 4
VTYPE_NAMES = {F32: "f32", F64: "f64", C64: "c64", C128: "c128"}
DEV_CPU, DEV_GPU = 0, 1


class Struct(ctypes.Structure):
    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % (f[0], getattr(self, f[0])) for f in self._fields_))


class RvsError(Struct):
    _fields_ = [("code", c_int), ("msg", ctypes.c_char * 256)]


class Csr(Struct):
    _fields_ = [("rows", c_i64), ("cols", c_i64), ("nnz", c_i64), ("vtype", c_int), ("rowptr", c_ptr),
                ("colind", c_ptr), ("colind64", c_ptr), ("values", c_ptr)]


class MmInfo(Struct):
    _fields_ = [("format", ctypes.c_char * 16), ("field", ctypes.c_char * 24), ("symmetry", ctypes.c_char * 16),
                ("rows", c_i64), ("cols", c_i64), ("entries", c_i64), ("skew_diagonal", c_i64),
                ("skew_diagonal_line", c_i64), ("big_integers", c_i64), ("big_integer_line", c_i64),
                ("hermitian_diagonal", c_i64), ("hermitian_diagonal_line", c_i64)]


class Pmf(Struct):
    _fields_ = [("rows", c_i64), ("cols", c_i64), ("nnz", c_i64), ("empty_rows", c_i64), ("min", c_i64),
                ("max", c_i64), ("mean", c_dbl), ("stddev", c_dbl), ("ell_density", c_dbl), ("nbins", c_i64),
                ("k", c_ptr), ("b", c_ptr)]


class Part(Struct):
    _fields_ = [("device", c_int), ("cp", c_dbl), ("entries", c_int), ("nrows", c_i64), ("rows", c_ptr),
                ("nnz", c_i64), ("width", c_i64), ("e", c_i64), ("padded", c_i64), ("density", c_dbl)]


class Partition(Struct):
    _fields_ = [("alg", c_int), ("block_size", c_i64), ("k", c_int), ("parts", ctypes.POINTER(Part)),
                ("nnz", c_i64), ("e_total", c_i64), ("padded_total", c_i64), ("mean_density", c_dbl),
                ("mean_zero_fill", c_dbl), ("rel_diff_pct", c_dbl)]


class GpuTune(Struct):
    _fields_ = [(n, c_int) for n in ("block", "threads_per_row", "hcc_wg", "hcc_wi", "rows_per_thread",
                                     "csr_kernel")]


class FmtOptions(Struct):
    _fields_ = [(n, c_i64) for n in ("hyb_k", "hcc_np", "hcc_nb", "hcc_g", "csr_order", "csr_values",
                                     "csr_panels", "csr_index", "dia_values", "dia_max_ratio",
                                     "ell_max_ratio")] + [("admit_only", c_int), ("consume", c_int)]


class Knobs(Struct):
    _fields_ = [("tune", GpuTune), ("fo", FmtOptions)]


MAX_CAND, MAX_PENDING = 64, 4


class Candidate(Struct):
    _fields_ = [("format", c_int), ("knobs", Knobs), ("status", c_int), ("ms", c_dbl), ("model_bytes", c_dbl),
                ("pred_ms", c_dbl), ("pred_sigma", c_dbl)]


class Decision(Struct):
    _fields_ = [("part", c_int), ("device", c_int), ("vtype", c_int), ("chosen", c_int), ("ncand", c_int),
                ("from_cache", c_int), ("sampled", c_int), ("how", c_int), ("decide_ms", c_dbl),
                ("fit", ctypes.c_char * 32), ("npending", c_int), ("pending", c_int * MAX_PENDING),
                ("late", c_int), ("cand", Candidate * MAX_CAND)]


class AdvisorOptions(Struct):
    _fields_ = [("iters", c_int), ("use_cache", c_int), ("keep_ratio", c_dbl), ("sample_nnz", c_i64),
                ("mode", c_int), ("max_trials", c_int), ("defer", c_int), ("late", c_int)]


class SpmvOpOptions(Struct):
    _fields_ = [("device", c_int), ("vtype", c_int), ("threads", c_int), ("tune", c_int), ("use_cache", c_int),
                ("format", c_int), ("tune_knobs", c_char_p)]


class SpmvOpStats(Struct):
    _fields_ = [("device", c_int), ("vtype", c_int), ("format", c_int), ("knobs", Knobs), ("how", c_int),
                ("pred_ms", c_dbl), ("decide_ms", c_dbl), ("tune_ms", c_dbl), ("switches", c_int),
                ("calls", c_i64), ("items", c_int)]


class SpgemmOptions(Struct):
    _fields_ = [("method", c_int), ("gpu_mem_bytes", c_size), ("trace", c_int), ("passes", c_int),
                ("poison", c_int), ("kernel_only", c_int), ("slots", c_int), ("max_block_products", c_i64),
                ("hybrid_cpu_share", c_dbl), ("hybrid_long_factor", c_dbl)]


SPGEMM_TRACE = 19


class SpgemmStats(Struct):
    _fields_ = ([("products", c_i64), ("nnz_c", c_i64)] +
                [(n, c_dbl) for n in ("t_setup", "t_pre", "t_transfer", "t_multiply", "t_compress", "t_total",
                                      "t_kernel")] +
                [(n, c_i64) for n in ("blocks", "cpu_rows", "gpu_rows", "rows_esc", "rows_dense", "rows_hash")] +
                [("gpu_budget_bytes", c_size), ("gpu_peak_bytes", c_size), ("t_trace", c_dbl * SPGEMM_TRACE)])


class Devices(Struct):
    _fields_ = [("cpu_threads", c_int), ("gpus", c_int), ("gpu_desc", ctypes.c_char * 256),
                ("gpu_free_bytes", c_size)]


class FormatOps(Struct):
    """The head of rvs_format_ops: its id and name (the rest, function pointers, is not read)."""
    _fields_ = [("id", c_int), ("name", c_char_p)]


STRUCTS = {"rvs_error": RvsError, "rvs_csr": Csr, "rvs_mm_info": MmInfo, "rvs_pmf": Pmf, "rvs_part": Part,
           "rvs_partition": Partition, "rvs_gpu_tune": GpuTune, "rvs_fmt_options": FmtOptions, "rvs_knobs": Knobs,
           "rvs_candidate": Candidate, "rvs_decision": Decision, "rvs_advisor_options": AdvisorOptions,
           "rvs_spmv_op_options": SpmvOpOptions, "rvs_spmv_op_stats": SpmvOpStats,
           "rvs_spgemm_options": SpgemmOptions, "rvs_spgemm_stats": SpgemmStats, "rvs_engine_devices": Devices,
           "rvs_format_ops": FormatOps}

P = ctypes.POINTER
ERRP = P(RvsError)
PROTOTYPES = {
    "rvs_status_string": (c_char_p, [c_int]),
    "rvs_csr_free": (None, [P(Csr)]),
    "rvs_csr_validate": (c_int, [P(Csr), ERRP]),
    "rvs_csr_convert_values": (c_int, [P(Csr), c_int, ERRP]),
    "rvs_mm_read_file": (c_int, [P(Csr), P(MmInfo), c_char_p, c_ptr, c_ptr, ERRP]),
    "rvs_pmf_compute": (c_int, [P(Pmf), P(Csr), ERRP]),
    "rvs_pmf_free": (None, [P(Pmf)]),
    "rvs_partition_compute": (c_int, [P(Partition), P(Csr), c_int, c_int, P(c_dbl), P(c_int), c_i64, ERRP]),
    "rvs_partition_free": (None, [P(Partition)]),
    "rvs_default_cp": (c_int, [P(Csr), c_int, c_int, c_ptr, P(P(c_dbl)), P(P(c_int)), P(c_int), c_char_p, c_size,
                               ERRP]),
    "rvs_alg_from_name": (c_int, [c_char_p]),
    "rvs_alg_name": (c_char_p, [c_int]),
    "rvs_format_lookup": (P(FormatOps), [c_int]),
    "rvs_format_by_name": (P(FormatOps), [c_char_p]),
    "rvs_how_name": (c_char_p, [c_int]),
    "rvs_knobs_format": (None, [P(Knobs), c_char_p, c_size]),
    "rvs_knobs_default": (None, [P(Knobs)]),
    "rvs_advisor_options_default": (None, [P(AdvisorOptions)]),
    "rvs_advise": (c_int, [P(Decision), P(Csr), c_int, c_int, c_int, P(AdvisorOptions), ERRP]),
    "rvs_engine_devices_probe": (None, [P(Devices), c_int, c_int]),
    "rvs_gpu_count": (c_int, []),
    "rvs_spmv_op_options_default": (None, [P(SpmvOpOptions)]),
    "rvs_spmv_op_create": (c_int, [c_ptr, P(Csr), P(SpmvOpOptions), ERRP]),
    "rvs_spmv_op_create_device": (c_int, [c_ptr, c_i64, c_i64, c_i64, c_ptr, c_ptr, c_ptr, c_int, P(SpmvOpOptions),
                                          ERRP]),
    "rvs_spmv_op_apply": (c_int, [c_ptr, c_ptr, c_ptr, ERRP]),
    "rvs_spmv_op_apply_device": (c_int, [c_ptr, c_ptr, c_ptr, ERRP]),
    "rvs_spmv_op_info": (None, [c_ptr, P(SpmvOpStats)]),
    "rvs_spmv_op_plan": (c_ptr, [c_ptr]),
    "rvs_spmv_op_free": (None, [c_ptr]),
    "rvs_plan_print": (None, [c_ptr, c_ptr, c_ptr, c_char_p]),
    "rvs_plan_print_candidates": (None, [c_ptr, c_ptr, c_char_p]),
    "rvs_spgemm_cpu": (c_int, [P(Csr), P(Csr), P(Csr), P(SpgemmStats), ERRP]),
    "rvs_spgemm_gpu": (c_int, [P(Csr), P(Csr), P(Csr), P(SpgemmOptions), P(SpgemmStats), ERRP]),
    "rvs_spgemm_hybrid": (c_int, [P(Csr), P(Csr), P(Csr), P(SpgemmOptions), P(SpgemmStats), ERRP]),
    "rvs_spgemm_auto": (c_int, [P(Csr), P(Csr), P(Csr), P(SpgemmOptions), P(SpgemmStats), P(c_int), c_char_p,
                                c_size, ERRP]),
}

_lib = None
_path = None


def _candidates():
    """Where librvskit.so may be, in the order it is looked for."""
    env = os.environ.get("RVSKIT_LIB")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    # the source tree: python/rvskit next to build/
    yield os.path.join(here, "..", "..", "build", "librvskit.so")
    # an install: PREFIX/lib[/python3.X/site-packages]/rvskit
    parts = here.split(os.sep)
    prefixes = [os.sep.join(parts[:i]) for i in range(len(parts) - 1, 0, -1) if parts[i] in ("lib", "lib64")]
    prefixes += [sys.prefix, "/usr/local", "/usr"]
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    for prefix in prefixes:
        for lib in ("lib", "lib64", os.path.join("lib", arch) if arch else None):
            if lib:
                yield os.path.join(prefix, lib, "librvskit.so")
    found = ctypes.util.find_library("rvskit")
    if found:
        yield found


def lib():
    """The loaded library, with the prototypes set; rvskit.Error (ERR_NOFILE) when not found."""
    global _lib, _path
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if path in tried:
            continue
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        for name, (restype, argtypes) in PROTOTYPES.items():
            f = getattr(handle, name)
            f.restype, f.argtypes = restype, argtypes
        _lib, _path = handle, os.path.realpath(path) if os.sep in path else path
        return _lib
    raise Error("librvskit.so not found (set RVSKIT_LIB to its path); tried: " + ", ".join(tried), ERR_NOFILE)


def library_path():
    """The path of the librvskit.so in use (loading it if need be)."""
    lib()
    return _path


def message(status, err):
    """The library's message of a failed call (its generic text when it left none)."""
    return err.msg.decode("utf-8", "replace") or lib().rvs_status_string(status).decode()


def check(status, err):
    """Raise rvskit.Error for a failed call, with the library's message."""
    if status != 0:
        raise Error(message(status, err), status)


def text(b):
    return b.decode("utf-8", "replace") if b else ""


def format_name(fid):
    ops = lib().rvs_format_lookup(fid)
    return text(ops.contents.name) if ops else "format %d" % fid


def knobs_text(knobs):
    buf = ctypes.create_string_buffer(256)
    lib().rvs_knobs_format(ctypes.byref(knobs), buf, len(buf))
    return text(buf.value)


def how_name(how):
    return text(lib().rvs_how_name(how))


_libc = None


def libc():
    """The C library, for free() and open_memstream()."""
    global _libc
    if _libc is None:
        c = ctypes.CDLL(None)
        c.free.argtypes, c.free.restype = [c_ptr], None
        c.open_memstream.argtypes, c.open_memstream.restype = [P(c_ptr), P(c_size)], c_ptr
        c.fclose.argtypes = [c_ptr]
        _libc = c
    return _libc


def printed(write):
    """What write(FILE *) prints, as a str."""
    buf, size = c_ptr(), c_size()
    f = libc().open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not f:
        return ""
    try:
        write(f)
    finally:
        libc().fclose(f)
    out = ctypes.string_at(buf, size.value).decode("utf-8", "replace")
    libc().free(buf)
    return out
