/*
 * What a proxy (nginx, HAProxy) does with pctenc before routing a request:
 *
 *  - the path: normalize its escapes (pctenc_normalize: uppercase hex, unreserved escapes
 *    such as %7E and %2E decoded), THEN remove the dot segments that this can reveal
 *    (`%2e%2e` becomes `..`), refusing a path that climbs above the root. pctenc_normalize
 *    removes no dot segments itself: routing on its output alone would let
 *    `/download/%2e%2e/admin` reach `/admin` past a rule for `/download/`.
 *  - one query argument, a file name: refuse `/`, `\` and NUL whether escaped (the decoder's
 *    PCTENC_DECODE_REJECT_* flags, which look at escapes only) or raw (checked here, before
 *    decoding, so the offset is the input's), and refuse the names `.` and `..`.
 *  - a form body that arrives in three buffers, cut inside an escape and inside a UTF-8
 *    sequence: a decoding stream (pctenc_decode_stream_*) gives what decoding the whole body
 *    gives, into a small fixed output buffer, and an error's offset counts from the body's
 *    start.
 *
 * Built and run by pctenc-capi/ci.sh; its output must equal proxy.expected.
 */
#include "pctenc.h"

#include <stdio.h>
#include <string.h>

/* One decoder for the whole process, shared read-only by every worker thread. */
static pctenc_decoder *arg_decoder;

/* The value of query argument `name` (as ngx_http_arg finds it), or NULL. */
static const char *find_arg(const char *query, size_t query_len, const char *name, size_t *value_len) {
    size_t name_len = strlen(name);
    const char *p = query, *end = query + query_len;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        if ((size_t)(stop - p) > name_len && memcmp(p, name, name_len) == 0 && p[name_len] == '=') {
            *value_len = (size_t)(stop - p) - name_len - 1;
            return p + name_len + 1;
        }
        p = stop + 1;
    }
    return NULL;
}

/* RFC 3986 section 5.2.4 on an absolute path, in place: `.` and `..` segments removed.
 * Returns the new length, or 0 when the path is not absolute or `..` climbs above the root. */
static size_t remove_dot_segments(unsigned char *p, size_t n) {
    if (n == 0 || p[0] != '/') return 0;
    size_t out = 0, i = 0;
    while (i < n) { /* p[i] is the `/` before a segment, p[i + 1 .. j) */
        size_t j = i + 1;
        while (j < n && p[j] != '/') j++;
        size_t len = j - i - 1;
        int last = j == n;
        if (len == 1 && p[i + 1] == '.') {
            if (last) p[out++] = '/';
        } else if (len == 2 && p[i + 1] == '.' && p[i + 2] == '.') {
            if (out == 0) return 0;
            while (p[out - 1] != '/') out--; /* drop the last segment and its `/` */
            out--;
            if (last) p[out++] = '/';
        } else {
            memmove(p + out, p + i, j - i); /* out <= i: only ever shrinks */
            out += j - i;
        }
        i = j;
    }
    if (out == 0) p[out++] = '/';
    return out;
}

/* Prints a request, control bytes as \xHH. */
static void print_request(const char *uri, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)uri[i];
        if (c < 0x20 || c == 0x7F) printf("\\x%02X", c);
        else putchar(c);
    }
    putchar('\n');
}

static void handle(const char *uri, size_t uri_len) {
    const char *q = memchr(uri, '?', uri_len);
    size_t path_len = q ? (size_t)(q - uri) : uri_len;
    print_request(uri, uri_len);

    /* Normalize the path in a copy, then resolve its dot segments. */
    unsigned char path[256];
    size_t n = 0;
    if (path_len > sizeof path || pctenc_normalize((const uint8_t *)uri, path_len, path, sizeof path, &n, NULL) != PCTENC_OK) {
        printf("  414 URI Too Long\n");
        return;
    }
    size_t resolved = remove_dot_segments(path, n);
    if (resolved == 0) {
        printf("  400 Bad Request: path %.*s leaves the root\n", (int)n, (const char *)path);
        return;
    }
    printf("  path %.*s\n", (int)resolved, (const char *)path);

    size_t len = 0;
    const char *value = q ? find_arg(q + 1, uri_len - path_len - 1, "file", &len) : NULL;
    if (value == NULL) {
        printf("  no file argument\n");
        return;
    }
    /* Raw bytes first: the decoder's REJECT flags look at escapes only. */
    for (size_t i = 0; i < len; i++) {
        if (value[i] == '/' || value[i] == '\\' || value[i] == '\0') {
            printf("  400 Bad Request: file argument, offset %zu: raw byte 0x%02X\n", i, (unsigned char)value[i]);
            return;
        }
    }
    /* The decoded value is never longer than the encoded one here (no lossy UTF-8). */
    unsigned char out[256];
    pctenc_error err;
    if (pctenc_decoded_len_max(arg_decoder, len) > sizeof out) {
        printf("  414 URI Too Long\n");
        return;
    }
    if (pctenc_decode(arg_decoder, (const uint8_t *)value, len, out, sizeof out, &n, &err) != PCTENC_OK) {
        printf("  400 Bad Request: file argument, offset %zu: %s", err.offset, pctenc_error_kind_str(err.kind));
        if (err.kind == PCTENC_KIND_FORBIDDEN_BYTE) printf(" (0x%02X)", err.byte);
        printf("\n");
        return;
    }
    /* No `/`, `\` or NUL is left, raw or decoded; `.` and `..` are the names still unsafe. */
    if ((n == 1 && out[0] == '.') || (n == 2 && out[0] == '.' && out[1] == '.')) {
        printf("  400 Bad Request: file argument: the name %.*s\n", (int)n, (const char *)out);
        return;
    }
    printf("  file %.*s\n", (int)n, (const char *)out);
}

