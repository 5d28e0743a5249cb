/* rvsgen.c - benchmark inputs generated where they run: 3-D stencils, R-MAT, block replicas */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rvs_tool.h"

static const char usage[] =
    "Usage: rvsgen [OPTION]... stencil7 N\n"
    "       rvsgen [OPTION]... stencil27 N\n"
    "       rvsgen [OPTION]... rmat SCALE EDGEFACTOR [A B C]\n"
    "       rvsgen [OPTION]... replica FILE MIN_NNZ\n"
    "Generate a sparse matrix and write it as an RVS stream (f64), or as Matrix Market when\n"
    "the output file name ends in .mtx or .mtx.gz (any case; .gz compressed). On a terminal\n"
    "without -o, print its size instead.\n"
    "\n"
    "  stencil7 N    7-point Laplacian on an N x N x N grid: N^3 rows, diagonal 6, neighbours -1\n"
    "  stencil27 N   27-point stencil on an N x N x N grid: diagonal 26, neighbours -1\n"
    "  rmat SCALE EDGEFACTOR [A B C]\n"
    "                R-MAT graph of 2^SCALE vertices and EDGEFACTOR * 2^SCALE edges drawn with\n"
    "                quadrant probabilities A B C and D = 1 - A - B - C [0.57 0.19 0.19];\n"
    "                duplicate edges are summed (value = multiplicity), self-loops kept,\n"
    "                vertices not permuted\n"
    "  replica FILE MIN_NNZ\n"
    "                block-diagonal copies of the matrix in FILE, each with its rows and its\n"
    "                columns randomly permuted, as many copies as reach MIN_NNZ non-zeros\n"
    "                (at least one): the row-length distribution is FILE's\n"
    "\n"
    "  -s, --seed S         random seed for rmat and replica [1]\n"
    "  -o, --output FILE    write to FILE (FILE.mtx, FILE.mtx.gz: Matrix Market) [stdout]\n"
    "      --digits N       significant digits of real values in Matrix Market output, 1..17\n"
    "                       [the fewest that read back exactly]\n"
    "      --threads N      threads that generate [OMP_NUM_THREADS or all cores]\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Exit status: 0 success, 64 usage, 65 bad input data, 66 missing input, 70 out of memory,\n"
    "74 I/O error.\n"
    "See rvsgen(1), rvs(5), rvskit(7).\n";

/* splitmix64: a fast generator whose every state gives an independent stream. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Generator state for stream k of a seed (independent of the thread that runs it). */
static uint64_t stream_state(uint64_t seed, uint64_t k)
{
    uint64_t s = seed * 0xd1342543de82ef95ULL + k;
    splitmix64(&s);
    return s;
}

/* A = the 3-D stencil on an n^3 grid whose neighbours are all offsets in [-1,1]^3 with at most
 * maxdist non-zero components (1: 7-point, 3: 27-point); diagonal 6 or 26, neighbours -1. */
static rvs_status stencil(rvs_csr *A, int64_t n, int maxdist, rvs_error *err)
{
    int off[27][3], noff = 0;
    for (int dz = -1; dz <= 1; dz++) /* lexicographic (dz, dy, dx): ascending columns */
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                if ((dz != 0) + (dy != 0) + (dx != 0) <= maxdist) {
                    off[noff][0] = dz;
                    off[noff][1] = dy;
                    off[noff][2] = dx;
                    noff++;
                }
    int64_t line = maxdist == 1 ? 0 : 3 * n - 2;
    int64_t rows = n * n * n;
    int64_t nnz = maxdist == 1 ? rows + 6 * (n - 1) * n * n : line * line * line;
    rvs_status st = rvs_csr_alloc(A, rows, rows, nnz, RVS_F64, err);
    if (st != RVS_OK)
        return st;
    double *val = A->values;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        int64_t x = r % n, y = r / n % n, z = r / (n * n), len = 0;
        for (int k = 0; k < noff; k++)
            len += x + off[k][2] >= 0 && x + off[k][2] < n && y + off[k][1] >= 0 && y + off[k][1] < n &&
                   z + off[k][0] >= 0 && z + off[k][0] < n;
        A->rowptr[r + 1] = len;
    }
    for (int64_t r = 0; r < rows; r++)
        A->rowptr[r + 1] += A->rowptr[r];
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        int64_t x = r % n, y = r / n % n, z = r / (n * n), p = A->rowptr[r];
        double diag = (double)(noff - 1);
        for (int k = 0; k < noff; k++) {
            int64_t xx = x + off[k][2], yy = y + off[k][1], zz = z + off[k][0];
            if (xx < 0 || xx >= n || yy < 0 || yy >= n || zz < 0 || zz >= n)
                continue;
            A->colind[p] = (int32_t)((zz * n + yy) * n + xx);
            val[p++] = (xx == x && yy == y && zz == z) ? diag : -1.0;
        }
    }
    return RVS_OK;
}

