/*
 * test_offcpu.c - off-CPU profiles end to end under real perf events: a
 * benchmark whose four threads contend on one mutex
 * (tests/fixtures/offcpu/contend.c), run with a short hold (base) and a
 * hold five times longer (head). `run --off-cpu` stores where threads
 * blocked, heaviest in update_table > pthread_mutex_lock; `show` lists that
 * path; `flamegraph --off-cpu` draws it in the io palette; `compare` fails
 * head (exit 1) naming the path, while the same results without their
 * off-CPU profiles give no on-CPU hotspot or gate that names it. An
 * unprivileged user at kernel.perf_event_paranoid 2 gets a warning that
 * says why there is no off-CPU profile, and the rest of the result.
 * Judged on names and shapes, never on speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

#define PG_CONTENDED "update_table > pthread_mutex_lock"

static const char *pg_sb;

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

/* perfgate run --off-cpu of contend HOLD_US into DIR (results in DIR/res). */
static void pg_run_contend(const char *dir, const char *hold_us)
{
        char *cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"contend\", \"argv\": [\"%s\", "
                                 "\"%s\"], \"off_cpu\": true}]}\n",
                                 pg_test_fixture("offcpu_contend"), hold_us);
        char *res = pg_xasprintf("%s/res", dir), *path = pg_path_join(dir, "perfgate.json");
        struct pg_run_out o;

        assert_int_equal(pg_mkdir_p(dir), 0);
        pg_test_write(path, cfg);
        free(path);
        pg_test_perfgate(&o, "run", "--repeat", "3", "--warmup", "0", "--min-samples", "100",
                         "--out", res, dir, NULL);
        if (o.status != 0)
                fail_msg("run %s: exit %d: %s", dir, o.status, o.err.ptr);
        /* the off-CPU runs, a fixed number, say where they are */
        pg_assert_has(o.err.ptr, "benchmark 1/1 contend, off-CPU run 1/3 done");
        pg_assert_has(o.err.ptr, "benchmark 1/1 contend, off-CPU run 3/3 done");
        pg_run_out_release(&o);
        free(res);
        free(cfg);
}

/* The heaviest blocking path of @r's off-CPU profile contains @want. */
static void pg_assert_heaviest_blocking(const struct pg_result *r, const char *want)
{
        const struct pg_stack *top = NULL;
        assert_true(r->offcpu.present);
        assert_string_equal(r->offcpu.event, "context-switches");
        assert_true(r->offcpu.samples > 0);
        for (size_t i = 0; i < r->offcpu.nstacks; i++)
                if (!top || r->offcpu.stacks[i].count > top->count)
                        top = &r->offcpu.stacks[i];
        if (!strstr(top->frames, want))
                fail_msg("heaviest off-CPU stack is %s", top->frames);
}

/* Copy a result without its off-CPU profile (the on-CPU view alone). */
static void pg_strip_offcpu(const char *from, const char *to_dir)
{
        struct pg_result r;
        char *to = pg_path_join(to_dir, "contend.json");

        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, from), 0);
        pg_profile_release(&r.offcpu);
        assert_int_equal(pg_mkdir_p(to_dir), 0);
        assert_int_equal(pg_result_save(&r, to), 0);
        pg_result_release(&r);
        free(to);
}

