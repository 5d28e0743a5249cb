/* status.c - status texts, exit codes and the error record */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "rvs_status.h"

/* Generic text of a status. */
const char *rvs_status_string(rvs_status s)
{
    switch (s) {
    case RVS_OK: return "success";
    case RVS_ERR_NOMEM: return "out of memory";
    case RVS_ERR_IO: return "input/output error";
    case RVS_ERR_NOFILE: return "cannot open input";
    case RVS_ERR_FORMAT: return "malformed input";
    case RVS_ERR_CRC: return "checksum mismatch";
    case RVS_ERR_TRUNCATED: return "input is truncated";
    case RVS_ERR_VERSION: return "unsupported stream version";
    case RVS_ERR_UNSUPPORTED: return "unsupported input";
    case RVS_ERR_RANGE: return "index out of range";
    case RVS_ERR_OVERFLOW: return "size too large";
    case RVS_ERR_EMPTY: return "empty input";
    case RVS_ERR_DIM: return "dimensions do not match";
    case RVS_ERR_ARG: return "invalid argument";
    case RVS_ERR_NODEV: return "no GPU available";
    case RVS_ERR_DEVICE: return "GPU call failed";
    case RVS_ERR_CHECK: return "result differs from the reference";
    case RVS_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

/* sysexits code of a status. */
int rvs_status_exit_code(rvs_status s)
{
    switch (s) {
    case RVS_OK: return 0;
    case RVS_ERR_ARG: return 64;
    case RVS_ERR_NOFILE: return 66;
    case RVS_ERR_IO: return 74;
    case RVS_ERR_NODEV:
    case RVS_ERR_DEVICE: return 69;
    case RVS_ERR_NOMEM:
    case RVS_ERR_INTERNAL: return 70;
    case RVS_ERR_CHECK: return 1;
    default: return 65;
    }
}

/* err = (s, printf(fmt, ...)); returns s. */
rvs_status rvs_fail(rvs_error *err, rvs_status s, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = s;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* err = (RVS_OK, ""). */
void rvs_error_name_part(rvs_error *err, int part)
{
    if (part < 0 || !err)
        return;
    char msg[sizeof err->msg + 32];
    snprintf(msg, sizeof msg, "part %d: %s", part + 1, err->msg);
    memcpy(err->msg, msg, sizeof err->msg - 1);
    err->msg[sizeof err->msg - 1] = '\0';
}

void rvs_error_clear(rvs_error *err)
{
    if (err) {
        err->code = RVS_OK;
        err->msg[0] = '\0';
    }
}