/* A = R-MAT of 2^scale vertices and ef * 2^scale edges, quadrant probabilities a, b, c. */
static rvs_status rmat(rvs_csr *A, int scale, int64_t ef, double a, double b, double c, uint64_t seed,
                       rvs_error *err)
{
    const int64_t chunk = 1 << 16;
    int64_t n = (int64_t)1 << scale, m = ef * n;
    int64_t *ri = malloc((size_t)(m ? m : 1) * sizeof *ri), *ci = malloc((size_t)(m ? m : 1) * sizeof *ci);
    rvs_status st = RVS_OK;
    if (!ri || !ci) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "rmat: out of memory for %lld edges", (long long)m);
        goto done;
    }
    /* 32 random bits per level, two levels per draw: thresholds scaled to 2^32 */
    const double two32 = 4294967296.0;
    uint64_t ta = (uint64_t)(a * two32), tab = (uint64_t)((a + b) * two32), tabc = (uint64_t)((a + b + c) * two32);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t k = 0; k < (m + chunk - 1) / chunk; k++) {
        uint64_t s = stream_state(seed, (uint64_t)k);
        for (int64_t e = k * chunk; e < m && e < (k + 1) * chunk; e++) {
            int64_t i = 0, j = 0;
            uint64_t bits = 0;
            for (int l = scale - 1; l >= 0; l--) {
                if ((scale - 1 - l) % 2 == 0)
                    bits = splitmix64(&s);
                uint64_t u = bits & 0xffffffffULL;
                bits >>= 32;
                if (u >= tabc) {
                    i |= (int64_t)1 << l;
                    j |= (int64_t)1 << l;
                } else if (u >= tab)
                    i |= (int64_t)1 << l;
                else if (u >= ta)
                    j |= (int64_t)1 << l;
            }
            ri[e] = i;
            ci[e] = j;
        }
    }
    st = rvs_csr_from_coo(A, n, n, m, ri, ci, NULL, RVS_F64, err);
done:
    free(ri);
    free(ci);
    return st;
}

/* perm = a random permutation of 0..n-1 (Fisher-Yates). */
static void random_permutation(int64_t *perm, int64_t n, uint64_t *s)
{
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(splitmix64(s) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Triplets of copy c of B, rows and columns permuted, at offset c * nnz(B). 0 on no memory. */
static int replica_copy(int64_t *ri, int64_t *ci, double *v, const rvs_csr *B, int64_t c, uint64_t seed)
{
    uint64_t s = stream_state(seed, (uint64_t)c);
    int64_t *p = malloc((size_t)(B->rows ? B->rows : 1) * sizeof *p);
    int64_t *q = malloc((size_t)(B->cols ? B->cols : 1) * sizeof *q);
    int ok = p && q;
    if (ok) {
        random_permutation(p, B->rows, &s);
        random_permutation(q, B->cols, &s);
        for (int64_t i = 0, e = c * B->nnz; i < B->rows; i++)
            for (int64_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++, e++) {
                ri[e] = c * B->rows + p[i];
                ci[e] = c * B->cols + q[rvs_csr_col(B, k)];
                v[e] = rvs_csr_value(B, k);
            }
    }
    free(p);
    free(q);
    return ok;
}

/* A = enough randomly permuted copies of B on the diagonal to hold min_nnz entries. */
static rvs_status replica(rvs_csr *A, const rvs_csr *B, int64_t min_nnz, uint64_t seed, int64_t *ncopies,
                          rvs_error *err)
{
    int64_t copies = B->nnz ? (min_nnz + B->nnz - 1) / B->nnz : 1;
    copies = copies < 1 ? 1 : copies;
    *ncopies = copies;
    if (B->nnz == 0)
        return rvs_fail(err, RVS_ERR_EMPTY, "replica: the matrix has no entries to copy");
    if (B->rows > INT64_MAX / copies || B->cols > RVS_COL32_MAX / copies || B->nnz > INT64_MAX / 24 / copies)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "replica: %lld copies of %lld x %lld exceed 32-bit columns",
                        (long long)copies, (long long)B->rows, (long long)B->cols);
    int64_t m = copies * B->nnz;
    int64_t *ri = malloc((size_t)m * sizeof *ri), *ci = malloc((size_t)m * sizeof *ci);
    double *v = malloc((size_t)m * sizeof *v);
    int ok = ri && ci && v;
    rvs_status st = RVS_OK;
    int64_t todo = ok ? copies : 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(&& : ok)
    for (int64_t c = 0; c < todo; c++)
        ok = replica_copy(ri, ci, v, B, c, seed) && ok;
    if (!ok)
        st = rvs_fail(err, RVS_ERR_NOMEM, "replica: out of memory for %lld entries", (long long)m);
    else
        st = rvs_csr_from_coo(A, copies * B->rows, copies * B->cols, m, ri, ci, v, RVS_F64, err);
    free(ri);
    free(ci);
    free(v);
    return st;
}

/* Parse a probability argument in [0, 1]. */
static double parse_prob(const char *what, const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v <= 1))
        rvs_tool_usage("rmat: %s '%s' is not a probability in 0..1", what, s);
    return v;
}

/* Write the generated stream (or Matrix Market, by the output rule) to out, or a summary on a
 * terminal. */
