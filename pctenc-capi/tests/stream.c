/*
 * The C tests of the streams (pctenc_encode_stream_*, pctenc_decode_stream_*): inputs cut at
 * every point into two pieces, and into three at random points, fed with output buffers of
 * every size from one byte's worth up, give exactly what the one-shot functions give for the
 * whole input, errors included (same kind, same offset from the stream's start). Every
 * output buffer is a heap block of exactly the capacity given, so that ASan and Valgrind see
 * a write past it. Every encoder flag combination with several sets; every decoder flag
 * combination. NULL arguments, zero lengths and short buffers.
 *
 * Built by pctenc-capi/ci.sh like tests/capi.c: plain, under ASan and UBSan (the C side, then
 * the Rust side too) and under Valgrind. Exit status 0 when every check passes.
 */
#include "pctenc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long failures = 0;
static long checks = 0;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        checks++;                                                                            \
        if (!(cond)) {                                                                       \
            if (failures++ < 20) fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                                    \
    } while (0)

/* What a run gives: the output, or the error. */
struct result {
    pctenc_status status;
    pctenc_error_kind kind;
    size_t offset;
    uint8_t *bytes;
    size_t len;
};

static void append(struct result *r, const uint8_t *p, size_t n) {
    if (n == 0) return;
    r->bytes = realloc(r->bytes, r->len + n);
    if (r->bytes == NULL) abort();
    memcpy(r->bytes + r->len, p, n);
    r->len += n;
}

static int same_result(const struct result *a, const struct result *b) {
    if (a->status != b->status) return 0;
    if (a->status != PCTENC_OK) return a->kind == b->kind && a->offset == b->offset;
    return a->len == b->len && (a->len == 0 || memcmp(a->bytes, b->bytes, a->len) == 0);
}

/* One direction's functions, so that one driver runs both. */
struct api {
    size_t (*max_output)(const void *, size_t);
    pctenc_status (*update)(void *, const uint8_t *, size_t, uint8_t *, size_t, size_t *, size_t *, pctenc_error *);
    pctenc_status (*finish)(void *, uint8_t *, size_t, size_t *, pctenc_error *);
};

static size_t enc_max(const void *s, size_t n) { return pctenc_encode_stream_max_output(s, n); }
static pctenc_status enc_update(void *s, const uint8_t *src, size_t len, uint8_t *dst, size_t cap, size_t *c,
                                size_t *w, pctenc_error *e) {
    return pctenc_encode_stream_update(s, src, len, dst, cap, c, w, e);
}
static pctenc_status enc_finish(void *s, uint8_t *dst, size_t cap, size_t *w, pctenc_error *e) {
    return pctenc_encode_stream_finish(s, dst, cap, w, e);
}
static size_t dec_max(const void *s, size_t n) { return pctenc_decode_stream_max_output(s, n); }
static pctenc_status dec_update(void *s, const uint8_t *src, size_t len, uint8_t *dst, size_t cap, size_t *c,
                                size_t *w, pctenc_error *e) {
    return pctenc_decode_stream_update(s, src, len, dst, cap, c, w, e);
}
static pctenc_status dec_finish(void *s, uint8_t *dst, size_t cap, size_t *w, pctenc_error *e) {
    return pctenc_decode_stream_finish(s, dst, cap, w, e);
}
static const struct api ENCODE = {enc_max, enc_update, enc_finish};
static const struct api DECODE = {dec_max, dec_update, dec_finish};

/* Feeds the pieces src[cuts[i-1]..cuts[i]) with output blocks of `cap` bytes (grown to one
 * byte's worth when too small), then finishes into a block of exactly the room asked. */
static struct result drive(const struct api *api, void *s, const uint8_t *src, size_t len, const size_t *cuts,
                           size_t ncuts, size_t cap) {
    struct result r = {PCTENC_OK, PCTENC_KIND_NONE, 0, NULL, 0};
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        while (at < end) {
            size_t room = cap, bound = api->max_output(s, end - at), one = api->max_output(s, 1);
            if (room < one) room = one;
            uint8_t *dst = malloc(room ? room : 1);
            size_t consumed = 99, written = 99;
            pctenc_error err;
            pctenc_status st = api->update(s, src + at, end - at, dst, room, &consumed, &written, &err);
            CHECK(err.status == st);
            if (st != PCTENC_OK) {
                CHECK(st == PCTENC_INVALID_INPUT && consumed == 0 && written == 0);
                r.status = st, r.kind = err.kind, r.offset = err.offset;
                free(dst);
                return r;
            }
            CHECK(written <= room && consumed > 0 && consumed <= end - at);
            if (room >= bound) CHECK(consumed == end - at);
            append(&r, dst, written);
            at += consumed;
            free(dst);
        }
    }
    size_t need = api->max_output(s, 0), written = 99;
    pctenc_error err;
    if (need > 0) {
        uint8_t *short_dst = malloc(need - 1 ? need - 1 : 1);
        CHECK(api->finish(s, short_dst, need - 1, &written, &err) == PCTENC_BUFFER_TOO_SMALL && written == need);
        free(short_dst);
    }
    uint8_t *dst = malloc(need ? need : 1);
    pctenc_status st = api->finish(s, dst, need, &written, &err);
    if (st == PCTENC_OK) {
        CHECK(written <= need);
        append(&r, dst, written);
        CHECK(api->max_output(s, 0) == 0);
    } else {
        CHECK(st == PCTENC_INVALID_INPUT);
        r.status = st, r.kind = err.kind, r.offset = err.offset;
    }
    free(dst);
    return r;
}

