/*
 * test_perms.c - what perfgate measures and says under real privileges.
 * A benchmark that leaves a setsid'd daemon behind: the daemon is killed
 * when the benchmark exits, its CPU time until then is in task-clock (the
 * daemon reports the CPU it used; task-clock is at least that, while the
 * benchmark's own rusage is far below it), and run says so, naming the
 * benchmark. An unprivileged user with a copy of perfgate that carries
 * cap_perfmon alone: kallsyms shows it zero addresses, so doctor warns and
 * run warns once that kernel frames are not named; with cap_syslog added
 * both are silent and the profile has kernel frames. perf_event_open
 * refused by a library standing in for a seccomp profile: run and doctor
 * blame that, not the sysctl. kernel.perf_event_paranoid reading 3 (a
 * private mount namespace binds a file over it) on this kernel, which has
 * no distribution patch and so treats 3 as 2: doctor judges by its probe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

#define PG_NOT_NAMED "kernel frames are not named"

static const char *pg_sb;

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

static void pg_assert_lacks(const char *hay, const char *needle)
{
        if (strstr(hay, needle))
                fail_msg("'%s' unexpectedly in:\n%s", needle, hay);
}

static size_t pg_count(const char *hay, const char *needle)
{
        size_t n = 0;
        for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
                n++;
        return n;
}

/* The values of @metric in the result at @path (@n of them, in @v). */
static void pg_values(const char *path, const char *metric, double *v, size_t n)
{
        struct pg_result r;
        const struct pg_metric *m;

        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, path), 0);
        m = pg_result_find_metric(&r, metric);
        assert_non_null(m);
        assert_int_equal(m->nvalues, n);
        memcpy(v, m->values, n * sizeof(double));
        pg_result_release(&r);
}

static void test_daemon_left_behind_is_said(void **state)
{
        struct pg_run_out o;
        char *cfg, *d = NULL, *w = NULL;
        int pid;
        long long cpu_ns, wcpu;
        double tc[3], ut[3], st[3];
        (void) state;

        pg_test_sandbox();
        cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"daemon\", \"argv\": [\"%s\", "
                           "\"d.txt\"]}, {\"name\": \"waits\", \"argv\": [\"%s\", \"w.txt\", "
                           "\"wait\"]}]}\n",
                           pg_test_fixture("perms_daemonize"), pg_test_fixture("perms_daemonize"));
        pg_test_write("perfgate.json", cfg);
        pg_test_perfgate(&o, "run", "--repeat", "3", "--warmup", "0", "--no-profile", ".", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "daemon: 1 process it started was still running when it exited "
                                 "(in 3 of 3 runs) and was killed then; its CPU time until then "
                                 "is counted in its task-clock");
        pg_assert_has(o.err.ptr, "docs/run.md");
        assert_int_equal(pg_count(o.err.ptr, "still running when it exited"), 1);
        /* waits reaps its child: no leftover warning for it (it may get
         * others, e.g. for a median task-clock under 50 ms) */
        pg_assert_lacks(o.err.ptr, "waits: 1 process");

        /* the daemon of the last run: gone (killed and reaped), and its CPU
         * time is inside the last task-clock value but not in the
         * benchmark's own rusage (wait4 counts only waited-for children) */
        d = pg_test_read("d.txt");
        assert_int_equal(sscanf(d, "%d %lld", &pid, &cpu_ns), 2);
        assert_true(cpu_ns > 0);
        errno = 0;
        assert_int_equal(kill(pid, 0), -1);
        assert_int_equal(errno, ESRCH);
        pg_values(".perfgate/results/daemon.json", "task-clock", tc, 3);
        pg_values(".perfgate/results/daemon.json", "user-time", ut, 3);
        pg_values(".perfgate/results/daemon.json", "system-time", st, 3);
        if (tc[2] < (double) cpu_ns)
                fail_msg("task-clock %.0f ns < the daemon's own %lld ns", tc[2], cpu_ns);
        if (ut[2] + st[2] >= (double) cpu_ns / 2)
                fail_msg("rusage %.0f ns counts the daemon (%lld ns)", ut[2] + st[2], cpu_ns);
        /* waited for: counted as well, and nothing to say */
        w = pg_test_read("w.txt");
        assert_int_equal(sscanf(w, "%d %lld", &pid, &wcpu), 2);
        pg_values(".perfgate/results/waits.json", "task-clock", tc, 3);
        assert_true(tc[2] >= (double) wcpu);
        free(d);
        free(w);
        free(cfg);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* The check @name of `doctor --json` output @json: its status and, in
 * @field (may be NULL), a copy of that field. */
