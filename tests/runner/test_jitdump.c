/*
 * test_jitdump.c - jitdump parsing (runner/jitdump.h) on dumps built byte
 * by byte as tools/perf/util/jitdump.h lays them out: code loads named,
 * code moves following their code_index, the later of two loads at one
 * address winning, the writer's byte order taken from the magic, debug
 * records skipped, CODE_CLOSE ending the file; and hostile input:
 * truncated at every length, corrupted at every byte, a name without its
 * NUL, an unknown version, a file that is no jitdump. Never a crash, always
 * a message, the symbols before a problem kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/jitdump.h"
#include "runner/jitmap.h"

struct dump {
        uint8_t b[4096];
        size_t n;
        bool big; /* write big-endian (a writer of the other byte order) */
};

static void put(struct dump *d, const void *p, size_t n)
{
        assert_true(d->n + n <= sizeof(d->b));
        memcpy(d->b + d->n, p, n);
        d->n += n;
}

static void put32(struct dump *d, uint32_t v)
{
        if (d->big)
                v = __builtin_bswap32(v);
        put(d, &v, 4);
}

static void put64(struct dump *d, uint64_t v)
{
        if (d->big)
                v = __builtin_bswap64(v);
        put(d, &v, 8);
}

static void header(struct dump *d)
{
        put32(d, PG_JITDUMP_MAGIC);
        put32(d, 1);
        put32(d, 40);
        put32(d, 62); /* EM_X86_64 */
        put32(d, 0);
        put32(d, 4242);
        put64(d, 1000);
        put64(d, 0);
}

static void load(struct dump *d, const char *name, uint64_t addr, uint64_t size, uint64_t index)
{
        size_t nlen = strlen(name) + 1;
        uint8_t code[64];

        memset(code, 0x90, sizeof(code));
        assert_true(size <= sizeof(code));
        put32(d, 0);
        put32(d, (uint32_t) (56 + nlen + size));
        put64(d, 2000);
        put32(d, 4242);
        put32(d, 4243);
        put64(d, addr);
        put64(d, addr);
        put64(d, size);
        put64(d, index);
        put(d, name, nlen);
        put(d, code, size);
}

static void move(struct dump *d, uint64_t from, uint64_t to, uint64_t size, uint64_t index)
{
        put32(d, 1);
        put32(d, 64);
        put64(d, 3000);
        put32(d, 4242);
        put32(d, 4243);
        put64(d, to);
        put64(d, from);
        put64(d, to);
        put64(d, size);
        put64(d, index);
}

/* A debug-info record (id 2): an address, a count of entries, one entry. */
static void debug_info(struct dump *d)
{
        put32(d, 2);
        put32(d, 16 + 16 + 16 + 8);
        put64(d, 2500);
        put64(d, 0x1000);
        put64(d, 1);
        put64(d, 0x1000);
        put32(d, 7);
        put32(d, 0);
        put(d, "f.c\0\0\0\0\0", 8);
}

static const char *name_at(const struct pg_jitmap *m, uint64_t addr)
{
        const struct pg_jitsym *s = pg_jitmap_lookup(m, addr);

        return s ? s->name : NULL;
}

static void build_good(struct dump *d)
{
        header(d);
        load(d, "jit_a", 0x1000, 16, 1);
        debug_info(d);
        load(d, "jit_b", 0x2000, 32, 2);
        move(d, 0x2000, 0x3000, 32, 2);
        load(d, "jit_c", 0x1000, 8, 3); /* reuses jit_a's start: the later load names it */
}

static void check_good(const struct pg_jitmap *m)
{
        assert_string_equal(name_at(m, 0x1000), "jit_c");
        assert_string_equal(name_at(m, 0x1007), "jit_c");
        assert_string_equal(name_at(m, 0x1008), "jit_a"); /* past jit_c's 8 bytes */
        assert_null(name_at(m, 0x1010));
        assert_string_equal(name_at(m, 0x2000), "jit_b");
        assert_string_equal(name_at(m, 0x301f), "jit_b"); /* moved code keeps its name */
        assert_null(name_at(m, 0x3020));
        assert_null(name_at(m, 0xfff));
}