static struct result encode_whole(const pctenc_encoder *enc, const uint8_t *src, size_t len) {
    struct result r = {PCTENC_OK, PCTENC_KIND_NONE, 0, NULL, 0};
    size_t size = pctenc_encoded_len(enc, src, len), written = 0;
    uint8_t *dst = malloc(size ? size : 1);
    CHECK(pctenc_encode(enc, src, len, dst, size, &written, NULL) == PCTENC_OK && written == size);
    append(&r, dst, written);
    free(dst);
    return r;
}

static struct result decode_whole(const pctenc_decoder *dec, const uint8_t *src, size_t len) {
    struct result r = {PCTENC_OK, PCTENC_KIND_NONE, 0, NULL, 0};
    size_t size = pctenc_decoded_len_max(dec, len), written = 0;
    uint8_t *dst = malloc(size ? size : 1);
    pctenc_error err;
    pctenc_status st = pctenc_decode(dec, src, len, dst, size, &written, &err);
    if (st == PCTENC_OK) {
        append(&r, dst, written);
    } else {
        r.status = st, r.kind = err.kind, r.offset = err.offset;
    }
    free(dst);
    return r;
}

/* xorshift64*: inputs from a fixed seed, the same on every run. */
static uint64_t state = 0x9E3779B97F4A7C15u;
static uint32_t next(void) {
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return (uint32_t)((state * 0x2545F4914F6CDD1Du) >> 32);
}

/* Text with escapes, broken escapes, %u escapes of surrogates, UTF-8 and invalid bytes. */
static size_t random_input(uint8_t *out, size_t max) {
    static const char *tokens[] = {"a", "%", "%4", "%41", "%zz", "%C3", "%A9", "%E2%82", "%AC", "%uD83D", "%uDE00",
                                   "%u00E9", "%ud800", "+", " ", "\xC3", "\xA9", "\xE2\x82\xAC", "\xFF", "%00", "/"};
    size_t len = 0, n = next() % 14;
    for (size_t i = 0; i < n; i++) {
        const char *t = tokens[next() % (sizeof tokens / sizeof *tokens)];
        size_t tl = strlen(t);
        if (len + tl > max) break;
        memcpy(out + len, t, tl);
        len += tl;
    }
    return len;
}

static void check_all_cuts(const struct api *api, void *(*make)(const void *), const void *handle,
                           const struct result *want, const uint8_t *src, size_t len, const char *what) {
    /* Two pieces, cut at every point, with room for everything and with small blocks. */
    for (size_t cut = 0; cut <= len; cut++) {
        size_t caps[] = {3 * len + 40, 1, 4, 7};
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
            void *s = make(handle);
            struct result got = drive(api, s, src, len, &cut, 1, caps[c]);
            if (!same_result(&got, want) && failures < 20) {
                fprintf(stderr, "%s: input \"%.*s\" cut at %zu, cap %zu: status %d/%d kind %d/%d offset %zu/%zu len %zu/%zu\n",
                        what, (int)len, (const char *)src, cut, caps[c], got.status, want->status, got.kind, want->kind,
                        got.offset, want->offset, got.len, want->len);
            }
            CHECK(same_result(&got, want));
            free(got.bytes);
            if (api == &ENCODE) pctenc_encode_stream_free(s); else pctenc_decode_stream_free(s);
        }
    }
    /* Three pieces at random points. */
    for (int k = 0; k < 4; k++) {
        size_t cuts[2] = {next() % (len + 1), next() % (len + 1)};
        if (cuts[0] > cuts[1]) { size_t t = cuts[0]; cuts[0] = cuts[1]; cuts[1] = t; }
        void *s = make(handle);
        struct result got = drive(api, s, src, len, cuts, 2, 1 + next() % 9);
        CHECK(same_result(&got, want));
        free(got.bytes);
        if (api == &ENCODE) pctenc_encode_stream_free(s); else pctenc_decode_stream_free(s);
    }
}

static void *make_enc(const void *enc) {
    pctenc_encode_stream *s = NULL;
    CHECK(pctenc_encode_stream_new(enc, &s, NULL) == PCTENC_OK && s != NULL);
    return s;
}

