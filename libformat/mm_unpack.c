/* mm_unpack.c - compressed text input decoded on a thread of its own while the text already
 * decoded is parsed: the two overlap, so a compressed read costs about the slower of the two
 * instead of their sum */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mm_codec.h"
#include "mm_private.h"

#define UNPACK_SLOT ((size_t)8 << 20) /* decoded text handed over at a time */
#define UNPACK_READ ((size_t)4 << 20) /* compressed bytes read from a stream at a time */
/* the buffers start this small and double as they fill: a small file costs no megabytes */
#define UNPACK_FIRST ((size_t)64 << 10)

/* A piece of decoded text on its way from the decoder to the parser. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
    uint64_t in_bytes; /* compressed bytes taken in once this piece was made */
    int full;          /* 1: the decoder has filled it, the parser not yet taken it */
    int last;          /* 1: nothing follows (end of input, or st says why not) */
    rvs_status st;
    rvs_error err;
} unpack_slot;

struct mm_unpack {
    mm_codec *codec;
    const unsigned char *mem; /* compressed bytes in memory (a mapping, or those read already) */
    size_t mem_n;
    unsigned char *own; /* mem when it is our copy */
    FILE *f;            /* then this, to its end (may be NULL) */
    unsigned char *inbuf;
    size_t incap; /* inbuf's size */
    int infilled; /* the last read filled inbuf */
    unpack_slot slot[2];
    int next;  /* the slot the parser takes next */
    int taken; /* the parser holds slot[next ^ 1] until its next call */
    int stop;  /* the parser gave up: the decoder stops */
    int started;
    int done;           /* the last piece was handed over */
    rvs_status done_st; /* why the decoder ended (RVS_OK: the input did) */
    rvs_error done_err;
    uint64_t done_in;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* p's buffer of *cap bytes doubled, up to most; 0 when it cannot grow (at most, or no memory). */
static int grow(unsigned char **p, size_t *cap, size_t most)
{
    size_t to = *cap * 2 < most ? *cap * 2 : most;
    unsigned char *q = to > *cap ? realloc(*p, to) : NULL;
    if (!q)
        return 0;
    *p = q;
    *cap = to;
    return 1;
}

/* Decode into slot s until it is full or the input ends or fails; *in, *n: the compressed
 * bytes at hand (refilled from f when spent). */
static void fill(mm_unpack *U, unpack_slot *s, const unsigned char **in, size_t *n, uint64_t *taken_in)
{
    s->len = 0;
    s->st = RVS_OK;
    for (;;) {
        if (s->len == s->cap && !grow(&s->data, &s->cap, UNPACK_SLOT)) {
            if (s->cap < UNPACK_SLOT) {
                s->st = rvs_fail(&s->err, RVS_ERR_NOMEM, "out of memory for the decoder");
                s->last = 1;
            }
            return;
        }
        if (*n == 0 && U->f && !feof(U->f)) {
            if (U->infilled && !grow(&U->inbuf, &U->incap, UNPACK_READ) && U->incap < UNPACK_READ) {
                s->st = rvs_fail(&s->err, RVS_ERR_NOMEM, "out of memory for the decoder");
                s->last = 1;
                return;
            }
            *n = fread(U->inbuf, 1, U->incap, U->f);
            *in = U->inbuf;
            U->infilled = *n == U->incap;
            if (*n == 0 && ferror(U->f)) {
                s->st = rvs_fail(&s->err, RVS_ERR_IO, "read failed: %s", strerror(errno));
                s->last = 1;
                return;
            }
        }
        size_t had = *n, wrote;
        int ended;
        s->st = mm_codec_step(U->codec, in, n, s->data + s->len, s->cap - s->len, &wrote, &ended, &s->err);
        s->len += wrote;
        *taken_in += had - *n;
        if (s->st != RVS_OK) {
            s->last = 1;
            return;
        }
        int more_input = *n > 0 || (U->f && !feof(U->f));
        if (!more_input && wrote == 0 && !ended) { /* all in, all out */
            if (mm_codec_midstream(U->codec))
                s->st = rvs_fail(&s->err, RVS_ERR_TRUNCATED, "%s: compressed data ends early",
                                 mm_codec_name(mm_codec_kind_of(U->codec)));
            s->last = 1;
            return;
        }
    }
}

/* The decoder: fill the slots in turn until the input ends, fails, or the parser stops. */
static void *decoder(void *arg)
{
    mm_unpack *U = arg;
    const unsigned char *in = U->mem;
    size_t n = U->mem_n;
    uint64_t taken_in = 0;
    for (int k = 0;; k ^= 1) {
        unpack_slot *s = &U->slot[k];
        pthread_mutex_lock(&U->mu);
        while (s->full && !U->stop)
            pthread_cond_wait(&U->cv, &U->mu);
        int stop = U->stop;
        pthread_mutex_unlock(&U->mu);
        if (stop)
            break;
        fill(U, s, &in, &n, &taken_in);
        s->in_bytes = taken_in;
        pthread_mutex_lock(&U->mu);
        s->full = 1;
        pthread_cond_broadcast(&U->cv);
        pthread_mutex_unlock(&U->mu);
        if (s->last)
            break;
    }
    return NULL;
}

rvs_status mm_unpack_start(mm_unpack **out, const unsigned char *in, size_t n, int copy, FILE *f, rvs_error *err)
{
    mm_unpack *U = calloc(1, sizeof *U);
    rvs_status st = RVS_OK;
    *out = NULL;
    if (!U)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the decoder");
    pthread_mutex_init(&U->mu, NULL);
    pthread_cond_init(&U->cv, NULL);
    if ((st = mm_codec_open(&U->codec, mm_codec_sniff(in, n), err)) != RVS_OK)
        goto fail;
    U->mem = in;
    U->mem_n = n;
    U->f = f;
    U->incap = U->slot[0].cap = U->slot[1].cap = UNPACK_FIRST;
    if ((copy && !(U->own = malloc(n ? n : 1))) || (f && !(U->inbuf = malloc(UNPACK_FIRST))) ||
        !(U->slot[0].data = malloc(UNPACK_FIRST)) || !(U->slot[1].data = malloc(UNPACK_FIRST))) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the decoder");
        goto fail;
    }
    if (copy) {
        memcpy(U->own, in, n);
        U->mem = U->own;
    }
    if (pthread_create(&U->thread, NULL, decoder, U) != 0) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "cannot start the decoder thread");
        goto fail;
    }
    U->started = 1;
    *out = U;
    return RVS_OK;