static char *pg_doctor_check(const char *json, const char *name, const char *field, char **fval)
{
        cJSON *root = cJSON_Parse(json), *c;
        char *status = NULL;

        assert_non_null(root);
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "checks"))
        {
                const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
                if (n && strcmp(n, name) == 0) {
                        const char *v;
                        status = pg_xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")));
                        if (field) {
                                v = cJSON_GetStringValue(cJSON_GetObjectItem(c, field));
                                *fval = pg_xstrdup(v ? v : "");
                        }
                }
        }
        cJSON_Delete(root);
        if (!status)
                fail_msg("no check '%s' in:\n%s", name, json);
        return status;
}

/* Whether /proc/kallsyms shows uid 65534 (running @prog's capabilities are
 * not involved: a plain head(1)) a non-zero first address. */
static bool pg_kallsyms_shown_to(const char *sh_prog)
{
        struct pg_run_out o;
        char *argv[] = { (char *) sh_prog, NULL };
        bool shown;

        pg_test_run_as_nobody(&o, argv);
        assert_int_equal(o.status, 0);
        shown = strtoull(o.out.ptr, NULL, 16) != 0;
        pg_run_out_release(&o);
        return shown;
}

static long pg_kptr_restrict(void)
{
        char *s = pg_test_read("/proc/sys/kernel/kptr_restrict");
        long v = s ? strtol(s, NULL, 10) : 2;
        free(s);
        return v;
}

/* Give the copy of perfgate @pg the file capabilities @caps, then run
 * `doctor` and `run` with it as uid 65534 (@kw: the sandbox's copy of
 * perms_kernelwork, which that user can reach): with @named (cap_syslog among
 * them) kallsyms shows addresses, doctor's check is ok, run says nothing
 * and the profile has kernel frames under read(); without, doctor warns
 * with the cap_syslog fix, run warns once (two benchmarks), so does record,
 * and the profile has no kernel frame. Either way the kernel is counted. */
static void pg_cap_case(const char *pg, const char *kw, const char *caps, bool named)
{
        char *cmd = pg_xasprintf("setcap %s+ep '%s'", caps, pg), *st, *value = NULL;
        char *doctor[] = { (char *) pg, "doctor", "--json", NULL };
        char *run[] = { (char *) pg, "run",           "--repeat", "2", "--warmup",
                        "0",         "--min-samples", "50",       ".", NULL };
        char *record[] = { (char *) pg, "record", "-o", "rec.json", "--", (char *) kw, NULL };
        struct pg_run_out o;
        struct pg_result r;
        bool below_read = false;

        pg_test_sh(cmd);
        free(cmd);
        pg_test_run_as_nobody(&o, doctor);
        st = pg_doctor_check(o.out.ptr, "kernel.kptr_restrict", "fix", &value);
        assert_string_equal(st, named ? "ok" : "warn");
        if (!named)
                pg_assert_has(value, "cap_perfmon,cap_syslog+ep");
        free(st);
        free(value);
        st = pg_doctor_check(o.out.ptr, "privileges", "value", &value);
        pg_assert_has(value, "CAP_PERFMON");
        assert_int_equal(strstr(value, "CAP_SYSLOG") != NULL, named);
        free(st);
        free(value);
        pg_run_out_release(&o);

        pg_test_run_as_nobody(&o, run);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        assert_int_equal(pg_count(o.err.ptr, PG_NOT_NAMED), named ? 0 : 1);
        if (!named)
                pg_assert_has(o.err.ptr, "setcap cap_perfmon,cap_syslog+ep");
        pg_run_out_release(&o);
        /* record says it too */
        pg_test_run_as_nobody(&o, record);
        if (o.status != 0)
                fail_msg("record: exit %d: %s", o.status, o.err.ptr);
        assert_int_equal(pg_count(o.err.ptr, PG_NOT_NAMED), named ? 0 : 1);
        pg_run_out_release(&o);

        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, ".perfgate/results/k1.json"), 0);
        assert_false(r.host.exclude_kernel); /* CAP_PERFMON: the kernel is counted */
        assert_true(r.profile.present);
        assert_int_equal(r.profile.kernel, named);
        /* the reads of /dev/zero: named, stacks go on below read() into the
         * kernel's vfs_read (kernel frames end in "_[k]",
         * docs/result-format.md); else no stack has a kernel frame */
        for (size_t i = 0; i < r.profile.nstacks; i++) {
                const char *f = r.profile.stacks[i].frames, *rd = strstr(f, ";read;");
                below_read |= rd && strstr(rd, ";vfs_read_[k]") != NULL;
                if (!named)
                        pg_assert_lacks(f, "_[k]");
        }
        if (named && !below_read)
                fail_msg("no stack goes below read() into the kernel's vfs_read");
        pg_result_release(&r);
}