static void *make_dec(const void *dec) {
    pctenc_decode_stream *s = NULL;
    CHECK(pctenc_decode_stream_new(dec, &s, NULL) == PCTENC_OK && s != NULL);
    return s;
}

static void test_differential(int inputs) {
    static const char *sets[] = {"component", "path", "form", "rfc3986"};
    uint8_t src[128];
    for (int i = 0; i < inputs; i++) {
        size_t len = random_input(src, sizeof src);
        for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
            for (uint32_t flags = 0; flags < 16; flags++) {
                pctenc_encoder *enc = NULL;
                CHECK(pctenc_encoder_new(sets[k], strlen(sets[k]), flags, &enc, NULL) == PCTENC_OK);
                struct result want = encode_whole(enc, src, len);
                check_all_cuts(&ENCODE, make_enc, enc, &want, src, len, sets[k]);
                free(want.bytes);
                pctenc_encoder_free(enc);
            }
        }
        for (uint32_t bits = 0; bits < (1u << 9); bits++) {
            uint32_t flags = bits << 8; /* the nine decoder flags: bits 8 to 16 */
            pctenc_decoder *dec = NULL;
            if (pctenc_decoder_new(flags, NULL, &dec, NULL) != PCTENC_OK) {
                /* Only strict and lossy together are refused. */
                CHECK((flags & (PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY)) ==
                      (PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY));
                continue;
            }
            struct result want = decode_whole(dec, src, len);
            check_all_cuts(&DECODE, make_dec, dec, &want, src, len, "decode");
            free(want.bytes);
            pctenc_decoder_free(dec);
        }
    }
}

/* NULL arguments, zero lengths, no room. */
static void test_hostile(void) {
    uint8_t buf[8];
    size_t consumed = 7, written = 7;
    pctenc_error err;
    CHECK(pctenc_decode_stream_update(NULL, (const uint8_t *)"a", 1, buf, 8, &consumed, &written, &err) ==
          PCTENC_BAD_ARGUMENT && consumed == 0 && written == 0 && err.kind == PCTENC_KIND_BAD_ARGUMENT);
    CHECK(pctenc_encode_stream_finish(NULL, buf, 8, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_encode_stream_max_output(NULL, 0) == SIZE_MAX);
    CHECK(pctenc_encode_stream_new(NULL, NULL, NULL) == PCTENC_BAD_ARGUMENT);
    pctenc_encode_stream_free(NULL);
    pctenc_decode_stream_free(NULL);

    pctenc_decoder *dec = NULL;
    pctenc_decode_stream *s = NULL;
    CHECK(pctenc_decoder_new(PCTENC_DECODE_UTF8_STRICT, NULL, &dec, NULL) == PCTENC_OK);
    CHECK(pctenc_decode_stream_new(dec, &s, NULL) == PCTENC_OK);
    pctenc_decoder_free(dec); /* the stream keeps a copy */
    CHECK(pctenc_decode_stream_update(s, NULL, 1, buf, 8, &consumed, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode_stream_update(s, (const uint8_t *)"a", 1, NULL, 8, &consumed, &written, NULL) ==
          PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode_stream_update(s, (const uint8_t *)"a", 1, buf, 8, NULL, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode_stream_update(s, buf, 4, buf + 2, 4, &consumed, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode_stream_update(s, NULL, 0, NULL, 0, &consumed, &written, NULL) == PCTENC_OK && consumed == 0);
    CHECK(pctenc_decode_stream_update(s, (const uint8_t *)"ab", 2, NULL, 0, &consumed, &written, &err) ==
          PCTENC_BUFFER_TOO_SMALL && consumed == 0 && err.kind == PCTENC_KIND_BUFFER_TOO_SMALL);
    /* `caf%C3` then the end: the UTF-8 sequence cut short is the error finish reports. */
    CHECK(pctenc_decode_stream_update(s, (const uint8_t *)"caf%C3", 6, buf, 8, &consumed, &written, NULL) == PCTENC_OK &&
          consumed == 6 && written == 3 && memcmp(buf, "caf", 3) == 0);
    CHECK(pctenc_decode_stream_finish(s, buf, 8, &written, &err) == PCTENC_INVALID_INPUT &&
          err.kind == PCTENC_KIND_INVALID_UTF8 && err.offset == 3 && written == 0);
    /* Over: every later call says so again. */
    CHECK(pctenc_decode_stream_update(s, (const uint8_t *)"x", 1, buf, 8, &consumed, &written, &err) ==
          PCTENC_INVALID_INPUT && err.offset == 3);
    pctenc_decode_stream_free(s);
}

int main(int argc, char **argv) {
    int inputs = argc > 1 ? atoi(argv[1]) : 60;
    test_hostile();
    test_differential(inputs);
    printf("stream.c: %ld checks, %ld failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
