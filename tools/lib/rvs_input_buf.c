/* rvs_input_buf.c - a whole input in memory: mapped when it is a regular file, read otherwise */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rvs_chunks.h"
#include "rvs_tool.h"

/* Read all of path (NULL: stdin) into b. */
rvs_status rvs_input_load(const char *path, rvs_input_buf *b, rvs_error *err)
{
    struct stat sb;
    memset(b, 0, sizeof *b);
    if (!path && rvs_tool_stdin_closed())
        return rvs_fail(err, RVS_ERR_NOFILE, "closed");
    int fd = path ? open(path, O_RDONLY) : 0;
    if (fd < 0 || fstat(fd, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        rvs_status st = rvs_fail(err, RVS_ERR_NOFILE, "%s", strerror(fd < 0 ? errno : EISDIR));
        if (fd > 0)
            close(fd);
        return st;
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        b->len = (size_t)sb.st_size;
        b->data = mmap(NULL, b->len, PROT_READ, MAP_PRIVATE, fd, 0);
        b->mapped = b->data != MAP_FAILED;
        if (!b->mapped) { /* a /sys file, or no address space: read it as a pipe is */
            b->data = NULL;
            b->len = 0;
        }
    }
    size_t cap = 0;
    while (!b->mapped) {
        if (b->len == cap) {
            cap = cap ? 2 * cap : (size_t)1 << 20;
            uint8_t *grown = realloc(b->data, cap);
            if (!grown) {
                free(b->data);
                close(fd);
                return rvs_fail(err, RVS_ERR_NOMEM, "out of memory after %zu bytes", b->len);
            }
            b->data = grown;
        }
        ssize_t n = read(fd, b->data + b->len, cap - b->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(b->data);
            close(fd);
            return rvs_fail(err, b->len ? RVS_ERR_IO : RVS_ERR_NOFILE, "read error: %s", strerror(errno));
        }
        if (n == 0)
            break;
        b->len += (size_t)n;
    }
    if (fd > 0)
        close(fd);
    return RVS_OK;
}

/* Unmap or free b's bytes. */
void rvs_input_free(rvs_input_buf *b)
{
    if (b->mapped)
        munmap(b->data, b->len);
    else
        free(b->data);
    memset(b, 0, sizeof *b);
}