static void test_cap_perfmon_alone_names_no_kernel_frames(void **state)
{
        const char *sb;
        char *pg, *cfg, *shown_sh, *kw;
        (void) state;

        if (!pg_test_can_be_nobody() || access("/usr/sbin/setcap", X_OK) != 0 ||
            pg_test_paranoid() < 2 || pg_kptr_restrict() >= 2) {
                skip(); /* root, setpriv, setcap; paranoid 2 hides kallsyms from users */
                return;
        }
        sb = pg_test_sandbox();
        chmod(sb, 0777);
        pg = pg_test_copy_program(pg_test_env("PERFGATE_BIN"), sb);
        kw = pg_test_copy_program(pg_test_fixture("perms_kernelwork"), sb);
        cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"k1\", \"argv\": [\"%s\"]}, "
                           "{\"name\": \"k2\", \"argv\": [\"%s\"]}]}\n",
                           kw, kw);
        pg_test_write("perfgate.json", cfg);
        chmod("perfgate.json", 0644);
        /* what kallsyms shows this user, read by head(1) without capabilities */
        shown_sh = pg_xasprintf("%s/shown.sh", sb);
        pg_test_write(shown_sh, "#!/bin/sh\nexec head -1 /proc/kallsyms\n");
        chmod(shown_sh, 0755);
        assert_false(pg_kallsyms_shown_to(shown_sh));

        pg_cap_case(pg, kw, "cap_perfmon", false);
        pg_cap_case(pg, kw, "cap_perfmon,cap_syslog", true);
        free(shown_sh);
        free(cfg);
        free(kw);
        free(pg);
        pg_test_sandbox_remove();
}

/* "ASAN_OPTIONS=..." that lets a sanitized perfgate start with a library
 * preloaded before the sanitizer's runtime. */
static char *pg_asan_env(void)
{
        const char *a = getenv("ASAN_OPTIONS");
        return pg_xasprintf("ASAN_OPTIONS=%s%sverify_asan_link_order=0", a ? a : "",
                            a && *a ? ":" : "");
}

/* perfgate.json of one benchmark, a copy of perms_kernelwork in the
 * sandbox @sb (uid 65534 may not reach the build tree). */
static void pg_write_one_bench(const char *sb)
{
        char *prog = pg_test_copy_program(pg_test_fixture("perms_kernelwork"), sb);
        char *cfg =
            pg_xasprintf("{\"benchmarks\": [{\"name\": \"k\", \"argv\": [\"%s\"]}]}\n", prog);
        pg_test_write("perfgate.json", cfg);
        chmod("perfgate.json", 0644);
        free(cfg);
        free(prog);
}

