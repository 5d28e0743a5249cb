/* stream_source.c - the mmhd chunk: the banner of the Matrix Market file a stream came from */
#include <stdlib.h>
#include <string.h>
#include "rvs_source.h"

/* 1 when word w (n bytes) is one of the NULL-terminated list. */
static int one_of(const char *w, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && memcmp(*list, w, n) == 0)
            return 1;
    return 0;
}

/* Parse "matrix FORMAT FIELD SYMMETRY". */
int rvs_mm_source_parse(const void *payload, uint64_t len, rvs_mm_info *info)
{
    static const char *const object[] = {"matrix", NULL};
    static const char *const format[] = {"coordinate", "array", NULL};
    static const char *const field[] = {"real", "integer", "pattern", "complex", "unsigned-integer", NULL};
    static const char *const symmetry[] = {"general", "symmetric", "skew-symmetric", "hermitian", NULL};
    static const char *const *const words[] = {object, format, field, symmetry};
    char text[RVS_MM_SOURCE_MAX + 1];
    const char *w[4];
    size_t wn[4];
    if (len == 0 || len > RVS_MM_SOURCE_MAX)
        return 0;
    memcpy(text, payload, (size_t)len);
    text[len] = '\0';
    const char *p = text;
    for (int i = 0; i < 4; i++) {
        w[i] = p;
        wn[i] = strcspn(p, " ");
        if (!one_of(w[i], wn[i], words[i]) || (i < 3 ? p[wn[i]] != ' ' : p[wn[i]] != '\0'))
            return 0;
        p += wn[i] + 1;
    }
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "%.*s", (int)wn[1], w[1]);
    snprintf(info->field, sizeof info->field, "%.*s", (int)wn[2], w[2]);
    snprintf(info->symmetry, sizeof info->symmetry, "%.*s", (int)wn[3], w[3]);
    return 1;
}

/* The mmhd chunk of S, if any. */
int rvs_stream_mm_source(const rvs_stream *S, rvs_mm_info *info)
{
    for (int i = 0; i < S->nextra; i++)
        if (memcmp(S->extra[i].type, RVS_CHUNK_MM_SOURCE, 4) == 0)
            return rvs_mm_source_parse(S->extra[i].data, S->extra[i].len, info);
    return 0;
}

/* Add or replace S's mmhd chunk. */
rvs_status rvs_stream_set_mm_source(rvs_stream *S, const rvs_mm_info *info, rvs_error *err)
{
    char text[RVS_MM_SOURCE_MAX + 1];
    rvs_mm_info check;
    int n = snprintf(text, sizeof text, "matrix %s %s %s", info->format, info->field, info->symmetry);
    if (n <= 0 || n > RVS_MM_SOURCE_MAX || !rvs_mm_source_parse(text, (uint64_t)n, &check))
        return rvs_fail(err, RVS_ERR_ARG, "not a Matrix Market banner: '%s'", text);
    uint8_t *data = malloc((size_t)n);
    if (!data)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    memcpy(data, text, (size_t)n);
    int i = 0;
    while (i < S->nextra && memcmp(S->extra[i].type, RVS_CHUNK_MM_SOURCE, 4) != 0)
        i++;
    if (i == S->nextra) {
        rvs_raw_chunk *grown = realloc(S->extra, ((size_t)S->nextra + 1) * sizeof *grown);
        if (!grown) {
            free(data);
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        }
        S->extra = grown;
        S->nextra++;
        memcpy(grown[i].type, RVS_CHUNK_MM_SOURCE, 4);
    } else {
        free(S->extra[i].data);
    }
    S->extra[i].data = data;
    S->extra[i].len = (uint64_t)n;
    return RVS_OK;
}