static void test_offcpu_names_the_contended_lock(void **state)
{
        struct pg_run_out o;
        struct pg_result head;
        cJSON *v, *benches, *b, *hot, *items, *it;
        char *json;
        (void) state;

        pg_sb = pg_test_sandbox();
        pg_run_contend("base", "200");
        pg_run_contend("head", "1000");

        pg_result_init(&head);
        assert_int_equal(pg_result_load(&head, "head/res/contend.json"), 0);
        assert_true(head.profile.present); /* the on-CPU profile is there too */
        pg_strip_offcpu("head/res/contend.json", "head-oncpu");
        pg_assert_heaviest_blocking(&head, "update_table;pthread_mutex_lock");
        pg_result_release(&head);

        /* show lists the path */
        pg_test_perfgate(&o, "show", "head/res/contend.json", NULL);
        assert_int_equal(o.status, 0);
        pg_assert_has(o.out.ptr, "Top blocking paths");
        pg_assert_has(o.out.ptr, PG_CONTENDED);
        pg_run_out_release(&o);

        /* the off-CPU flame graph */
        pg_test_perfgate(&o, "flamegraph", "--off-cpu", "head/res/contend.json", "-o", "off.svg",
                         NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        json = pg_test_read("off.svg");
        pg_assert_has(json, "Off-CPU Time Flame Graph");
        pg_assert_has(json, "<title>update_table (");
        pg_assert_has(json, " ns, ");
        free(json);

        /* compare flags head and names the lock's caller */
        pg_test_perfgate(&o, "compare", "./base/res", "--results", "head/res", "--markdown", "c.md",
                         NULL);
        if (o.status != 1)
                fail_msg("compare: exit %d, want 1:\n%s\n%s", o.status, o.out.ptr, o.err.ptr);
        pg_assert_has(o.out.ptr, "Off-CPU changes");
        pg_assert_has(o.out.ptr, "regressed\n      in ");
        pg_assert_has(o.out.ptr, PG_CONTENDED);
        pg_run_out_release(&o);
        json = pg_test_read("c.md"); /* the PR/MR comment names it too */
        pg_assert_has(json, "#### Off-CPU time (ms blocked per run)");
        pg_assert_has(json, "update&#95;table &gt; pthread&#95;mutex&#95;lock");
        free(json);

        /* the on-CPU profile alone: no hotspot or off-CPU entry names it */
        pg_strip_offcpu("base/res/contend.json", "base-oncpu");
        pg_test_perfgate(&o, "compare", "./base-oncpu", "--results", "head-oncpu", "--json",
                         "v.json", NULL);
        assert_true(o.status == 0 || o.status == 1);
        assert_null(strstr(o.out.ptr, "Off-CPU changes"));
        pg_run_out_release(&o);
        json = pg_test_read("v.json");
        v = cJSON_Parse(json);
        assert_non_null(v);
        benches = cJSON_GetObjectItem(v, "benchmarks");
        b = cJSON_GetArrayItem(benches, 0);
        assert_null(cJSON_GetObjectItem(b, "offcpu"));
        hot = cJSON_GetObjectItem(b, "hotspots");
        items = hot ? cJSON_GetObjectItem(hot, "functions") : NULL;
        assert_non_null(items);
        cJSON_ArrayForEach(it, items)
        {
                const char *fn = cJSON_GetStringValue(cJSON_GetObjectItem(it, "function"));
                const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(it, "kind"));
                if (fn && kind && strcmp(kind, "regressed") == 0 &&
                    (strstr(fn, "update_table") || strstr(fn, "pthread_mutex_lock")))
                        fail_msg("the on-CPU hotspots name the lock: %s", fn);
        }
        cJSON_Delete(v);
        free(json);
        pg_test_sandbox_remove();
}

static void test_offcpu_unprivileged_says_why(void **state)
{
        struct pg_run_out o;
        struct pg_result r;
        char *prog, *cfg;
        (void) state;

        if (!pg_test_can_be_nobody() || pg_test_paranoid() < 2) {
                skip(); /* needs root to drop privileges, and paranoid >= 2 to refuse */
                return;
        }
        pg_sb = pg_test_sandbox();
        chmod(pg_sb, 0777);
        prog = pg_test_copy_program(pg_test_fixture("offcpu_contend"), pg_sb);
        cfg =
            pg_xasprintf("{\"benchmarks\": [{\"name\": \"contend\", \"argv\": [\"%s\"]}]}\n", prog);
        pg_test_write("perfgate.json", cfg);
        chmod("perfgate.json", 0644);
        {
                char *argv[] = { (char *) pg_test_env("PERFGATE_BIN"),
                                 "run",
                                 "--repeat",
                                 "2",
                                 "--warmup",
                                 "0",
                                 "--no-profile",
                                 "--off-cpu",
                                 ".",
                                 NULL };
                pg_test_run_as_nobody(&o, argv);
        }
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "no off-CPU profile stored");
        pg_assert_has(o.err.ptr, "kernel.perf_event_paranoid");
        pg_assert_has(o.err.ptr, "CAP_PERFMON");
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, ".perfgate/results/contend.json"), 0);
        assert_false(r.offcpu.present);
        assert_non_null(pg_result_find_metric(&r, "task-clock"));
        pg_result_release(&r);
        pg_run_out_release(&o);
        free(cfg);
        free(prog);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_offcpu_names_the_contended_lock),
                cmocka_unit_test(test_offcpu_unprivileged_says_why),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
