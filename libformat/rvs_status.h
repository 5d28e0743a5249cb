/* rvs_status.h - one status enum for libformat and kernels, plus a detailed error record */
#ifndef RVS_STATUS_H
#define RVS_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Zero is success, negative values are errors. Programs map them to sysexits with
 * rvs_status_exit_code(). */
typedef enum {
    RVS_OK = 0,
    RVS_ERR_NOMEM = -1,       /* allocation failed */
    RVS_ERR_IO = -2,          /* read/write failed, closed pipe */
    RVS_ERR_NOFILE = -3,      /* input file missing or unreadable */
    RVS_ERR_FORMAT = -4,      /* malformed input (Matrix Market, stream) */
    RVS_ERR_CRC = -5,         /* stream chunk checksum mismatch */
    RVS_ERR_TRUNCATED = -6,   /* stream or file ends early */
    RVS_ERR_VERSION = -7,     /* stream major version newer than this reader */
    RVS_ERR_UNSUPPORTED = -8, /* valid input that this build cannot handle (complex, unknown critical chunk) */
    RVS_ERR_RANGE = -9,       /* index out of range */
    RVS_ERR_OVERFLOW = -10,   /* a size overflows or exceeds a documented limit */
    RVS_ERR_EMPTY = -11,      /* empty input where data is required */
    RVS_ERR_DIM = -12,        /* mismatched dimensions */
    RVS_ERR_ARG = -13,        /* invalid argument from the caller (usage) */
    RVS_ERR_NODEV = -14,      /* no GPU, or built without CUDA */
    RVS_ERR_DEVICE = -15,     /* a CUDA / cuSPARSE call failed */
    RVS_ERR_CHECK = -16,      /* a result differs from the reference beyond tolerance */
    RVS_ERR_INTERNAL = -17    /* a bug: an invariant did not hold */
} rvs_status;

/* Detailed error: the code plus one line of context ("line 12: column index 0 out of range").
 * Library functions that can fail on data take an rvs_error * (may be NULL) and fill it. */
typedef struct {
    rvs_status code;
    char msg[256];
} rvs_error;

/* Short generic text for a status ("out of memory", "CRC mismatch", ...). Never NULL. */
const char *rvs_status_string(rvs_status s);

/* sysexits code for a status: 65 bad data, 66 no input, 74 I/O, 70 internal, 64 usage, 69 unavailable. */
int rvs_status_exit_code(rvs_status s);

/* Record an error: err->code = s, err->msg = printf(fmt, ...). Returns s, so a caller can
 * write `return rvs_fail(err, RVS_ERR_RANGE, "row %lld out of range", r);`. err may be NULL. */
rvs_status rvs_fail(rvs_error *err, rvs_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clear an error record to RVS_OK and an empty message. err may be NULL. */
void rvs_error_clear(rvs_error *err);
/* Prefix err's message with "part N: " (N = part + 1); nothing for part < 0 (the whole matrix). */
void rvs_error_name_part(rvs_error *err, int part);

#ifdef __cplusplus
}
#endif
#endif
