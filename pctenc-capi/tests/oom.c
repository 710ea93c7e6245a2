/*
 * pctenc_form_parse when memory runs out: PCTENC_OUT_OF_MEMORY and the offset of the pair
 * that could not be decoded, not an abort of the process.
 *
 * A form body whose one value decodes to 40 MiB is parsed once with no limit (it works),
 * then again with the address space limited (setrlimit RLIMIT_AS) to what the process
 * already uses plus 16 MiB. Run plain by pctenc-capi/ci.sh, against libpctenc.a and
 * libpctenc.so: not under AddressSanitizer or Valgrind, whose own allocators and shadow
 * memory do not live within such a limit. Exit status 0 when every check passes.
 */
#define _GNU_SOURCE
#include "pctenc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct seen {
    int pairs;
    size_t value_len;
};

static int count(void *user, const uint8_t *name, size_t name_len, const uint8_t *value, size_t value_len) {
    struct seen *s = user;
    (void)name;
    (void)name_len;
    (void)value;
    s->pairs++;
    s->value_len = value_len;
    return 0;
}

int main(void) {
    /* "a=%41&v=%41%41..." : the first pair is small, the second decodes to `big` bytes. */
    const size_t big = 40u << 20; /* above glibc's largest mmap threshold, so freed at once */
    const char head[] = "a=%41&v=";
    size_t len = sizeof head - 1 + 3 * big;
    uint8_t *body = malloc(len);
    if (body == NULL) return 2;
    memcpy(body, head, sizeof head - 1);
    for (size_t i = 0; i < big; i++) memcpy(body + sizeof head - 1 + 3 * i, "%41", 3);

    int failed = 0;
    struct seen s = {0, 0};
    pctenc_error err;
    pctenc_status st = pctenc_form_parse(body, len, count, &s, &err);
    if (st != PCTENC_OK || s.pairs != 2 || s.value_len != big) {
        fprintf(stderr, "oom.c: without a limit: status %d, %d pairs, value of %zu bytes\n", st, s.pairs, s.value_len);
        failed = 1;
    }

    /* What the process maps now, plus 16 MiB: less than the 40 MiB the value needs. */
    FILE *statm = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (statm == NULL || fscanf(statm, "%lu", &pages) != 1) return 2;
    fclose(statm);
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (16u << 20);
    if (setrlimit(RLIMIT_AS, &limit) != 0) return 2;

    s.pairs = 0;
    err.offset = 12345;
    st = pctenc_form_parse(body, len, count, &s, &err);
    if (st != PCTENC_OUT_OF_MEMORY || err.status != st || err.kind != PCTENC_KIND_OUT_OF_MEMORY ||
        err.offset != 6 || s.pairs != 1) {
        fprintf(stderr, "oom.c: limited: status %d kind %d offset %zu, %d pairs\n", st, err.kind, err.offset, s.pairs);
        failed = 1;
    }
    free(body);
    printf("pctenc out-of-memory test: %s\n", failed ? "FAILED" : "ok");
    return failed;
}
