/*
 * Building a handle when memory runs out: PCTENC_OUT_OF_MEMORY and a NULL handle, not an
 * abort of the process (a proxy rebuilds its handles on a configuration reload, perhaps
 * under memory pressure).
 *
 * Linked against libpctenc.a with -Wl,--wrap=malloc (and calloc, realloc, posix_memalign,
 * aligned_alloc), so that every allocation of the library goes through the wrappers below,
 * which fail while `failing` is set. Run plain by pctenc-capi/ci.sh. Exit status 0 when
 * every check passes.
 */
#include "pctenc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
int __real_posix_memalign(void **p, size_t align, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);

static int failing = 0;
static int refused = 0;

void *__wrap_malloc(size_t size) {
    if (failing) return refused++, NULL;
    return __real_malloc(size);
}
void *__wrap_calloc(size_t n, size_t size) {
    if (failing) return refused++, NULL;
    return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t size) {
    if (failing) return refused++, NULL;
    return __real_realloc(p, size);
}
int __wrap_posix_memalign(void **p, size_t align, size_t size) {
    if (failing) return refused++, 12; /* ENOMEM */
    return __real_posix_memalign(p, align, size);
}
void *__wrap_aligned_alloc(size_t align, size_t size) {
    if (failing) return refused++, NULL;
    return __real_aligned_alloc(align, size);
}

static int failures = 0;
#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                          \
    } while (0)

static void out_of_memory(pctenc_status st, const pctenc_error *err, const void *handle) {
    CHECK(st == PCTENC_OUT_OF_MEMORY);
    CHECK(err->status == PCTENC_OUT_OF_MEMORY && err->kind == PCTENC_KIND_OUT_OF_MEMORY);
    CHECK(handle == NULL);
}

int main(void) {
    pctenc_error err;
    pctenc_status st;
    pctenc_encoder *enc = (pctenc_encoder *)&err; /* not NULL: the call must set it */
    pctenc_decoder *dec = (pctenc_decoder *)&err;
    uint8_t set[PCTENC_SET_BYTES];
    memset(set, 0xFF, sizeof set);

    /* Handles built while the wrappers refuse every allocation. */
    failing = 1;
    st = pctenc_encoder_new("component", 9, 0, &enc, &err);
    out_of_memory(st, &err, enc);
    enc = (pctenc_encoder *)&err;
    st = pctenc_encoder_new_custom(set, 0, &enc, &err);
    out_of_memory(st, &err, enc);
    st = pctenc_decoder_new(PCTENC_DECODE_UTF8_STRICT, NULL, &dec, &err);
    out_of_memory(st, &err, dec);
    failing = 0;
    CHECK(refused >= 3);

    /* And the streams, from handles built while memory was there. */
    CHECK(pctenc_encoder_new("component", 9, 0, &enc, NULL) == PCTENC_OK && enc != NULL);
    CHECK(pctenc_decoder_new(0, NULL, &dec, NULL) == PCTENC_OK && dec != NULL);
    pctenc_encode_stream *es = (pctenc_encode_stream *)&err;
    pctenc_decode_stream *ds = (pctenc_decode_stream *)&err;
    failing = 1;
    st = pctenc_encode_stream_new(enc, &es, &err);
    out_of_memory(st, &err, es);
    st = pctenc_decode_stream_new(dec, &ds, &err);
    out_of_memory(st, &err, ds);
    failing = 0;

    /* Memory back: everything works, and one-shot calls never allocated anyway. */
    CHECK(pctenc_encode_stream_new(enc, &es, NULL) == PCTENC_OK && es != NULL);
    uint8_t out[64];
    size_t written = 0;
    failing = 1;
    CHECK(pctenc_encode(enc, (const uint8_t *)"a b", 3, out, sizeof out, &written, NULL) == PCTENC_OK && written == 5);
    failing = 0;
    pctenc_encode_stream_free(es);

    /* A stream, once built, allocates nothing: pieces cut inside a %u pair, an escape and a
     * UTF-8 sequence go through while every allocation would fail. */
    pctenc_decoder *udec = NULL;
    CHECK(pctenc_decoder_new(PCTENC_DECODE_LEGACY_U | PCTENC_DECODE_UTF8_STRICT, NULL, &udec, NULL) == PCTENC_OK);
    CHECK(pctenc_decode_stream_new(udec, &ds, NULL) == PCTENC_OK && ds != NULL);
    const char *pieces[] = {"x%uD83D", "%uDE0", "0caf%C", "3%A", "9!"};
    char got[64];
    size_t got_len = 0, consumed = 0;
    int before = refused;
    failing = 1;
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        st = pctenc_decode_stream_update(ds, (const uint8_t *)pieces[i], strlen(pieces[i]), out, sizeof out,
                                                      &consumed, &written, &err);
        CHECK(st == PCTENC_OK && consumed == strlen(pieces[i]));
        memcpy(got + got_len, out, written);
        got_len += written;
    }
    CHECK(pctenc_decode_stream_finish(ds, out, sizeof out, &written, &err) == PCTENC_OK);
    memcpy(got + got_len, out, written);
    got_len += written;
    failing = 0;
    CHECK(refused == before);
    const char want[] = "x\xF0\x9F\x98\x80" "caf\xC3\xA9!";
    CHECK(got_len == sizeof want - 1 && memcmp(got, want, got_len) == 0);
    pctenc_decode_stream_free(ds);
    pctenc_decoder_free(udec);
    pctenc_encoder_free(enc);
    pctenc_decoder_free(dec);

    printf("oom_handles.c: %d allocations refused, %s\n", refused, failures ? "FAILED" : "ok");
    return failures == 0 ? 0 : 1;
}