/* The arguments of one counting run of perfgate.json into @out (static). */
static char *const *pg_run_once(const char *out)
{
        static char *args[] = { "run",          "--repeat", "1",  "--warmup", "0",
                                "--no-profile", "--out",    NULL, ".",        NULL };
        args[7] = (char *) out;
        return args;
}

/* perfgate @args through env(1) with @preload and @asan set, as root or
 * (@nobody) as uid 65534. */
/* A copy of perfgate in the test's sandbox, which uid 65534 can reach (the
 * build tree may lie under a directory of mode 0700, /root on Debian). */
static char *pg_bin;

static void pg_perfgate_env(struct pg_run_out *o, bool nobody, const char *preload,
                            const char *asan, char *const *args)
{
        char *argv[24] = { "/usr/bin/env", (char *) preload, (char *) asan, pg_bin };
        size_t n = 4;

        for (size_t i = 0; args[i]; i++) {
                assert_true(n + 1 < sizeof(argv) / sizeof(argv[0]));
                argv[n++] = args[i];
        }
        argv[n] = NULL;
        if (nobody)
                pg_test_run_as_nobody(o, argv);
        else
                pg_test_run(o, NULL, argv);
}

static void test_refusal_not_from_the_sysctl(void **state)
{
        const char *sb;
        char *shim, *preload, *asan, *fix = NULL, *st;
        struct pg_run_out o;
        (void) state;

        sb = pg_test_sandbox();
        chmod(sb, 0777);
        pg_bin = pg_test_copy_program(pg_test_env("PERFGATE_BIN"), sb);
        shim = pg_test_copy_program(pg_test_fixture("refuse_perf.so"), sb);
        preload = pg_xasprintf("LD_PRELOAD=%s", shim);
        asan = pg_asan_env();
        pg_write_one_bench(sb);
        pg_perfgate_env(&o, false, preload, asan, pg_run_once("res"));
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "perf_event_open refused every counter (Permission "
                                 "denied), although kernel.perf_event_paranoid is");
        pg_assert_has(o.err.ptr, "seccomp profile");
        pg_assert_lacks(o.err.ptr, "sysctl kernel.perf_event_paranoid=");
        pg_run_out_release(&o);
        {
                char *argv[] = { "doctor", "--json", NULL };
                pg_perfgate_env(&o, false, preload, asan, argv);
                st = pg_doctor_check(o.out.ptr, "event:task-clock", "fix", &fix);
                assert_string_equal(st, "missing");
                pg_assert_has(fix, "seccomp profile");
                pg_assert_lacks(fix, "sysctl");
                free(st);
                free(fix);
                pg_run_out_release(&o);
        }
        if (pg_test_can_be_nobody() && pg_test_paranoid() <= 2) {
                /* unprivileged, at a level that allows user-space counting */
                pg_perfgate_env(&o, true, preload, asan, pg_run_once("as-nobody"));
                assert_int_equal(o.status, 3);
                pg_assert_has(o.err.ptr, "although kernel.perf_event_paranoid is");
                pg_assert_lacks(o.err.ptr, "CAP_PERFMON or CAP_SYS_ADMIN");
                pg_assert_lacks(o.err.ptr, "sysctl kernel.perf_event_paranoid=");
                pg_run_out_release(&o);
        }
        free(asan);
        free(preload);
        free(shim);
        free(pg_bin);
        pg_bin = NULL;
        pg_test_sandbox_remove();
}

/* Run @argv as uid 65534 in a private mount namespace where
 * /proc/sys/kernel/perf_event_paranoid reads @level (the kernel's own
 * value is untouched); @preload: "LD_PRELOAD=..." or NULL. */