fail:
    mm_unpack_free(U);
    return st;
}

rvs_status mm_unpack_next(mm_unpack *U, const unsigned char **p, size_t *len, uint64_t *in_bytes, rvs_error *err)
{
    if (U->done) { /* after the last piece: its error, if it had one, else the end */
        *p = NULL;
        *len = 0;
        *in_bytes = U->done_in;
        if (U->done_st != RVS_OK && err)
            *err = U->done_err;
        return U->done_st;
    }
    pthread_mutex_lock(&U->mu);
    if (U->taken) { /* the piece handed over last time is spent: its slot may be filled again */
        U->slot[U->next ^ 1].full = 0;
        U->taken = 0;
        pthread_cond_broadcast(&U->cv);
    }
    unpack_slot *s = &U->slot[U->next];
    while (!s->full)
        pthread_cond_wait(&U->cv, &U->mu);
    pthread_mutex_unlock(&U->mu);
    *p = s->data;
    *len = s->len;
    *in_bytes = s->in_bytes;
    if (s->last) { /* the decoder has ended: text first, then (next call) why it ended */
        U->done = 1;
        U->done_st = s->st;
        U->done_err = s->err;
        U->done_in = s->in_bytes;
        if (s->len == 0)
            return mm_unpack_next(U, p, len, in_bytes, err);
        return RVS_OK;
    }
    U->next ^= 1;
    U->taken = 1;
    return RVS_OK;
}

void mm_unpack_free(mm_unpack *U)
{
    if (!U)
        return;
    if (U->started) {
        pthread_mutex_lock(&U->mu);
        U->stop = 1;
        pthread_cond_broadcast(&U->cv);
        pthread_mutex_unlock(&U->mu);
        pthread_join(U->thread, NULL);
    }
    mm_codec_free(U->codec);
    pthread_mutex_destroy(&U->mu);
    pthread_cond_destroy(&U->cv);
    free(U->slot[0].data);
    free(U->slot[1].data);
    free(U->inbuf);
    free(U->own);
    free(U);
}
