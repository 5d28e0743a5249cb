"""rvskit.Error: every failure of the module, with the library's status code and message."""

# librvskit's rvs_status (libformat/rvs_status.h): never renumbered
ERR_NOMEM, ERR_IO, ERR_NOFILE, ERR_FORMAT, ERR_CRC, ERR_TRUNCATED = -1, -2, -3, -4, -5, -6
ERR_VERSION, ERR_UNSUPPORTED, ERR_RANGE, ERR_OVERFLOW, ERR_EMPTY, ERR_DIM = -7, -8, -9, -10, -11, -12
ERR_ARG, ERR_NODEV, ERR_DEVICE, ERR_CHECK, ERR_INTERNAL = -13, -14, -15, -16, -17
STATUS_NAMES = {code: name[4:] for name, code in globals().items() if name.startswith("ERR_")}


class Error(Exception):
    """A failure of rvskit: bad input, a missing file, no GPU, a library that is not found.

    code is librvskit's status (a negative number, one of the ERR_* constants of rvskit:
    ERR_NOFILE, ERR_FORMAT, ERR_NODEV, ...), name its short name ("NOFILE"), and str(e) the
    library's one-line message ("line 7: row index 0 out of range 1..5")."""

    def __init__(self, message, code=ERR_ARG):
        super().__init__(message)
        self.code = code

    __module__ = "rvskit"

    @property
    def name(self):
        return STATUS_NAMES.get(self.code, "UNKNOWN")