#define REQUEST(lit) handle(lit, sizeof lit - 1)

/* A request body in pieces, as the network delivers it, decoded through a fixed buffer of
 * PCTENC_STREAM_MIN_CAPACITY bytes (an output chain of fixed-size buffers, in nginx). */
static void body(const char *const *pieces, size_t n) {
    pctenc_decode_stream *stream;
    pctenc_error err;
    uint8_t out[PCTENC_STREAM_MIN_CAPACITY]; /* always takes one more byte */
    size_t consumed, written;
    printf("body");
    for (size_t i = 0; i < n; i++) printf(" | %s", pieces[i]);
    printf("\n  ");
    if (pctenc_decode_stream_new(arg_decoder, &stream, &err) != PCTENC_OK) {
        printf("500: %s\n", pctenc_status_str(err.status));
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = (const uint8_t *)pieces[i];
        size_t len = strlen(pieces[i]);
        while (len > 0) { /* each call takes what surely fits in `out` */
            if (pctenc_decode_stream_update(stream, p, len, out, sizeof out, &consumed, &written, &err) != PCTENC_OK) {
                goto failed;
            }
            printf("%.*s", (int)written, (const char *)out);
            p += consumed, len -= consumed;
        }
    }
    if (pctenc_decode_stream_finish(stream, out, sizeof out, &written, &err) != PCTENC_OK) goto failed;
    printf("%.*s\n", (int)written, (const char *)out);
    pctenc_decode_stream_free(stream);
    return;
failed:
    printf("\n  400 Bad Request: body, offset %zu: %s\n", err.offset, pctenc_error_kind_str(err.kind));
    pctenc_decode_stream_free(stream);
}

#define BODY(...)                                                       \
    do {                                                                \
        const char *pieces[] = {__VA_ARGS__};                           \
        body(pieces, sizeof pieces / sizeof *pieces);                   \
    } while (0)

int main(void) {
    pctenc_error err;
    uint32_t flags = PCTENC_DECODE_PLUS_AS_SPACE | PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_REJECT_NUL |
                     PCTENC_DECODE_REJECT_SLASHES;
    if (pctenc_decoder_new(flags, NULL, &arg_decoder, &err) != PCTENC_OK) {
        fprintf(stderr, "pctenc_decoder_new: %s\n", pctenc_status_str(err.status));
        return 1;
    }
    REQUEST("/static/%7euser/%2e%2e/img%2fa.png?file=report+2024.pdf&x=1");
    REQUEST("/download/%2e%2e/admin/secret");
    REQUEST("/download/.%2E/%2e%2e/%2E%2e/etc/passwd");
    REQUEST("/a/./b/../c/.");
    REQUEST("/download?x=1&file=..%2F..%2Fetc%2Fpasswd");
    REQUEST("/download?file=../../etc/passwd");
    REQUEST("/download?file=..\\..\\win.ini");
    REQUEST("/download?file=%2e%2e");
    REQUEST("/download?file=notes.txt%00.jpg");
    REQUEST("/download?file=notes.txt\0.jpg");
    REQUEST("/download?file=caf%C3%A9.txt");
    REQUEST("/download?file=caf%E9.txt");
    REQUEST("/download?file=50%");
    BODY("comment=caf%C", "3%A9+au+lait%2", "C+s%C3%A9same");
    BODY("comment=caf", "%C3", "+cr%C3%A8me");
    BODY("comment=100", "%");
    pctenc_decoder_free(arg_decoder);
    return 0;
}