static void test_good(void **state)
{
        struct dump d = { 0 };
        struct pg_jitmap m = { 0 };

        (void) state;
        build_good(&d);
        assert_int_equal(pg_jitdump_parse(&m, d.b, d.n), 0);
        assert_int_equal(m.n, 4);
        check_good(&m);
        pg_jitmap_release(&m);
}

static void test_big_endian_writer(void **state)
{
        struct dump d = { .big = true };
        struct pg_jitmap m = { 0 };

        (void) state;
        build_good(&d);
        assert_int_equal(pg_jitdump_parse(&m, d.b, d.n), 0);
        check_good(&m);
        pg_jitmap_release(&m);
}

static void test_close_ends(void **state)
{
        struct dump d = { 0 };
        struct pg_jitmap m = { 0 };

        (void) state;
        header(&d);
        load(&d, "before", 0x1000, 16, 1);
        put32(&d, 3); /* JIT_CODE_CLOSE */
        put32(&d, 16);
        put64(&d, 4000);
        put(&d, "garbage after close", 19);
        assert_int_equal(pg_jitdump_parse(&m, d.b, d.n), 0);
        assert_int_equal(m.n, 1);
        assert_string_equal(name_at(&m, 0x1000), "before");
        pg_jitmap_release(&m);
}

/* Cut at every length: the loads that fit whole are kept, and every cut
 * that is not at a record boundary is reported as truncated. */
static void test_truncated_everywhere(void **state)
{
        struct dump d = { 0 };
        size_t first_load_end;

        (void) state;
        header(&d);
        load(&d, "jit_a", 0x1000, 16, 1);
        first_load_end = d.n;
        load(&d, "jit_b", 0x2000, 32, 2);
        for (size_t len = 0; len <= d.n; len++) {
                struct pg_jitmap m = { 0 };
                int rc = pg_jitdump_parse(&m, d.b, len);

                if (len == 40 || len == first_load_end || len == d.n) {
                        assert_int_equal(rc, 0);
                } else {
                        assert_int_equal(rc, PG_EINPUT);
                        assert_non_null(
                            strstr(pg_error_last(), len < 32 ? "not a jitdump" : "truncated"));
                }
                if (len >= first_load_end)
                        assert_string_equal(name_at(&m, 0x1000), "jit_a");
                else
                        assert_int_equal(m.n, 0);
                pg_jitmap_release(&m);
        }
}

/* Every byte replaced by several values: parsing ends, with or without a
 * message, and whatever is named has a name (AddressSanitizer checks the
 * reads in the sanitizer build). */
static void test_corrupt_everywhere(void **state)
{
        static const uint8_t vals[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
        struct dump d = { 0 };

        (void) state;
        build_good(&d);
        for (size_t i = 0; i < d.n; i++) {
                for (size_t v = 0; v < sizeof(vals); v++) {
                        uint8_t *copy = malloc(d.n);
                        struct pg_jitmap m = { 0 };

                        memcpy(copy, d.b, d.n);
                        copy[i] = vals[v];
                        (void) pg_jitdump_parse(&m, copy, d.n);
                        for (size_t k = 0; k < m.n; k++)
                                assert_non_null(m.syms[k].name);
                        pg_jitmap_release(&m);
                        free(copy);
                }
        }
}

static void test_bad_headers(void **state)
{
        struct dump d = { 0 };
        struct pg_jitmap m = { 0 };
        uint32_t v;

        (void) state;
        header(&d);
        v = 2; /* version */
        memcpy(d.b + 4, &v, 4);
        assert_int_equal(pg_jitdump_parse(&m, d.b, d.n), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "version 2"));
        v = 1;
        memcpy(d.b + 4, &v, 4);
        v = 4000; /* header size past the end */
        memcpy(d.b + 8, &v, 4);
        assert_int_equal(pg_jitdump_parse(&m, d.b, d.n), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "header claims 4000"));
        assert_int_equal(pg_jitdump_parse(&m, "ELF\x7f and more bytes than a header has!", 40),
                         PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "not a jitdump"));
        assert_int_equal(m.n, 0);
        pg_jitmap_release(&m);
}

