/*
 * test_self_scan.c - the function scan (pg_profile_funcs_scan, and its
 * _paths form) finds each stack's self frame from the frame ends it has
 * already found, not with pg_frame_self() over the key again; here both
 * must agree on random stacks mixing inlined ("_[i]"), kernel, JIT and
 * plain frames, names that only look annotated ("x_[i]y", "[i]") and
 * recursion: every function's self and inclusive samples, which stack is
 * its hottest (those it is the self of first, then the most samples, the
 * first on a tie) and heaviest, and the function ids of every stack's frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "baselines/result.h"
#include "common/buf.h"
#include "compare/profile.h"
#include "tests/util/testutil.h"

static const char *const vocab[] = { "main",   "f",   "g_[i]",    "h_[i]",   "_[i]",
                                     "x_[i]y", "[i]", "read_[k]", "jit_[j]", "f_[i]" };
#define NVOCAB (sizeof(vocab) / sizeof(vocab[0]))

/* The frame of @stack from byte @b to the next ';' or the end, as an index
 * in vocab (the generator's names only). */
static size_t word(const char *stack, size_t b)
{
        size_t len = strcspn(stack + b, ";");

        for (size_t v = 0; v < NVOCAB; v++)
                if (strlen(vocab[v]) == len && memcmp(vocab[v], stack + b, len) == 0)
                        return v;
        fail_msg("frame '%.*s' is not one of the generator's", (int) len, stack + b);
        return 0;
}

struct expect {
        uint64_t self, incl;
        bool seen, repeats, hot_is_self;
        size_t hot, heavy;
        uint64_t hot_count, heavy_count;
};

static void check_round(unsigned seed)
{
        struct pg_buf text = PG_BUF_INIT;
        struct pg_profile p;
        struct pg_profile_funcs pf, paths;
        struct expect ex[NVOCAB];

        srand(seed);
        for (int s = 0, n = 1 + rand() % 200; s < n; s++) {
                pg_buf_puts(&text, "comm");
                for (int d = 0, depth = 1 + rand() % 7; d < depth; d++)
                        pg_buf_printf(&text, ";%s", vocab[(size_t) rand() % NVOCAB]);
                pg_buf_printf(&text, " %d\n", 1 + rand() % 9);
        }
        pg_test_profile_from_folded(&p, text.ptr, "cpu-clock");
        memset(ex, 0, sizeof(ex));
        for (size_t si = 0; si < p.nstacks; si++) {
                const char *k = p.stacks[si].frames;
                uint64_t c = p.stacks[si].count;
                size_t len, at = pg_frame_self(k, strlen(k), &len);
                size_t self = word(k, at);
                bool in[NVOCAB] = { false };

                ex[self].self += c;
                for (const char *f = strchr(k, ';'); f; f = strchr(f + 1, ';')) {
                        size_t v = word(k, (size_t) (f + 1 - k));
                        bool is_self = (size_t) (f + 1 - k) == at;
                        struct expect *e = &ex[v];

                        if (in[v]) {
                                e->repeats = true;
                                continue;
                        }
                        in[v] = true;
                        e->incl += c;
                        if (!e->seen || (is_self && !e->hot_is_self) ||
                            (is_self == e->hot_is_self && c > e->hot_count)) {
                                e->hot = si;
                                e->hot_count = c;
                                e->hot_is_self = is_self;
                        }
                        if (!e->seen || c > e->heavy_count) {
                                e->heavy = si;
                                e->heavy_count = c;
                        }
                        e->seen = true;
                }
        }
        pg_profile_funcs_scan(&pf, &p);
        pg_profile_funcs_scan_paths(&paths, &p);
        for (size_t i = 0; i < pf.names.n; i++) {
                size_t v = word(pf.names.keys[i].ptr, 0);
                const struct pg_profile_func *f = &pf.funcs[i], *g = &paths.funcs[i];

                if (f->self != ex[v].self || f->incl != ex[v].incl || g->self != f->self ||
                    g->incl != f->incl)
                        fail_msg("seed %u, %s: self %llu (expected %llu), incl %llu (%llu)", seed,
                                 vocab[v], (unsigned long long) f->self,
                                 (unsigned long long) ex[v].self, (unsigned long long) f->incl,
                                 (unsigned long long) ex[v].incl);
                assert_int_equal(f->heavy_stack, ex[v].heavy);
                /* with recursion, the hottest stack is judged at its first
                 * occurrence: only functions met once per stack are compared */
                if (!ex[v].repeats) {
                        assert_int_equal(f->hot_stack, ex[v].hot);
                        assert_int_equal(f->hot_is_self, ex[v].hot_is_self);
                }
        }
        /* the ids of every stack's frames, root first, without the comm */
        for (size_t si = 0; si < p.nstacks; si++) {
                const char *k = p.stacks[si].frames;
                size_t j = paths.starts[si];

                for (const char *f = strchr(k, ';'); f; f = strchr(f + 1, ';'), j++) {
                        size_t len = strcspn(f + 1, ";");

                        assert_true(j < paths.starts[si + 1]);
                        assert_int_equal(strlen(paths.names.keys[paths.ids[j]].ptr), len);
                        assert_memory_equal(paths.names.keys[paths.ids[j]].ptr, f + 1, len);
                }
                assert_int_equal(j, paths.starts[si + 1]);
        }
        pg_profile_funcs_release(&pf);
        pg_profile_funcs_release(&paths);
        pg_test_profile_free(&p);
        pg_buf_release(&text);
}

static void test_scan_self_matches_frame_self(void **state)
{
        (void) state;
        for (unsigned seed = 1; seed <= 300; seed++)
                check_round(seed);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_scan_self_matches_frame_self),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