static void write_output(const char *out, rvs_stream *S, int64_t copies)
{
    rvs_error err;
    if (rvs_tool_want_stream(out) && rvs_tool_write_stream(out, S, &err) != RVS_OK)
        rvs_tool_die_err(out ? out : "stdout", &err);
    if (!out && !rvs_tool_want_stream(NULL)) {
        printf("matrix  %s\nrows    %lld\ncolumns %lld\nnnz     %lld\n", S->name, (long long)S->A.rows,
               (long long)S->A.cols, (long long)S->A.nnz);
        if (copies > 0)
            printf("copies  %lld\n", (long long)copies);
    }
}

/* Record the field a Matrix Market output should keep: R-MAT values count edges (integer);
 * a replica keeps its source's field. */
static void set_field(rvs_stream *S, const char *field)
{
    rvs_mm_info info = {.format = "coordinate", .symmetry = "general"};
    rvs_error err;
    snprintf(info.field, sizeof info.field, "%s", field);
    if (rvs_stream_set_mm_source(S, &info, &err) != RVS_OK)
        rvs_tool_die_err(NULL, &err);
}

int main(int argc, char **argv)
{
    enum { OPT_DIGITS = 256, OPT_THREADS };
    static const struct option opts[] = {{"seed", required_argument, 0, 's'},
                                         {"output", required_argument, 0, 'o'},
                                         {"digits", required_argument, 0, OPT_DIGITS},
                                         {"threads", required_argument, 0, OPT_THREADS},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    uint64_t seed = 1;
    int c;
    int64_t copies = 0;
    rvs_stream S;
    rvs_error err;
    rvs_tool_init("rvsgen");
    while ((c = rvs_tool_getopt(argc, argv, "s:o:hV", opts)) != -1) {
        switch (c) {
        case 's': seed = (uint64_t)rvs_tool_parse_int("--seed", optarg, 0, INT64_MAX); break;
        case 'o': out = optarg; break;
        case OPT_DIGITS: rvs_tool_set_digits((int)rvs_tool_parse_int("--digits", optarg, 1, 17)); break;
        case OPT_THREADS: rvs_tool_set_threads(optarg); break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': rvs_tool_version();
        }
    }
    int nargs = argc - optind;
    char **arg = argv + optind;
    memset(&S, 0, sizeof S);
    rvs_status st;
    if (nargs < 1)
        rvs_tool_usage("which matrix? stencil7, stencil27, rmat or replica");
    if (strcmp(arg[0], "stencil7") == 0 || strcmp(arg[0], "stencil27") == 0) {
        if (nargs != 2)
            rvs_tool_usage("%s takes one argument N", arg[0]);
        int64_t n = rvs_tool_parse_int("N", arg[1], 1, 1290); /* N^3 rows fit 32-bit columns */
        snprintf(S.name, sizeof S.name, "%s-%lld", arg[0], (long long)n);
        st = stencil(&S.A, n, arg[0][7] == '7' ? 1 : 3, &err);
    } else if (strcmp(arg[0], "rmat") == 0) {
        if (nargs != 3 && nargs != 6)
            rvs_tool_usage("rmat takes SCALE EDGEFACTOR [A B C]");
        int scale = (int)rvs_tool_parse_int("SCALE", arg[1], 0, 30);
        int64_t ef = rvs_tool_parse_int("EDGEFACTOR", arg[2], 1, 1 << 16);
        double a = 0.57, b = 0.19, cc = 0.19;
        if (nargs == 6) {
            a = parse_prob("A", arg[3]);
            b = parse_prob("B", arg[4]);
            cc = parse_prob("C", arg[5]);
            if (a + b + cc > 1 + 1e-12)
                rvs_tool_usage("rmat: A + B + C = %g exceeds 1", a + b + cc);
        }
        snprintf(S.name, sizeof S.name, "rmat-%d-%lld", scale, (long long)ef);
        st = rmat(&S.A, scale, ef, a, b, cc, seed, &err);
        set_field(&S, "integer");
    } else if (strcmp(arg[0], "replica") == 0) {
        if (nargs != 3)
            rvs_tool_usage("replica takes FILE MIN_NNZ");
        int64_t min_nnz = rvs_tool_parse_int("MIN_NNZ", arg[2], 1, INT64_MAX / 2);
        rvs_stream B;
        if (rvs_tool_read_input(arg[1], &B, NULL, &err) != RVS_OK)
            rvs_tool_die_err(rvs_tool_input_name(arg[1]), &err);
        st = replica(&S.A, &B.A, min_nnz, seed, &copies, &err);
        snprintf(S.name, sizeof S.name, "%.200s-x%lld", B.name[0] ? B.name : "replica", (long long)copies);
        rvs_mm_info src;
        if (rvs_stream_mm_source(&B, &src))
            set_field(&S, src.field);
        rvs_stream_free(&B);
        if (st != RVS_OK)
            rvs_tool_die_err(arg[1], &err);
    } else {
        rvs_tool_usage("unknown matrix '%s' (stencil7, stencil27, rmat or replica)", arg[0]);
    }
    if (st != RVS_OK)
        rvs_tool_die_err(arg[0], &err);
    write_output(out, &S, copies);
    rvs_stream_free(&S);
    return 0;
}
