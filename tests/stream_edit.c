/* stream_edit.c - test helper: spoil a valid stream the way a buggy or hostile writer would
 * (a partition with rows in two parts, a row in none or a row outside the matrix; or param I of
 * every format block set to V) and write it with valid CRCs, so that readers must refuse it on
 * its content: stream_edit overlap|miss|outside|param=I:V IN OUT */
#include <stdlib.h>
#include <string.h>
#include "rvs.h"

/* Set param i of every format block of S to v. */
static int set_param(rvs_stream *S, const char *spec)
{
    char *end;
    const long i = strtol(spec, &end, 10);
    if (*end != ':' || i < 0 || i >= RVS_FMT_MAX_PARAMS || S->nfmt < 1)
        return 0;
    const long long v = strtoll(end + 1, &end, 10);
    if (*end)
        return 0;
    for (int b = 0; b < S->nfmt; b++)
        S->fmt[b].fmt.param[i] = v;
    return 1;
}

int main(int argc, char **argv)
{
    rvs_stream S;
    rvs_error err;
    FILE *in, *out;
    if (argc != 4 || !(in = fopen(argv[2], "rb"))) {
        fprintf(stderr, "usage: stream_edit overlap|miss|outside|param=I:V IN OUT\n");
        return 64;
    }
    if (rvs_stream_read(&S, in, NULL, 0, &err) != RVS_OK) {
        fprintf(stderr, "stream_edit: %s: %s\n", argv[2], err.msg);
        return 65;
    }
    fclose(in);
    if (strncmp(argv[1], "param=", 6) == 0) {
        if (!set_param(&S, argv[1] + 6)) {
            fprintf(stderr, "stream_edit: %s: no format block, or not param=I:V\n", argv[2]);
            return 64;
        }
    } else {
        if (!S.has_partition || S.partition.k < 2 || S.partition.parts[0].nrows < 1 ||
            S.partition.parts[1].nrows < 1) {
            fprintf(stderr, "stream_edit: %s: want a stream with two non-empty parts\n", argv[2]);
            return 65;
        }
        rvs_part *p = S.partition.parts, *last = &p[S.partition.k - 1];
        if (strcmp(argv[1], "overlap") == 0)
            p[1].rows[0] = p[0].rows[0];
        else if (strcmp(argv[1], "miss") == 0)
            last->nrows--;
        else if (strcmp(argv[1], "outside") == 0)
            p[0].rows[0] = S.A.rows;
        else
            return 64;
    }
    if (!(out = fopen(argv[3], "wb")) || rvs_stream_write(out, &S, &err) != RVS_OK || fclose(out) != 0) {
        fprintf(stderr, "stream_edit: %s: %s\n", argv[3], err.msg);
        return 74;
    }
    rvs_stream_free(&S);
    return 0;
}
