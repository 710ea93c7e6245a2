/*
 * The C tests of libpctenc: every function of pctenc.h, on success, on every error kind,
 * with short buffers, NULL arguments, and handles shared by several threads.
 *
 * Built by pctenc-capi/ci.sh against libpctenc.a and libpctenc.so, plain, with
 * -fsanitize=address,undefined, and under Valgrind. Exit status 0 when every check passes.
 */
#include "pctenc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                               \
    do {                                                                          \
        checks++;                                                                 \
        if (!(cond)) {                                                            \
            failures++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

#define S(lit) (const uint8_t *)(lit), (sizeof(lit) - 1)

/* A fresh error struct full of garbage, so that a field left unwritten shows. */
static pctenc_error junk_error(void) {
    pctenc_error e;
    memset(&e, 0x5A, sizeof e);
    return e;
}

static int same(const uint8_t *got, size_t got_len, const char *want) {
    return got_len == strlen(want) && memcmp(got, want, got_len) == 0;
}

static pctenc_encoder *encoder(const char *name, uint32_t flags) {
    pctenc_encoder *enc = NULL;
    pctenc_error err = junk_error();
    pctenc_status st = pctenc_encoder_new(name, strlen(name), flags, &enc, &err);
    CHECK(st == PCTENC_OK && enc != NULL && err.status == PCTENC_OK && err.kind == PCTENC_KIND_NONE);
    return enc;
}

static pctenc_decoder *decoder(uint32_t flags, const uint8_t *keep) {
    pctenc_decoder *dec = NULL;
    pctenc_error err = junk_error();
    pctenc_status st = pctenc_decoder_new(flags, keep, &dec, &err);
    CHECK(st == PCTENC_OK && dec != NULL && err.status == PCTENC_OK);
    return dec;
}

/* Encodes with a buffer of exactly the reported size (heap, so ASan sees an overflow) and
 * checks the output and that written == pctenc_encoded_len. */
static int encodes_to(const pctenc_encoder *enc, const char *in, const char *want) {
    size_t len = strlen(in);
    size_t need = pctenc_encoded_len(enc, (const uint8_t *)in, len);
    uint8_t *out = malloc(need ? need : 1);
    size_t written = 12345;
    pctenc_error err = junk_error();
    pctenc_status st = pctenc_encode(enc, (const uint8_t *)in, len, out, need, &written, &err);
    int ok = st == PCTENC_OK && err.status == PCTENC_OK && written == need && same(out, written, want);
    if (!ok) fprintf(stderr, "  encode(%s): status %d, written %zu, need %zu\n", in, st, written, need);
    free(out);
    return ok;
}

static int decodes_to(const pctenc_decoder *dec, const char *in, const char *want, size_t want_len) {
    size_t len = strlen(in);
    size_t cap = pctenc_decoded_len_max(dec, len);
    uint8_t *out = malloc(cap ? cap : 1);
    size_t written = 12345, exact = 999;
    pctenc_error err = junk_error();
    pctenc_status st = pctenc_decode(dec, (const uint8_t *)in, len, out, cap, &written, &err);
    int ok = st == PCTENC_OK && err.status == PCTENC_OK && written == want_len && memcmp(out, want, want_len) == 0;
    ok = ok && pctenc_decoded_len(dec, (const uint8_t *)in, len, &exact, NULL) == PCTENC_OK && exact == want_len;
    if (!ok) fprintf(stderr, "  decode(%s): status %d, written %zu\n", in, st, written);
    free(out);
    return ok;
}

/* Decoding `in` fails with this status, kind, offset and byte, from every decoding function. */
static int decode_fails(const pctenc_decoder *dec, const char *in, pctenc_error_kind kind, size_t offset,
                        uint8_t byte) {
    size_t len = strlen(in), written = 77, cap = pctenc_decoded_len_max(dec, len) + 1;
    uint8_t *out = malloc(cap);
    pctenc_error err = junk_error();
    pctenc_status st = pctenc_decode(dec, (const uint8_t *)in, len, out, cap, &written, &err);
    int ok = st == PCTENC_INVALID_INPUT && err.status == st && err.kind == kind && err.offset == offset &&
             err.byte == byte && written == 0;
    /* The same error from the size pass and from a buffer too small to hold anything. */
    err = junk_error();
    st = pctenc_decoded_len(dec, (const uint8_t *)in, len, &written, &err);
    ok = ok && st == PCTENC_INVALID_INPUT && err.kind == kind && err.offset == offset && written == 0;
    err = junk_error();
    st = pctenc_decode(dec, (const uint8_t *)in, len, NULL, 0, &written, &err);
    ok = ok && st == PCTENC_INVALID_INPUT && err.kind == kind && err.offset == offset;
    /* And in place. */
    memcpy(out, in, len);
    err = junk_error();
    st = pctenc_decode_in_place(dec, out, len, &written, &err);
    ok = ok && st == PCTENC_INVALID_INPUT && err.kind == kind && err.offset == offset && err.byte == byte;
    if (!ok) fprintf(stderr, "  decode_fails(%s): status %d kind %d offset %zu byte %d\n", in, st, err.kind, err.offset, err.byte);
    free(out);
    return ok;
}

static void test_info(void) {
    const char *v = pctenc_version();
    CHECK(v != NULL && strcmp(v, "0.2.0") == 0);
    /* The header's version macros are the library's version. */
    CHECK(strcmp(v, PCTENC_VERSION_STRING) == 0);
    char numbers[64];
    snprintf(numbers, sizeof numbers, "%d.%d.%d", PCTENC_VERSION_MAJOR, PCTENC_VERSION_MINOR, PCTENC_VERSION_PATCH);
    CHECK(strcmp(v, numbers) == 0);
    const char *b = pctenc_backend_name();
    CHECK(b != NULL);
    CHECK(strcmp(b, "scalar") == 0 || strcmp(b, "sse2") == 0 || strcmp(b, "ssse3") == 0 || strcmp(b, "avx2") == 0 ||
          strcmp(b, "avx512") == 0 || strcmp(b, "neon") == 0);
    const char *expected_backend = getenv("PCTENC_EXPECT_DETECTED");
    if (expected_backend) CHECK(strcmp(b, expected_backend) == 0);
    CHECK(strcmp(pctenc_status_str(PCTENC_OK), "success") == 0);
    CHECK(strcmp(pctenc_status_str(PCTENC_INVALID_INPUT), "invalid input") == 0);
    CHECK(strcmp(pctenc_status_str(PCTENC_BUFFER_TOO_SMALL), "output buffer too small") == 0);
    CHECK(strcmp(pctenc_status_str(PCTENC_BAD_ARGUMENT), "bad argument") == 0);
    CHECK(strcmp(pctenc_status_str(PCTENC_INTERNAL_ERROR), "internal error") == 0);
    CHECK(strcmp(pctenc_status_str(PCTENC_OUT_OF_MEMORY), "out of memory") == 0);
    CHECK(strcmp(pctenc_status_str(PCTENC_STOPPED), "stopped by the callback") == 0);
    CHECK(strcmp(pctenc_status_str(7), "unknown status") == 0);
    CHECK(strcmp(pctenc_status_str(-1), "unknown status") == 0);
    for (int k = PCTENC_KIND_NONE; k <= PCTENC_KIND_BAD_WORD; k++) {
        const char *s = pctenc_error_kind_str(k);
        CHECK(s != NULL && strlen(s) > 0 && strcmp(s, "unknown error kind") != 0);
    }
    CHECK(strcmp(pctenc_error_kind_str(PCTENC_KIND_FORBIDDEN_BYTE), "rejected byte: an escape decodes to a forbidden byte") == 0);
    CHECK(strcmp(pctenc_error_kind_str(PCTENC_KIND_OUT_OF_MEMORY), "out of memory") == 0);
    CHECK(strcmp(pctenc_error_kind_str(PCTENC_KIND_BAD_WORD), "bad option word") == 0);
    CHECK(strcmp(pctenc_error_kind_str(16), "unknown error kind") == 0);
}

static void test_encoder_new(void) {
    const char *names[] = {"rfc3986", "component", "uri", "form", "fragment", "query", "special-query", "path",
                           "userinfo", "c0-control", "python-quote", "python-quote-plus", "go-path",
                           "non-alphanumeric", "RFC3986", "uri_component", "urlencoded"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        pctenc_encoder *enc = encoder(names[i], 0);
        CHECK(encodes_to(enc, "az09", "az09"));
        pctenc_encoder_free(enc);
    }
    pctenc_encoder *enc = (pctenc_encoder *)1;
    pctenc_error err = junk_error();
    /* Unknown name: an error, *out is NULL. */
    CHECK(pctenc_encoder_new("rfc", 3, 0, &enc, &err) == PCTENC_BAD_ARGUMENT && enc == NULL);
    CHECK(err.status == PCTENC_BAD_ARGUMENT && err.kind == PCTENC_KIND_BAD_ARGUMENT && err.offset == 0);
    /* The length is what counts, not a NUL: "componentX" cut at 9 is "component". */
    CHECK(pctenc_encoder_new("componentX", 9, 0, &enc, NULL) == PCTENC_OK && enc != NULL);
    pctenc_encoder_free(enc);
    CHECK(pctenc_encoder_new("\xff\xfe", 2, 0, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    CHECK(pctenc_encoder_new(NULL, 0, 0, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    CHECK(pctenc_encoder_new(NULL, 4, 0, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    CHECK(pctenc_encoder_new("form", 4, 0, NULL, &err) == PCTENC_BAD_ARGUMENT && err.kind == PCTENC_KIND_BAD_ARGUMENT);
    CHECK(pctenc_encoder_new("form", 4, 1u << 4, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    CHECK(pctenc_encoder_new("form", 4, 0x80000000u, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);

    /* Custom sets: escape only the space and `%` (and non-ASCII). */
    uint8_t bits[PCTENC_SET_BYTES] = {0};
    memset(bits + 16, 0xFF, 16);
    bits[' ' / 8] |= 1 << (' ' % 8);
    bits['%' / 8] |= 1 << ('%' % 8);
    err = junk_error();
    CHECK(pctenc_encoder_new_custom(bits, 0, &enc, &err) == PCTENC_OK && enc != NULL && err.status == PCTENC_OK);
    CHECK(encodes_to(enc, "a b/c%\xc3\xa9", "a%20b/c%25%C3%A9"));
    pctenc_encoder_free(enc);
    CHECK(pctenc_encoder_new_custom(bits, PCTENC_ENCODE_SPACE_AS_PLUS | PCTENC_ENCODE_LOWERCASE, &enc, NULL) == PCTENC_OK);
    CHECK(encodes_to(enc, "a b\xc3\xa9", "a+b%c3%a9"));
    pctenc_encoder_free(enc);
    memset(bits + 16, 0, 16); /* IRI: valid UTF-8 kept, other bytes escaped */
    CHECK(pctenc_encoder_new_custom(bits, 0, &enc, NULL) == PCTENC_OK);
    CHECK(encodes_to(enc, "a b\xc3\xa9\xff", "a%20b\xc3\xa9%FF"));
    pctenc_encoder_free(enc);
    bits[20] = 1; /* an upper half neither all set nor all clear */
    CHECK(pctenc_encoder_new_custom(bits, 0, &enc, &err) == PCTENC_BAD_ARGUMENT && enc == NULL &&
          err.kind == PCTENC_KIND_BAD_ARGUMENT);
    CHECK(pctenc_encoder_new_custom(NULL, 0, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    memset(bits + 16, 0xFF, 16);
    CHECK(pctenc_encoder_new_custom(bits, 0, NULL, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_encoder_new_custom(bits, 1u << 4, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    /* A decoder flag is no encoder flag: the two families have no bit in common. */
    CHECK(pctenc_encoder_new_custom(bits, PCTENC_DECODE_UTF8_STRICT, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    CHECK(pctenc_encoder_new("component", 9, PCTENC_DECODE_LENIENT, &enc, NULL) == PCTENC_BAD_ARGUMENT && enc == NULL);
    pctenc_encoder_free(NULL);
}

static void test_encode(void) {
    pctenc_encoder *component = encoder("component", 0);
    CHECK(encodes_to(component, "J\xc3\xbcrgen & Bj\xc3\xb6rk", "J%C3%BCrgen%20%26%20Bj%C3%B6rk"));
    CHECK(encodes_to(component, "", ""));
    CHECK(encodes_to(component, "!'()*-._~", "!'()*-._~"));
    pctenc_encoder *form = encoder("form", 0);
    CHECK(encodes_to(form, "C++ & C#", "C%2B%2B+%26+C%23"));
    pctenc_encoder *plus = encoder("rfc3986", PCTENC_ENCODE_SPACE_AS_PLUS | PCTENC_ENCODE_LOWERCASE);
    CHECK(encodes_to(plus, "a b\xff", "a+b%ff"));
    pctenc_encoder *requote = encoder("component", PCTENC_ENCODE_KEEP_ESCAPES);
    CHECK(encodes_to(requote, "100% %41 %zz", "100%25%20%41%20%25zz"));
    pctenc_encoder *iri = encoder("path", PCTENC_ENCODE_IRI);
    CHECK(encodes_to(iri, "/caf\xc3\xa9 \xff", "/caf\xc3\xa9%20%FF"));
    /* What the header lists as escaped under IRI: a C1 control (U+0085), private use
     * (U+E000), a noncharacter (U+FDD0, U+FFFE), a special (U+FFF9), a tag (U+E0001), a
     * bidi control (U+202E); and kept: U+00A0, U+FFEF, U+10000, U+EFFFD. */
    CHECK(encodes_to(iri, "\xc2\x85\xee\x80\x80", "%C2%85%EE%80%80"));
    CHECK(encodes_to(iri, "\xef\xb7\x90\xef\xbf\xbe\xef\xbf\xb9", "%EF%B7%90%EF%BF%BE%EF%BF%B9"));
    CHECK(encodes_to(iri, "\xf3\xa0\x80\x81\xe2\x80\xae", "%F3%A0%80%81%E2%80%AE"));
    CHECK(encodes_to(iri, "\xc2\xa0\xef\xbf\xaf\xf0\x90\x80\x80\xf3\xaf\xbf\xbd",
                     "\xc2\xa0\xef\xbf\xaf\xf0\x90\x80\x80\xf3\xaf\xbf\xbd"));

    /* Size query: NULL dst, cap 0. */
    size_t written = 0;
    pctenc_error err = junk_error();
    CHECK(pctenc_encode(component, S("a b"), NULL, 0, &written, &err) == PCTENC_BUFFER_TOO_SMALL);
    CHECK(written == 5 && err.status == PCTENC_BUFFER_TOO_SMALL && err.kind == PCTENC_KIND_BUFFER_TOO_SMALL);
    /* Every short capacity: the size needed, and nothing written past cap (checked on a
     * canary here, and by ASan on the exact-size heap buffer). */
    const char *in = "caf\xc3\xa9 & cr\xc3\xa8" "me br\xc3\xbbl\xc3\xa9" "e";
    size_t need = pctenc_encoded_len(component, (const uint8_t *)in, strlen(in));
    CHECK(need == strlen("caf%C3%A9%20%26%20cr%C3%A8me%20br%C3%BBl%C3%A9e"));
    for (size_t cap = 0; cap < need; cap++) {
        uint8_t *buf = malloc(cap + 8);
        memset(buf, 0xAA, cap + 8);
        written = 0;
        CHECK(pctenc_encode(component, (const uint8_t *)in, strlen(in), buf, cap, &written, NULL) ==
              PCTENC_BUFFER_TOO_SMALL);
        CHECK(written == need);
        int intact = 1;
        for (size_t i = cap; i < cap + 8; i++) intact &= buf[i] == 0xAA;
        CHECK(intact);
        free(buf);
    }
    /* A larger buffer than needed. */
    uint8_t big[256];
    CHECK(pctenc_encode(component, (const uint8_t *)in, strlen(in), big, sizeof big, &written, NULL) == PCTENC_OK &&
          written == need);

    /* NULL arguments. */
    CHECK(pctenc_encoded_len(component, NULL, 0) == 0);
    CHECK(pctenc_encoded_len(component, NULL, 1) == SIZE_MAX);
    CHECK(pctenc_encoded_len(NULL, S("a")) == SIZE_MAX);
    CHECK(pctenc_encode(component, NULL, 0, NULL, 0, &written, &err) == PCTENC_OK && written == 0 &&
          err.status == PCTENC_OK);
    written = 9;
    CHECK(pctenc_encode(component, NULL, 3, big, sizeof big, &written, &err) == PCTENC_BAD_ARGUMENT && written == 0 &&
          err.kind == PCTENC_KIND_BAD_ARGUMENT);
    CHECK(pctenc_encode(component, S("abc"), NULL, 10, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_encode(NULL, S("abc"), big, sizeof big, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_encode(component, S("abc"), big, sizeof big, NULL, &err) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_encode(component, S("abc"), big, SIZE_MAX, &written, NULL) == PCTENC_BAD_ARGUMENT);
    /* Overlapping buffers. */
    memcpy(big, "a b", 3);
    CHECK(pctenc_encode(component, big, 3, big + 2, 10, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_encode(component, big, 3, big + 3, 10, &written, NULL) == PCTENC_OK && written == 5);

    pctenc_encoder_free(component);
    pctenc_encoder_free(form);
    pctenc_encoder_free(plus);
    pctenc_encoder_free(requote);
    pctenc_encoder_free(iri);
}

static void test_validate(void) {
    pctenc_encoder *component = encoder("component", 0);
    pctenc_encoder *form = encoder("form", 0);
    pctenc_error err = junk_error();
    CHECK(pctenc_validate(component, S("J%C3%BCrgen%20%26"), &err) == PCTENC_OK && err.status == PCTENC_OK &&
          err.kind == PCTENC_KIND_NONE && err.offset == 0 && err.byte == 0);
    CHECK(pctenc_validate(form, S("a+b%2B"), NULL) == PCTENC_OK);
    CHECK(pctenc_validate(component, NULL, 0, NULL) == PCTENC_OK);
    err = junk_error();
    CHECK(pctenc_validate(component, S("a%20b c"), &err) == PCTENC_INVALID_INPUT);
    CHECK(err.status == PCTENC_INVALID_INPUT && err.kind == PCTENC_KIND_UNESCAPED_BYTE && err.offset == 5 && err.byte == ' ');
    CHECK(pctenc_validate(component, S("100%"), &err) == PCTENC_INVALID_INPUT && err.kind == PCTENC_KIND_TRUNCATED_ESCAPE &&
          err.offset == 3);
    CHECK(pctenc_validate(component, S("50%!"), &err) == PCTENC_INVALID_INPUT && err.kind == PCTENC_KIND_INVALID_ESCAPE &&
          err.offset == 2);
    CHECK(pctenc_validate(component, NULL, 1, &err) == PCTENC_BAD_ARGUMENT && err.kind == PCTENC_KIND_BAD_ARGUMENT);
    /* As documented: a set that keeps `%` copies a stray one, and its output does not validate. */
    pctenc_encoder *path = encoder("path", 0);
    CHECK(encodes_to(path, "/100%", "/100%"));
    CHECK(pctenc_validate(path, S("/100%"), &err) == PCTENC_INVALID_INPUT && err.kind == PCTENC_KIND_TRUNCATED_ESCAPE &&
          err.offset == 4);
    pctenc_encoder_free(path);
    CHECK(pctenc_validate(NULL, S("a"), &err) == PCTENC_BAD_ARGUMENT);
    pctenc_encoder_free(component);
    pctenc_encoder_free(form);
}

static void test_decoder_new(void) {
    pctenc_decoder *dec = (pctenc_decoder *)1;
    pctenc_error err = junk_error();
    CHECK(pctenc_decoder_new(PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_UTF8_LOSSY, NULL, &dec, &err) ==
              PCTENC_BAD_ARGUMENT && dec == NULL && err.kind == PCTENC_KIND_BAD_ARGUMENT);
    CHECK(pctenc_decoder_new(1u << 17, NULL, &dec, NULL) == PCTENC_BAD_ARGUMENT && dec == NULL);
    /* An encoder flag is no decoder flag. */
    CHECK(pctenc_decoder_new(PCTENC_ENCODE_KEEP_ESCAPES, NULL, &dec, NULL) == PCTENC_BAD_ARGUMENT && dec == NULL);
    CHECK(pctenc_decoder_new(PCTENC_ENCODE_SPACE_AS_PLUS, NULL, &dec, NULL) == PCTENC_BAD_ARGUMENT && dec == NULL);
    CHECK(pctenc_decoder_new(0, NULL, NULL, &err) == PCTENC_BAD_ARGUMENT);
    uint8_t keep[PCTENC_SET_BYTES] = {0};
    keep[3] = 0x0F; /* bytes 24..27: neither all set nor clear above 0x80 is fine */
    keep[17] = 1;
    CHECK(pctenc_decoder_new(0, keep, &dec, NULL) == PCTENC_BAD_ARGUMENT && dec == NULL);
    uint32_t all = PCTENC_DECODE_LENIENT | PCTENC_DECODE_PLUS_AS_SPACE | PCTENC_DECODE_UTF8_LOSSY |
                   PCTENC_DECODE_LEGACY_U | PCTENC_DECODE_REJECT_NUL | PCTENC_DECODE_REJECT_CR_LF |
                   PCTENC_DECODE_REJECT_CONTROLS | PCTENC_DECODE_REJECT_SLASHES;
    dec = decoder(all, NULL);
    pctenc_decoder_free(dec);
    pctenc_decoder_free(NULL);
}

static void test_decode(void) {
    pctenc_decoder *strict = decoder(0, NULL);
    CHECK(decodes_to(strict, "a%2Fb%c3%a9+", "a/b\xc3\xa9+", 6));
    CHECK(decodes_to(strict, "", "", 0));
    CHECK(decodes_to(strict, "%00", "\0", 1));
    CHECK(decode_fails(strict, "100%", PCTENC_KIND_TRUNCATED_ESCAPE, 3, 0));
    CHECK(decode_fails(strict, "%4", PCTENC_KIND_TRUNCATED_ESCAPE, 0, 0));
    CHECK(decode_fails(strict, "ab%zz", PCTENC_KIND_INVALID_ESCAPE, 2, 0));
    CHECK(decode_fails(strict, "%4g", PCTENC_KIND_INVALID_ESCAPE, 0, 0));

    pctenc_decoder *lenient = decoder(PCTENC_DECODE_LENIENT | PCTENC_DECODE_PLUS_AS_SPACE, NULL);
    CHECK(decodes_to(lenient, "%%41%zz+a", "%A%zz a", 7));

    pctenc_decoder *utf8 = decoder(PCTENC_DECODE_UTF8_STRICT, NULL);
    CHECK(decodes_to(utf8, "caf%C3%A9", "caf\xc3\xa9", 5));
    CHECK(decode_fails(utf8, "caf%E9!", PCTENC_KIND_INVALID_UTF8, 3, 0));

    pctenc_decoder *lossy = decoder(PCTENC_DECODE_UTF8_LOSSY, NULL);
    CHECK(pctenc_decoded_len_max(lossy, 4) == 12 && pctenc_decoded_len_max(strict, 4) == 4);
    CHECK(pctenc_decoded_len_max(lossy, SIZE_MAX / 2) == SIZE_MAX);
    CHECK(pctenc_decoded_len_max(NULL, 4) == SIZE_MAX);
    CHECK(decodes_to(lossy, "caf%E9", "caf\xef\xbf\xbd", 6));
    CHECK(decodes_to(lossy, "\xff\xff", "\xef\xbf\xbd\xef\xbf\xbd", 6));

    pctenc_decoder *proxy = decoder(PCTENC_DECODE_REJECT_NUL | PCTENC_DECODE_REJECT_SLASHES, NULL);
    CHECK(decodes_to(proxy, "/a/%252F", "/a/%2F", 6));
    CHECK(decode_fails(proxy, "/a%00", PCTENC_KIND_FORBIDDEN_BYTE, 2, 0));
    CHECK(decode_fails(proxy, "a%2Fb", PCTENC_KIND_FORBIDDEN_BYTE, 1, '/'));
    CHECK(decode_fails(proxy, "a%5c", PCTENC_KIND_FORBIDDEN_BYTE, 1, '\\'));
    pctenc_decoder *crlf = decoder(PCTENC_DECODE_REJECT_CR_LF, NULL);
    CHECK(decode_fails(crlf, "x%0D%0A", PCTENC_KIND_FORBIDDEN_BYTE, 1, '\r'));
    CHECK(decodes_to(crlf, "%00%09", "\0\t", 2));
    pctenc_decoder *controls = decoder(PCTENC_DECODE_REJECT_CONTROLS | PCTENC_DECODE_LENIENT, NULL);
    CHECK(decode_fails(controls, "%zz%7F", PCTENC_KIND_FORBIDDEN_BYTE, 3, 0x7F));

    pctenc_decoder *legacy = decoder(PCTENC_DECODE_LEGACY_U, NULL);
    CHECK(decodes_to(legacy, "%u00E9%uD83D%uDE00", "\xc3\xa9\xf0\x9f\x98\x80", 6));
    CHECK(decode_fails(legacy, "ok%uD83D!", PCTENC_KIND_LONE_SURROGATE, 2, 0));
    /* Lenient: a lone surrogate becomes U+FFFD, with no lossy flag (the header says so). */
    pctenc_decoder *legacy_lenient = decoder(PCTENC_DECODE_LEGACY_U | PCTENC_DECODE_LENIENT, NULL);
    CHECK(decodes_to(legacy_lenient, "ok%uD83D!", "ok\xef\xbf\xbd!", 6));
    pctenc_decoder_free(legacy_lenient);
    CHECK(decode_fails(legacy, "ok%u00", PCTENC_KIND_TRUNCATED_U_ESCAPE, 2, 0));
    CHECK(decode_fails(legacy, "ok%u00zz", PCTENC_KIND_INVALID_U_ESCAPE, 2, 0));

    /* Kept escapes: `/` stays %2F (decodeURI-like), non-ASCII decoded (upper half clear). */
    uint8_t keep[PCTENC_SET_BYTES] = {0};
    keep['/' / 8] |= 1 << ('/' % 8);
    pctenc_decoder *keeper = decoder(0, keep);
    CHECK(decodes_to(keeper, "a%2fb%20%C3%A9", "a%2fb \xc3\xa9", 8));

    /* Short buffers: the size needed, the offset where output stopped fitting, no write past
     * cap. */
    const char *in = "ab%20cd%2Fef";
    size_t len = strlen(in), need = 0;
    CHECK(pctenc_decoded_len(strict, (const uint8_t *)in, len, &need, NULL) == PCTENC_OK && need == 8);
    for (size_t cap = 0; cap < need; cap++) {
        uint8_t *buf = malloc(cap + 8);
        memset(buf, 0xAA, cap + 8);
        size_t written = 0;
        pctenc_error err = junk_error();
        CHECK(pctenc_decode(strict, (const uint8_t *)in, len, buf, cap, &written, &err) == PCTENC_BUFFER_TOO_SMALL);
        CHECK(written == need && err.status == PCTENC_BUFFER_TOO_SMALL && err.kind == PCTENC_KIND_BUFFER_TOO_SMALL);
        /* The offset is that of the first input byte whose output did not fit. */
        static const size_t offsets[] = {0, 1, 2, 5, 6, 7, 10, 11};
        CHECK(err.offset == offsets[cap]);
        int intact = 1;
        for (size_t i = cap; i < cap + 8; i++) intact &= buf[i] == 0xAA;
        CHECK(intact);
        free(buf);
    }
    /* Too small, but the input is bad further on: the input's error, as the size pass says. */
    uint8_t small[2];
    size_t written = 5;
    pctenc_error err = junk_error();
    CHECK(pctenc_decode(strict, S("abcd%zz"), small, sizeof small, &written, &err) == PCTENC_INVALID_INPUT &&
          err.kind == PCTENC_KIND_INVALID_ESCAPE && err.offset == 4 && written == 0);
    /* Lossy: a replacement that does not fit. */
    CHECK(pctenc_decode(lossy, S("a\xff"), small, sizeof small, &written, &err) == PCTENC_BUFFER_TOO_SMALL &&
          written == 4 && err.offset == 1);

    /* NULL arguments. */
    CHECK(pctenc_decode(strict, NULL, 0, NULL, 0, &written, &err) == PCTENC_OK && written == 0);
    CHECK(pctenc_decode(strict, NULL, 2, small, 2, &written, &err) == PCTENC_BAD_ARGUMENT &&
          err.kind == PCTENC_KIND_BAD_ARGUMENT && written == 0);
    CHECK(pctenc_decode(strict, S("ab"), NULL, 2, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode(NULL, S("ab"), small, 2, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode(strict, S("ab"), small, 2, NULL, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decoded_len(strict, S("ab"), NULL, &err) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decoded_len(NULL, S("ab"), &written, &err) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decoded_len(strict, NULL, 1, &written, &err) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decoded_len(strict, NULL, 0, &written, &err) == PCTENC_OK && written == 0);
    uint8_t overlap[8] = "a%20b";
    CHECK(pctenc_decode(strict, overlap, 5, overlap + 4, 4, &written, NULL) == PCTENC_BAD_ARGUMENT);

    /* In place. */
    uint8_t buf[] = "a%20b%2Bc";
    err = junk_error();
    CHECK(pctenc_decode_in_place(strict, buf, 9, &written, &err) == PCTENC_OK && written == 5 &&
          memcmp(buf, "a b+c", 5) == 0 && err.status == PCTENC_OK);
    uint8_t raw[] = "caf\xe9!";
    /* Lossy, in place, too long: the size needed ("caf" + U+FFFD + "!"), and offset 0 (the
     * input is gone; the core's index in the decoded bytes, 3, would read as an input offset). */
    CHECK(pctenc_decode_in_place(lossy, raw, 5, &written, &err) == PCTENC_BUFFER_TOO_SMALL && written == 7 &&
          err.kind == PCTENC_KIND_BUFFER_TOO_SMALL && err.offset == 0);
    uint8_t raw2[] = "%41\xff\xff";
    CHECK(pctenc_decode_in_place(lossy, raw2, 5, &written, &err) == PCTENC_BUFFER_TOO_SMALL && written == 7 &&
          err.offset == 0);
    uint8_t escaped[] = "caf%E9";
    CHECK(pctenc_decode_in_place(lossy, escaped, 6, &written, NULL) == PCTENC_OK && written == 6 &&
          memcmp(escaped, "caf\xef\xbf\xbd", 6) == 0);
    CHECK(pctenc_decode_in_place(strict, NULL, 0, &written, NULL) == PCTENC_OK && written == 0);
    CHECK(pctenc_decode_in_place(strict, NULL, 3, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode_in_place(strict, buf, 3, NULL, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decode_in_place(NULL, buf, 3, &written, NULL) == PCTENC_BAD_ARGUMENT);

    pctenc_decoder *all[] = {strict, lenient, utf8, lossy, proxy, crlf, controls, legacy, keeper};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) pctenc_decoder_free(all[i]);
}

static void test_normalize(void) {
    uint8_t out[32];
    size_t written = 0;
    pctenc_error err = junk_error();
    CHECK(pctenc_normalize(S("/%7e%41%2f%c3%a9"), out, sizeof out, &written, &err) == PCTENC_OK &&
          same(out, written, "/~A%2F%C3%A9") && err.status == PCTENC_OK);
    /* The escape of a hex digit right after a stray `%` stays (the header says why). */
    CHECK(pctenc_normalize(S("%%41%41"), out, sizeof out, &written, &err) == PCTENC_OK && same(out, written, "%%41A"));
    for (size_t cap = 0; cap < 12; cap++) {
        uint8_t *buf = malloc(cap + 4);
        memset(buf, 0xAA, cap + 4);
        CHECK(pctenc_normalize(S("/%7e%41%2f%c3%a9"), buf, cap, &written, &err) == PCTENC_BUFFER_TOO_SMALL &&
              written == 12 && err.kind == PCTENC_KIND_BUFFER_TOO_SMALL);
        CHECK(buf[cap] == 0xAA && buf[cap + 3] == 0xAA);
        free(buf);
    }
    CHECK(pctenc_normalize(NULL, 0, NULL, 0, &written, NULL) == PCTENC_OK && written == 0);
    CHECK(pctenc_normalize(NULL, 1, out, sizeof out, &written, &err) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_normalize(S("ab"), out, sizeof out, NULL, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_normalize(out, 4, out + 1, 4, &written, NULL) == PCTENC_BAD_ARGUMENT);
    uint8_t buf[] = "/a/%7Euser/%2f";
    CHECK(pctenc_normalize_in_place(buf, 14, &written, &err) == PCTENC_OK && same(buf, written, "/a/~user/%2F"));
    CHECK(pctenc_normalize_in_place(NULL, 0, &written, NULL) == PCTENC_OK && written == 0);
    CHECK(pctenc_normalize_in_place(NULL, 2, &written, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_normalize_in_place(buf, 2, NULL, NULL) == PCTENC_BAD_ARGUMENT);
}

struct pairs {
    char text[256];
    int count;
    int stop_after;
};

static int collect(void *user, const uint8_t *name, size_t name_len, const uint8_t *value, size_t value_len) {
    struct pairs *p = user;
    size_t used = strlen(p->text);
    snprintf(p->text + used, sizeof p->text - used, "[%.*s=%.*s]", (int)name_len, (const char *)name, (int)value_len,
             (const char *)value);
    p->count++;
    return p->stop_after && p->count >= p->stop_after;
}

/* Where each piece of a pair points: S into src, D elsewhere (decoded), N an empty piece
 * (not NULL), 0 NULL. */
struct where {
    const uint8_t *src;
    size_t len;
    int n;
    char seen[64];
};

static char place(const struct where *w, const uint8_t *p, size_t n) {
    if (p == NULL) return '0';
    if (n == 0) return 'N';
    return (p >= w->src && p + n <= w->src + w->len) ? 'S' : 'D';
}

static int locate(void *user, const uint8_t *name, size_t name_len, const uint8_t *value, size_t value_len) {
    struct where *w = user;
    size_t used = strlen(w->seen);
    snprintf(w->seen + used, sizeof w->seen - used, "%s%c%c", w->n ? " " : "", place(w, name, name_len),
             place(w, value, value_len));
    w->n++;
    return 0;
}

static void test_form(void) {
    struct pairs p = {"", 0, 0};
    pctenc_error err = junk_error();
    CHECK(pctenc_form_parse(S("a=1&&b=%zz+%41&c&=d&e=="), collect, &p, &err) == PCTENC_OK && err.status == PCTENC_OK);
    CHECK(strcmp(p.text, "[a=1][b=%zz A][c=][=d][e==]") == 0 && p.count == 5);
    /* A callback that stops: PCTENC_STOPPED, and the offset where the rest starts. */
    struct pairs q = {"", 0, 2};
    err = junk_error();
    CHECK(pctenc_form_parse(S("x=1&y=2&z=3"), collect, &q, &err) == PCTENC_STOPPED && strcmp(q.text, "[x=1][y=2]") == 0);
    CHECK(err.status == PCTENC_STOPPED && err.kind == PCTENC_KIND_STOPPED && err.offset == 8 && err.byte == 0);
    struct pairs last = {"", 0, 3};
    CHECK(pctenc_form_parse(S("x=1&y=2&z=3"), collect, &last, &err) == PCTENC_STOPPED && err.offset == 11 &&
          last.count == 3);
    /* Not stopped when the callback never asks to stop. */
    struct pairs all = {"", 0, 4};
    CHECK(pctenc_form_parse(S("x=1&y=2&z=3"), collect, &all, &err) == PCTENC_OK && err.offset == 0 && all.count == 3);
    /* Where the pieces point: unchanged ones into src, changed ones elsewhere; never NULL. */
    static const uint8_t body[] = "a=&=b&plain=x%41y&c";
    struct where w = {body, sizeof body - 1, 0, {0}};
    CHECK(pctenc_form_parse(body, sizeof body - 1, locate, &w, NULL) == PCTENC_OK && w.n == 4);
    /* a= : name in src, empty value not NULL; =b : empty name not NULL, value in src;
     * plain=x%41y : name in src, value decoded elsewhere; c : name in src, empty value. */
    CHECK(strcmp(w.seen, "SN NS SD SN") == 0);
    struct pairs r = {"", 0, 0};
    CHECK(pctenc_form_parse(S("caf\xe9=%FF"), collect, &r, NULL) == PCTENC_OK &&
          strcmp(r.text, "[caf\xef\xbf\xbd=\xef\xbf\xbd]") == 0);
    struct pairs e = {"", 0, 0};
    CHECK(pctenc_form_parse(NULL, 0, collect, &e, NULL) == PCTENC_OK && e.count == 0);
    CHECK(pctenc_form_parse(NULL, 3, collect, &e, &err) == PCTENC_BAD_ARGUMENT && err.kind == PCTENC_KIND_BAD_ARGUMENT);
    CHECK(pctenc_form_parse(S("a=1"), NULL, NULL, &err) == PCTENC_BAD_ARGUMENT);
}

/* One encoder and one decoder shared by several threads, each round-tripping its own input. */
static const pctenc_encoder *shared_enc;
static const pctenc_decoder *shared_dec;

static void *worker(void *arg) {
    uintptr_t id = (uintptr_t)arg;
    uint8_t in[300], enc[900], dec[300];
    uint32_t x = (uint32_t)id * 2654435761u + 1;
    long bad = 0;
    for (int round = 0; round < 2000; round++) {
        size_t len = (size_t)(round % 300);
        for (size_t i = 0; i < len; i++) {
            x = x * 1664525u + 1013904223u;
            in[i] = (uint8_t)(x >> 24);
        }
        size_t n = 0, m = 0;
        size_t need = pctenc_encoded_len(shared_enc, in, len);
        if (pctenc_encode(shared_enc, in, len, enc, sizeof enc, &n, NULL) != PCTENC_OK || n != need) bad++;
        if (pctenc_decode(shared_dec, enc, n, dec, sizeof dec, &m, NULL) != PCTENC_OK || m != len ||
            memcmp(dec, in, len) != 0)
            bad++;
    }
    return (void *)bad;
}

static void test_threads(void) {
    pctenc_encoder *enc = encoder("rfc3986", PCTENC_ENCODE_LOWERCASE);
    pctenc_decoder *dec = decoder(0, NULL);
    shared_enc = enc;
    shared_dec = dec;
    pthread_t threads[8];
    for (uintptr_t i = 0; i < 8; i++) CHECK(pthread_create(&threads[i], NULL, worker, (void *)i) == 0);
    for (int i = 0; i < 8; i++) {
        void *bad = (void *)1;
        CHECK(pthread_join(threads[i], &bad) == 0);
        CHECK(bad == NULL);
    }
    pctenc_encoder_free(enc);
    pctenc_decoder_free(dec);
}

/* The words give the decoder the flags give, and fail where said, with the message. The
 * words are copied to the heap, exactly `len` bytes, so that ASan sees a read past them. */
static int words_fail(const char *words, size_t offset, const char *message_part) {
    size_t len = strlen(words);
    char *copy = malloc(len ? len : 1), why[200];
    pctenc_decoder *dec = (pctenc_decoder *)1;
    pctenc_error err = junk_error();
    memcpy(copy, words, len);
    memset(why, 'x', sizeof why);
    pctenc_status st = pctenc_decoder_from_words(copy, len, &dec, why, sizeof why, &err);
    int ok = st == PCTENC_BAD_ARGUMENT && dec == NULL && err.status == st && err.kind == PCTENC_KIND_BAD_WORD &&
             err.offset == offset && memchr(why, 0, sizeof why) != NULL && strstr(why, message_part) != NULL;
    if (!ok) fprintf(stderr, "  words_fail(%s): status %d kind %d offset %zu: %s\n", words, st, err.kind, err.offset, why);
    free(copy);
    return ok;
}

static pctenc_decoder *words_decoder(const char *words) {
    size_t len = strlen(words);
    char *copy = malloc(len ? len : 1), why[8];
    pctenc_decoder *dec = NULL;
    pctenc_error err = junk_error();
    memcpy(copy, words, len);
    memset(why, 'x', sizeof why);
    CHECK(pctenc_decoder_from_words(copy, len, &dec, why, sizeof why, &err) == PCTENC_OK && dec != NULL);
    CHECK(err.status == PCTENC_OK && err.kind == PCTENC_KIND_NONE && why[0] == 0);
    free(copy);
    return dec;
}

static void test_words(void) {
    pctenc_decoder *dec;
    pctenc_encoder *enc;
    pctenc_error err;
    char why[16];

    dec = words_decoder("lenient, PLUS utf8=lossy");
    CHECK(decodes_to(dec, "a+b%zz%ff", "a b%zz\xef\xbf\xbd", 9));
    pctenc_decoder_free(dec);
    /* `lossy` is UTF-8 only: a bad escape is still an error. */
    dec = words_decoder("lossy");
    CHECK(decode_fails(dec, "%ff%zz", PCTENC_KIND_INVALID_ESCAPE, 3, 0));
    pctenc_decoder_free(dec);
    dec = words_decoder("reject_all utf8=strict legacy_u");
    CHECK(decode_fails(dec, "a%0b", PCTENC_KIND_FORBIDDEN_BYTE, 1, 0x0b));
    CHECK(decode_fails(dec, "a%7F", PCTENC_KIND_FORBIDDEN_BYTE, 1, 0x7f));
    CHECK(decode_fails(dec, "a%5c", PCTENC_KIND_FORBIDDEN_BYTE, 1, '\\'));
    CHECK(decode_fails(dec, "%C0%AF", PCTENC_KIND_INVALID_UTF8, 0, 0));
    CHECK(decodes_to(dec, "%u00e9", "\xc3\xa9", 2));
    pctenc_decoder_free(dec);
    dec = words_decoder("keep_encoded=uri-reserved");
    CHECK(decodes_to(dec, "%2f%41", "%2fA", 4));
    pctenc_decoder_free(dec);
    dec = words_decoder("");
    CHECK(decode_fails(dec, "%4", PCTENC_KIND_TRUNCATED_ESCAPE, 0, 0));
    pctenc_decoder_free(dec);

    CHECK(words_fail("strict lenient", 7, "`lenient` contradicts `strict`"));
    CHECK(words_fail("utf8=strict utf8=lossy", 12, "contradicts `utf8=strict`"));
    CHECK(words_fail("lossy utf8=strict", 6, "`utf8=strict` contradicts `lossy`"));
    CHECK(words_fail("plus,plus", 5, "`plus` repeats `plus`"));
    CHECK(words_fail("strict loose", 7, "unknown word `loose`"));
    CHECK(words_fail("utf8=latin1", 0, "bad value"));
    CHECK(words_fail("plus \xff\xfe", 5, "not UTF-8"));
    /* A NUL is no separator: one unknown word. */
    CHECK(pctenc_decoder_from_words("plus\0lenient", 12, &dec, NULL, 0, &err) == PCTENC_BAD_ARGUMENT);
    CHECK(dec == NULL && err.kind == PCTENC_KIND_BAD_WORD && err.offset == 0);

    /* A short message buffer: cut, NUL-terminated, nothing past it (ASan). */
    memset(why, 'x', sizeof why);
    dec = (pctenc_decoder *)1;
    CHECK(pctenc_decoder_from_words("plus plus", 9, &dec, why, 5, &err) == PCTENC_BAD_ARGUMENT && dec == NULL);
    CHECK(memcmp(why, "`plu\0xxxx", 9) == 0 && err.offset == 5);
    CHECK(pctenc_decoder_from_words("plus plus", 9, &dec, why, 1, NULL) == PCTENC_BAD_ARGUMENT && why[0] == 0);
    CHECK(pctenc_decoder_from_words("plus plus", 9, &dec, why, 0, NULL) == PCTENC_BAD_ARGUMENT);
    CHECK(pctenc_decoder_from_words("plus plus", 9, &dec, NULL, 99, NULL) == PCTENC_BAD_ARGUMENT);
    /* NULL arguments. */
    err = junk_error();
    CHECK(pctenc_decoder_from_words(NULL, 3, &dec, why, sizeof why, &err) == PCTENC_BAD_ARGUMENT && dec == NULL);
    CHECK(err.kind == PCTENC_KIND_BAD_ARGUMENT);
    CHECK(pctenc_decoder_from_words(NULL, 0, &dec, NULL, 0, NULL) == PCTENC_OK && dec != NULL);
    pctenc_decoder_free(dec);
    CHECK(pctenc_decoder_from_words("plus", 4, NULL, why, sizeof why, &err) == PCTENC_BAD_ARGUMENT);
    CHECK(err.kind == PCTENC_KIND_BAD_ARGUMENT);

    enc = NULL;
    err = junk_error();
    CHECK(pctenc_encoder_from_words("form lowercase", 14, &enc, NULL, 0, &err) == PCTENC_OK && enc != NULL);
    CHECK(err.status == PCTENC_OK && encodes_to(enc, "a b\xc3\xa9", "a+b%c3%a9"));
    pctenc_encoder_free(enc);
    CHECK(pctenc_encoder_from_words("Path,space-as-plus,requote,iri", 30, &enc, NULL, 0, NULL) == PCTENC_OK);
    CHECK(encodes_to(enc, "a b%41%\xc3\xa9", "a+b%41%25\xc3\xa9"));
    pctenc_encoder_free(enc);
    {
        char msg[300];
        enc = (pctenc_encoder *)1;
        CHECK(pctenc_encoder_from_words("form component", 14, &enc, msg, sizeof msg, &err) == PCTENC_BAD_ARGUMENT);
        CHECK(enc == NULL && err.kind == PCTENC_KIND_BAD_WORD && err.offset == 5);
        CHECK(strcmp(msg, "`component` contradicts `form` (word at offset 5)") == 0);
        CHECK(pctenc_encoder_from_words("lowercase", 9, &enc, msg, sizeof msg, &err) == PCTENC_BAD_ARGUMENT);
        CHECK(err.offset == 9 && strstr(msg, "no set") != NULL);
        CHECK(pctenc_encoder_from_words("form plus", 9, &enc, msg, sizeof msg, &err) == PCTENC_BAD_ARGUMENT);
        CHECK(err.offset == 5 && strstr(msg, "unknown word `plus`") != NULL);
        CHECK(pctenc_encoder_from_words(NULL, 1, &enc, msg, sizeof msg, &err) == PCTENC_BAD_ARGUMENT);
        CHECK(pctenc_encoder_from_words("form", 4, NULL, msg, sizeof msg, &err) == PCTENC_BAD_ARGUMENT);
    }
}

int main(void) {
    test_info();
    test_encoder_new();
    test_encode();
    test_validate();
    test_decoder_new();
    test_decode();
    test_words();
    test_normalize();
    test_form();
    test_threads();
    printf("pctenc C tests (backend %s): %d checks, %d failed\n", pctenc_backend_name(), checks, failures);
    return failures == 0 ? 0 : 1;
}