static void pg_at_paranoid(struct pg_run_out *o, const char *level, const char *preload,
                           char *const *argv)
{
        char *file = pg_xasprintf("%s/paranoid", pg_sb);
        char *asan = pg_asan_env();
        char *args[32] = { "unshare",
                           "-m",
                           "--propagation",
                           "private",
                           "sh",
                           "-c",
                           "mount --bind \"$1\" /proc/sys/kernel/perf_event_paranoid && shift && "
                           "exec setpriv --reuid=65534 --regid=65534 --clear-groups env \"$@\"",
                           "sh",
                           file,
                           asan };
        size_t n = 10;
        char *text = pg_xasprintf("%s\n", level);

        pg_test_write(file, text);
        chmod(file, 0644);
        if (preload)
                args[n++] = (char *) preload;
        for (size_t i = 0; argv[i]; i++)
                args[n++] = argv[i];
        args[n] = NULL;
        pg_test_run(o, NULL, args);
        free(text);
        free(asan);
        free(file);
}

static void test_paranoid_3_judged_by_the_probe(void **state)
{
        const char *sb;
        char *shim, *preload, *st, *meaning = NULL;
        char *doctor[] = { (char *) pg_test_env("PERFGATE_BIN"), "doctor", "--json", NULL };
        char *run[] = { (char *) pg_test_env("PERFGATE_BIN"),
                        "run",
                        "--repeat",
                        "1",
                        "--warmup",
                        "0",
                        "--no-profile",
                        ".",
                        NULL };
        struct pg_run_out o;
        (void) state;

        if (!pg_test_can_be_nobody() || access("/usr/bin/unshare", X_OK) != 0 ||
            pg_test_paranoid() != 2) {
                skip(); /* root, setpriv, unshare; the kernel at 2 (3 acts as 2 here) */
                return;
        }
        sb = pg_sb = pg_test_sandbox();
        chmod(sb, 0777);
        pg_bin = pg_test_copy_program(pg_test_env("PERFGATE_BIN"), sb);
        doctor[0] = run[0] = pg_bin;
        pg_write_one_bench(sb);
        {
                char *argv[] = { "cat", "/proc/sys/kernel/perf_event_paranoid", NULL };
                pg_at_paranoid(&o, "3", NULL, argv);
                if (o.status != 0 || strcmp(o.out.ptr, "3\n") != 0) {
                        pg_run_out_release(&o);
                        pg_test_sandbox_remove();
                        skip(); /* no private mount namespace here */
                        return;
                }
                pg_run_out_release(&o);
        }
        /* this kernel counts user space at 3 as at 2: doctor says so */
        pg_at_paranoid(&o, "3", NULL, doctor);
        st = pg_doctor_check(o.out.ptr, "kernel.perf_event_paranoid", "meaning", &meaning);
        assert_string_equal(st, "warn");
        pg_assert_has(meaning, "this kernel treats it as 2");
        free(st);
        free(meaning);
        st = pg_doctor_check(o.out.ptr, "event:task-clock", NULL, NULL);
        assert_string_equal(st, "ok");
        free(st);
        pg_run_out_release(&o);
        pg_at_paranoid(&o, "3", NULL, run);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "kernel.perf_event_paranoid=3 and no CAP_PERFMON: counting user "
                                 "space only");
        pg_run_out_release(&o);

        /* refused as a distribution's level 3 would: "missing", and the
         * sysctl is the fix */
        shim = pg_test_copy_program(pg_test_fixture("refuse_perf.so"), sb);
        preload = pg_xasprintf("LD_PRELOAD=%s", shim);
        pg_at_paranoid(&o, "3", preload, doctor);
        st = pg_doctor_check(o.out.ptr, "kernel.perf_event_paranoid", "meaning", &meaning);
        assert_string_equal(st, "missing");
        free(st);
        free(meaning);
        pg_run_out_release(&o);
        pg_at_paranoid(&o, "3", preload, run);
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "lower it with 'sysctl kernel.perf_event_paranoid=2'");
        pg_run_out_release(&o);
        free(preload);
        free(shim);
        free(pg_bin);
        pg_bin = NULL;
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_daemon_left_behind_is_said),
                cmocka_unit_test(test_cap_perfmon_alone_names_no_kernel_frames),
                cmocka_unit_test(test_refusal_not_from_the_sysctl),
                cmocka_unit_test(test_paranoid_3_judged_by_the_probe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
