/*
 * What a proxy (nginx, HAProxy) does with pctenc: take a request's path and one query
 * argument, refuse a decoded argument that hides a `/` or a NUL (`%2F`, `%00`: path
 * traversal, truncation in C strings), and normalize the path before routing on it.
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

static void handle(const char *uri) {
    const char *q = strchr(uri, '?');
    size_t path_len = q ? (size_t)(q - uri) : strlen(uri);
    printf("%s\n", uri);

    /* Normalize the path in a copy: uppercase hex, unreserved escapes decoded. */
    unsigned char path[256];
    size_t n = 0;
    if (path_len > sizeof path || pctenc_normalize((const uint8_t *)uri, path_len, path, sizeof path, &n, NULL) != PCTENC_OK) {
        printf("  414 URI Too Long\n");
        return;
    }
    printf("  path %.*s\n", (int)n, (const char *)path);

    size_t len = 0;
    const char *value = q ? find_arg(q + 1, strlen(q + 1), "file", &len) : NULL;
    if (value == NULL) {
        printf("  no file argument\n");
        return;
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
    printf("  file %.*s\n", (int)n, (const char *)out);
}

int main(void) {
    pctenc_error err;
    uint32_t flags = PCTENC_DECODE_PLUS_AS_SPACE | PCTENC_DECODE_UTF8_STRICT | PCTENC_DECODE_REJECT_NUL |
                     PCTENC_DECODE_REJECT_SLASHES;
    if (pctenc_decoder_new(flags, NULL, &arg_decoder, &err) != PCTENC_OK) {
        fprintf(stderr, "pctenc_decoder_new: %s\n", pctenc_status_str(err.status));
        return 1;
    }
    handle("/static/%7euser/%2e%2e/img%2fa.png?file=report+2024.pdf&x=1");
    handle("/download?x=1&file=..%2F..%2Fetc%2Fpasswd");
    handle("/download?file=notes.txt%00.jpg");
    handle("/download?file=caf%C3%A9.txt");
    handle("/download?file=caf%E9.txt");
    handle("/download?file=50%");
    pctenc_decoder_free(arg_decoder);
    return 0;
}
