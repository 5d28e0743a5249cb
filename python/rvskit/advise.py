"""The format advisor: the format and tunables `auto` chooses for a matrix on a device."""

import ctypes
from dataclasses import dataclass, field

from . import _hub, _lib
from .errors import ERR_ARG, ERR_INTERNAL, Error

CAND_STATUS = {0: "ran", 1: "refused", 2: "pruned", 3: "failed"}
ADVISE_MODEL, ADVISE_TRIALS = 0, 1


def _ms(v):
    return None if v < 0 else v


@dataclass
class Candidate:
    """A format with its tunables, as the advisor weighed it. status: "ran" (built, timed and its
    result checked), "refused" (the builder refused the matrix: padding limits, index widths),
    "pruned" (the byte model ruled it out, or the fitted model ranked it out of the doubts) or
    "failed". predicted_ms: the fitted model's time of one SpMV, trial_ms: the median of the
    trials, model_bytes: the bytes one SpMV moves by the byte model (None where there is none)."""
    format: str
    knobs: str
    status: str
    predicted_ms: object
    trial_ms: object
    model_bytes: object


@dataclass
class Advice:
    """What the advisor chose: format and knobs ("default" when every tunable is the format's
    own), for device ("cpu" or "gpu") and precision ("f32", "f64", "c64", "c128"); how:
    "model" (the fitted model alone, nothing built), "trial" (candidates built and timed) or
    "cache" (an earlier trial on a matrix of this shape); predicted_ms and trial_ms of the choice
    (None where none); decide_ms: what deciding cost; sampled: the trials ran on a sample of the
    rows; fit: the model's device class; candidates: every one weighed, the chosen one at index
    chosen; pending: the candidates the model could not tell from the choice, which an
    rvskit.SpMV tries between calls."""
    format: str
    knobs: str
    device: str
    precision: str
    how: str
    predicted_ms: object
    trial_ms: object
    decide_ms: float
    sampled: bool
    fit: str
    chosen: int
    candidates: list = field(default_factory=list)
    pending: list = field(default_factory=list)


def _device_code(device):
    if device not in ("cpu", "gpu"):
        raise Error("device %r is not 'cpu' or 'gpu'" % (device,), ERR_ARG)
    return _lib.DEV_GPU if device == "gpu" else _lib.DEV_CPU


def advise(matrix, device="gpu", precision=None, trials=False, cache=True, iters=7):
    """The format `auto` would choose for a sparse matrix on device "gpu" or "cpu".

    By default the fitted model decides from the matrix's row lengths and a sample of its
    entries, and only the candidates it cannot separate are built, timed (the median of iters
    runs, each result checked against CSparse) and compared; trials=True builds and times every
    candidate the byte model keeps. cache=False neither reads nor writes the trial cache
    ($XDG_CACHE_HOME/rvskit/trials). precision: "f32" or "f64" [the matrix's].

    Returns rvskit.Advice. Raises rvskit.Error: ERR_NODEV for "gpu" without a GPU, ERR_ARG for
    an unknown device, ERR_UNSUPPORTED for a matrix past 2^31 columns."""
    dev = _device_code(device)
    a = _hub.lend(matrix, _hub.value_dtype(getattr(matrix, "dtype", "f8"), precision))
    o = _lib.AdvisorOptions()
    L = _lib.lib()
    L.rvs_advisor_options_default(ctypes.byref(o))
    o.use_cache = 1 if cache else 0
    o.mode = ADVISE_TRIALS if trials else ADVISE_MODEL
    o.iters = max(1, int(iters))
    d = _lib.Decision()
    e = _lib.RvsError()
    _lib.check(L.rvs_advise(ctypes.byref(d), a.ref, -1, dev, a.csr.vtype, ctypes.byref(o), ctypes.byref(e)), e)
    cands = [_candidate(d.cand[i]) for i in range(d.ncand)]
    if not 0 <= d.chosen < d.ncand:
        raise Error("advisor: no candidate chosen", ERR_INTERNAL)
    c = cands[d.chosen]
    return Advice(format=c.format, knobs=c.knobs, device=device, precision=_lib.VTYPE_NAMES[d.vtype],
                  how=_lib.how_name(d.how), predicted_ms=c.predicted_ms,
                  trial_ms=c.trial_ms, decide_ms=d.decide_ms, sampled=bool(d.sampled), fit=_lib.text(d.fit),
                  chosen=d.chosen, candidates=cands, pending=[cands[d.pending[i]] for i in range(d.npending)])


def _candidate(c):
    return Candidate(format=_lib.format_name(c.format), knobs=_lib.knobs_text(c.knobs),
                     status=CAND_STATUS.get(c.status, "?"), predicted_ms=c.pred_ms if c.pred_ms > 0 else None,
                     trial_ms=_ms(c.ms),
                     model_bytes=_ms(c.model_bytes))
