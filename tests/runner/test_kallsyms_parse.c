/*
 * test_kallsyms_parse.c - runner/kallsyms.h reads the kernel's own
 * /proc/kallsyms (and hand-made tables with its edge cases) as a plain
 * sscanf reader does: for every text symbol (t, T, w, W) the lookup at its
 * address names the last text symbol at that address in file order, one
 * byte below it names the symbol before, and data symbols are left out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/kallsyms.h"
#include "tests/util/testutil.h"

struct ref {
        uint64_t addr;
        size_t line;
        char name[256];
};

static int ref_cmp(const void *a, const void *b)
{
        const struct ref *x = a, *y = b;

        if (x->addr != y->addr)
                return x->addr < y->addr ? -1 : 1;
        return (x->line > y->line) - (x->line < y->line);
}

/* The text symbols of @path by sscanf, sorted by (address, line). */
static struct ref *ref_load(const char *path, size_t *n)
{
        FILE *f = fopen(path, "r");
        char line[1024];
        struct ref *v = NULL;
        size_t cap = 0, ln = 0;

        *n = 0;
        assert_non_null(f);
        while (fgets(line, sizeof(line), f) != NULL) {
                unsigned long long a;
                char type, name[256];

                ln++;
                if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 ||
                    strchr("tTwW", type) == NULL)
                        continue;
                if (*n == cap) {
                        cap = cap ? cap * 2 : 4096;
                        v = realloc(v, cap * sizeof(*v));
                        assert_non_null(v);
                }
                v[*n].addr = a;
                v[*n].line = ln;
                snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
                (*n)++;
        }
        fclose(f);
        qsort(v, *n, sizeof(*v), ref_cmp);
        return v;
}

/* Every symbol of @path looked up as the reference reader says; returns how many. */
static size_t check_table(const char *path)
{
        struct pg_kallsyms k;
        size_t n, checked = 0;
        struct ref *r = ref_load(path, &n);

        pg_kallsyms_load(&k, path);
        assert_int_equal(k.n, n);
        for (size_t i = 0; i < n; i++) {
                const char *got;

                if (i + 1 < n && r[i + 1].addr == r[i].addr)
                        continue; /* the last at an address names it */
                got = pg_kallsyms_lookup(&k, r[i].addr);
                assert_non_null(got);
                if (strcmp(got, r[i].name) != 0)
                        fail_msg("%s: %#llx: %s, expected %s", path, (unsigned long long) r[i].addr,
                                 got, r[i].name);
                if (i > 0 && r[i - 1].addr < r[i].addr && r[i].addr > 0) {
                        size_t j = i - 1;

                        got = pg_kallsyms_lookup(&k, r[i].addr - 1);
                        assert_non_null(got);
                        assert_string_equal(got, r[j].name);
                }
                checked++;
        }
        pg_kallsyms_release(&k);
        free(r);
        return checked;
}

/* modules after the kernel, out of order; aliases; data; no final newline */
static const char edge_table[] = "ffffffff81000000 T _stext\n"
                                 "ffffffff81000000 T startup_64\n"
                                 "ffffffff81000040 d some_data\n"
                                 "ffffffff81000100 t helper\n"
                                 "ffffffff81000200 W weak_fn\n"
                                 "ffffffffc0200000 t mod_b_fn\t[mod_b]\n"
                                 "ffffffffc0100000 t mod_a_fn\t[mod_a]\n"
                                 "ffffffffc0100000 T mod_a_alias\t[mod_a]\n"
                                 "garbage line\n"
                                 "ffffffffc0300000 w last_fn";

/* @text written to a file in a fresh sandbox; its path (static). */
static const char *table_file(const char *text)
{
        static char path[4096];

        snprintf(path, sizeof(path), "%s/kallsyms", pg_test_sandbox());
        pg_test_write(path, text);
        return path;
}

static void test_edge_cases(void **state)
{
        const char *path = table_file(edge_table);
        struct pg_kallsyms k;
        static const struct {
                uint64_t addr;
                const char *name;
        } want[] = { { 0xffffffff81000050, "startup_64" },
                     { 0xffffffffc0100010, "mod_a_alias" },
                     { 0xffffffffc0300010, "last_fn" } };

        (void) state;
        assert_int_equal(check_table(path), 6);
        pg_kallsyms_load(&k, path);
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
                assert_string_equal(pg_kallsyms_lookup(&k, want[i].addr), want[i].name);
        pg_kallsyms_release(&k);
        pg_test_sandbox_remove();
}

static void test_live_kallsyms(void **state)
{
        struct pg_kallsyms k;
        const char *path;
        char *text;

        (void) state;
        pg_kallsyms_load(&k, "/proc/kallsyms");
        if (!pg_kallsyms_visible(&k)) {
                pg_kallsyms_release(&k);
                skip(); /* addresses hidden from this user (kptr_restrict) */
        }
        pg_kallsyms_release(&k);
        /* the file can change between the two reads (modules, BPF): copy it */
        text = pg_test_read("/proc/kallsyms");
        path = table_file(text);
        free(text);
        assert_true(check_table(path) > 1000);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_edge_cases),
                                            cmocka_unit_test(test_live_kallsyms) };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
