/* stream_edit.c - test helper: spoil the partition of a valid stream the way a buggy or hostile
 * writer would (rows in two parts, a row in none, a row outside the matrix) and write it with
 * valid CRCs, so that readers must refuse it on its content: stream_edit MODE IN OUT */
#include <string.h>
#include "rvs.h"

int main(int argc, char **argv)
{
    rvs_stream S;
    rvs_error err;
    FILE *in, *out;
    if (argc != 4 || !(in = fopen(argv[2], "rb"))) {
        fprintf(stderr, "usage: stream_edit overlap|miss|outside IN OUT\n");
        return 64;
    }
    if (rvs_stream_read(&S, in, NULL, 0, &err) != RVS_OK || !S.has_partition || S.partition.k < 2 ||
        S.partition.parts[0].nrows < 1 || S.partition.parts[1].nrows < 1) {
        fprintf(stderr, "stream_edit: %s: want a valid stream with two non-empty parts (%s)\n", argv[2], err.msg);
        return 65;
    }
    fclose(in);
    rvs_part *p = S.partition.parts, *last = &p[S.partition.k - 1];
    if (strcmp(argv[1], "overlap") == 0)
        p[1].rows[0] = p[0].rows[0];
    else if (strcmp(argv[1], "miss") == 0)
        last->nrows--;
    else if (strcmp(argv[1], "outside") == 0)
        p[0].rows[0] = S.A.rows;
    else
        return 64;
    if (!(out = fopen(argv[3], "wb")) || rvs_stream_write(out, &S, &err) != RVS_OK || fclose(out) != 0) {
        fprintf(stderr, "stream_edit: %s: %s\n", argv[3], err.msg);
        return 74;
    }
    rvs_stream_free(&S);
    return 0;
}
