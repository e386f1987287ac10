/*
 * test_build_cache.c - pg_build_commit() (baselines/worktree.h) on a real
 * repository made with the git command:
 *   - a build runs in its final directory: a path the build records (as
 *     CMake records its build directory in binaries and scripts) still
 *     names the built files when the benchmarks run;
 *   - the second call reuses the entry without building;
 *   - a directory a killed perfgate left (no stamp) is built again, not
 *     used;
 *   - a failed build leaves neither directory nor stamp;
 *   - two processes asking for the same commit at once build it once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baselines/worktree.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

struct build_ctx {
        int calls;
        bool fail;
        unsigned sleep_ms;
};

/* The build: record the directory it ran in inside it, and count the
 * builds in ../builds.count (O_APPEND: one byte per build, any process). */
static int build(void *ctx, const char *dir)
{
        struct build_ctx *c = ctx;
        char *path = pg_xasprintf("%s/built-in", dir);
        FILE *f = fopen(path, "w");
        int fd;

        c->calls++;
        if (c->sleep_ms)
                usleep(c->sleep_ms * 1000);
        assert_non_null(f);
        fprintf(f, "%s\n", dir);
        assert_int_equal(fclose(f), 0);
        free(path);
        fd = open("builds.count", O_WRONLY | O_CREAT | O_APPEND, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "b", 1), 1);
        close(fd);
        if (c->fail)
                return pg_error_set(PG_EIO, "the build failed on purpose");
        return 0;
}

static int setup(void **state)
{
        (void) state;
        pg_test_sandbox();
        assert_int_equal(system("git init -q repo && cd repo && echo one >f && git add f && "
                                "git -c user.name=t -c user.email=t@e commit -qm one"),
                         0);
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        pg_test_sandbox_remove();
        return 0;
}

/* @dir/@name exists */
static bool exists_in(const char *dir, const char *name)
{
        char *p = pg_xasprintf("%s/%s", dir, name);
        bool yes = pg_test_exists(p);
        free(p);
        return yes;
}

static size_t builds_count(void)
{
        struct stat st;
        return stat("builds.count", &st) == 0 ? (size_t) st.st_size : 0;
}

static void test_build_cache_in_place_reused_and_rebuilt(void **state)
{
        struct pg_build_opts o = { "repo", NULL, "make" };
        struct build_ctx c = { 0 };
        struct pg_built b, again;
        char *recorded, *stamp, *path;
        (void) state;

        assert_int_equal(pg_build_commit(&o, "HEAD", build, &c, &b), 0);
        assert_false(b.cached);
        assert_int_equal(c.calls, 1);
        /* the directory the build ran in is the one the benchmarks use */
        path = pg_xasprintf("%s/built-in", b.dir);
        recorded = pg_test_read(path);
        free(path);
        recorded[strcspn(recorded, "\n")] = '\0';
        assert_string_equal(recorded, b.dir);
        free(recorded);
        assert_true(exists_in(b.dir, "f"));
        stamp = pg_xasprintf("%s.done", b.dir);
        assert_true(pg_test_exists(stamp));

        assert_int_equal(pg_build_commit(&o, "HEAD", build, &c, &again), 0);
        assert_true(again.cached);
        assert_int_equal(c.calls, 1);
        assert_string_equal(again.dir, b.dir);
        pg_built_release(&again);

        /* a killed perfgate's leftover: the directory without its stamp */
        assert_int_equal(unlink(stamp), 0);
        path = pg_xasprintf("%s/half-made", b.dir);
        pg_test_write(path, "x");
        free(path);
        assert_int_equal(pg_build_commit(&o, "HEAD", build, &c, &again), 0);
        assert_false(again.cached);
        assert_int_equal(c.calls, 2);
        assert_false(exists_in(again.dir, "half-made"));
        assert_true(pg_test_exists(stamp));
        pg_built_release(&again);
        free(stamp);
        pg_built_release(&b);
}

static void test_build_cache_failure_leaves_nothing(void **state)
{
        struct pg_build_opts o = { "repo", NULL, "make broken" };
        struct build_ctx c = { .fail = true };
        struct pg_built b;
        (void) state;

        assert_int_equal(pg_build_commit(&o, "HEAD", build, &c, &b), PG_EIO);
        assert_non_null(strstr(pg_error_last(), "the build failed on purpose"));
        assert_null(b.dir);
        /* the cache holds nothing: no entry, no stamp */
        assert_int_equal(system("test -z \"$(ls -A repo/.perfgate/builds)\""), 0);
}

static void test_build_cache_concurrent_builds_once(void **state)
{
        struct pg_build_opts o = { "repo", NULL, "make slow" };
        pid_t kids[2];
        (void) state;

        for (int i = 0; i < 2; i++) {
                kids[i] = fork();
                assert_true(kids[i] >= 0);
                if (kids[i] == 0) {
                        struct build_ctx c = { .sleep_ms = 300 };
                        struct pg_built b;
                        int rc = pg_build_commit(&o, "HEAD", build, &c, &b);
                        _exit(rc == 0 && b.dir ? 0 : 1);
                }
        }
        for (int i = 0; i < 2; i++) {
                int st;
                assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
                assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        assert_int_equal(builds_count(), 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_build_cache_in_place_reused_and_rebuilt, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_build_cache_failure_leaves_nothing, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_build_cache_concurrent_builds_once, setup,
                                                teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