static void test_name_without_nul(void **state)
{
        struct dump d = { 0 };
        struct pg_jitmap m = { 0 };

        (void) state;
        header(&d);
        load(&d, "ok", 0x1000, 0, 1);
        put32(&d, 0);
        put32(&d, 56 + 4);
        put64(&d, 2000);
        for (int i = 0; i < 5; i++)
                put64(&d, 0x5000);
        put(&d, "abcd", 4); /* no NUL before the record ends */
        assert_int_equal(pg_jitdump_parse(&m, d.b, d.n), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "no complete name"));
        assert_int_equal(m.n, 1);
        pg_jitmap_release(&m);
}

static void test_names_and_files(void **state)
{
        char path[] = "/tmp/pg-jitdump-XXXXXX";
        struct dump d = { 0 };
        struct pg_jitmap m = { 0 };
        int fd;

        (void) state;
        assert_true(pg_jitdump_is_dump_name("/home/u/.debug/jit/java-jit-1/jit-123.dump", 42));
        assert_true(pg_jitdump_is_dump_name("jit-1.dump", 10));
        assert_false(pg_jitdump_is_dump_name("/tmp/jit-.dump", 14));
        assert_false(pg_jitdump_is_dump_name("/tmp/jit-12.dumpx", 17));
        assert_false(pg_jitdump_is_dump_name("/tmp/jit-1a.dump", 16));
        assert_false(pg_jitdump_is_dump_name("/tmp/xjit-1.dump", 16));
        assert_false(pg_jitdump_is_dump_name("/tmp/jit-1.dump/x", 17));
        build_good(&d);
        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, d.b, d.n), (ssize_t) d.n);
        close(fd);
        assert_int_equal(pg_jitdump_load(&m, path), 0);
        check_good(&m);
        pg_jitmap_release(&m);
        unlink(path);
        assert_int_equal(pg_jitdump_load(&m, path), PG_EIO);
        assert_non_null(strstr(pg_error_last(), path));
        assert_int_equal(pg_jitdump_load(&m, "/tmp"), PG_EIO); /* a directory */
        assert_non_null(strstr(pg_error_last(), "not a regular file"));
        pg_jitmap_release(&m);
}

/* Overlapping loads: the later one names the address whatever the starts
 * (an earlier small load inside a later big one), and an entry covering the
 * address is found however many later-starting entries lie in between. */
static void test_overlap_later_wins(void **state)
{
        struct pg_jitmap m = { 0 };
        char name[32];
        (void) state;

        pg_jitmap_add(&m, 0x1000, 0x40, "old_small", 9);
        pg_jitmap_add(&m, 0x0, 0x10000, "new_big_later", 13);
        pg_jitmap_sort(&m);
        assert_string_equal(name_at(&m, 0x1010), "new_big_later");
        assert_string_equal(name_at(&m, 0x20), "new_big_later");
        assert_null(name_at(&m, 0x10000));
        pg_jitmap_release(&m);

        memset(&m, 0, sizeof(m));
        pg_jitmap_add(&m, 0x100000, 0x20000, "big_region", 10);
        for (int i = 0; i < 100; i++) {
                int n = snprintf(name, sizeof(name), "stub_%d", i);
                pg_jitmap_add(&m, 0x100100 + 8 * (uint64_t) i, 8, name, (size_t) n);
        }
        pg_jitmap_sort(&m);
        assert_string_equal(name_at(&m, 0x108000), "big_region");
        assert_string_equal(name_at(&m, 0x100108), "stub_1"); /* later than big_region */
        assert_null(name_at(&m, 0x0ffff0));
        pg_jitmap_release(&m);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_good),
                cmocka_unit_test(test_big_endian_writer),
                cmocka_unit_test(test_close_ends),
                cmocka_unit_test(test_truncated_everywhere),
                cmocka_unit_test(test_corrupt_everywhere),
                cmocka_unit_test(test_bad_headers),
                cmocka_unit_test(test_name_without_nul),
                cmocka_unit_test(test_names_and_files),
                cmocka_unit_test(test_overlap_later_wins),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
