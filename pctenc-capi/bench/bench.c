/*
 * The C half of pctenc-capi/bench.sh: times the C API on the inputs examples/bench_rust.rs
 * wrote into DIR, the way it times the Rust API (batches of calls, the median batch,
 * nanoseconds per call). Prints "c <workload> <input bytes> <ns per call> <fastest batch>".
 */
#define _POSIX_C_SOURCE 199309L
#include "pctenc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Allocated as examples/bench_rust.rs allocates its buffers, so that both see the same
 * alignments. */
static uint8_t *out;
static const size_t out_cap = 3 * 65536 + 64;
static volatile size_t sink;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double best_batch;

static double time_calls(const pctenc_encoder *enc, const pctenc_decoder *dec, const uint8_t *in, size_t len,
                         long iters) {
    double batches[31];
    size_t acc = 0;
    for (int b = -1; b < 31; b++) { /* batch -1 warms up */
        double start = now_ns();
        for (long i = 0; i < iters; i++) {
            size_t n = 0;
            if (enc)
                pctenc_encode(enc, in, len, out, out_cap, &n, NULL);
            else
                pctenc_decode(dec, in, len, out, out_cap, &n, NULL);
            acc += n;
        }
        if (b >= 0) batches[b] = (now_ns() - start) / (double)iters;
    }
    sink = acc;
    qsort(batches, 31, sizeof *batches, cmp);
    best_batch = batches[0];
    return batches[15];
}

static uint8_t *slurp(const char *dir, const char *name, size_t *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    static uint8_t tmp[1 << 20];
    *len = fread(tmp, 1, sizeof tmp, f);
    fclose(f);
    uint8_t *buf = malloc(*len ? *len : 1);
    memcpy(buf, tmp, *len);
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench DIR\n");
        return 2;
    }
    pctenc_encoder *enc;
    pctenc_decoder *dec;
    out = calloc(out_cap, 1);
    if (pctenc_encoder_new("component", 9, 0, &enc, NULL) != PCTENC_OK || pctenc_decoder_new(0, NULL, &dec, NULL) != PCTENC_OK)
        return 1;
    const struct {
        const char *name;
        long iters;
    } work[] = {{"encode-64k", 400}, {"decode-64k", 400}, {"encode-32", 400000}, {"decode-32", 400000}};
    for (size_t w = 0; w < 4; w++) {
        size_t len;
        uint8_t *in = slurp(argv[1], work[w].name, &len);
        int encoding = work[w].name[0] == 'e';
        double ns = time_calls(encoding ? enc : NULL, encoding ? NULL : dec, in, len, work[w].iters);
        printf("c\t%s\t%zu\t%.2f\t%.2f\n", work[w].name, len, ns, best_batch);
        free(in);
    }
    pctenc_encoder_free(enc);
    pctenc_decoder_free(dec);
    return 0;
}
