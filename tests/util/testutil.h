/*
 * testutil.h - helpers shared by perfgate's cmocka tests: a hermetic sandbox
 * per test (mkdtemp, HOME, TZ=UTC, LC_ALL=C), running the real perfgate
 * binary and capturing its output and exit status, and locating fixtures.
 * Include <stdarg.h> <stddef.h> <stdint.h> <setjmp.h> <cmocka.h> before it.
 */
#ifndef PG_TESTS_TESTUTIL_H
#define PG_TESTS_TESTUTIL_H

#include <stddef.h>

#include "common/buf.h"

/** Result of running a command: exit status (or 128+signal), stdout, stderr. */
struct pg_run_out {
        int status;
        struct pg_buf out;
        struct pg_buf err;
};

/**
 * Create a fresh sandbox directory under $TMPDIR (or /tmp), set HOME to it,
 * TZ=UTC, LC_ALL=C, NO_COLOR=1, chdir into it, and return its path (static
 * until the next call). Fails the test if it cannot.
 */
const char *pg_test_sandbox(void);

/** Remove the sandbox made by pg_test_sandbox() (rm -rf), chdir back to /. */
void pg_test_sandbox_remove(void);

/**
 * cmocka setup and teardown that make a fresh pg_test_sandbox() for each
 * test and remove it after: cmocka_unit_test_setup_teardown(test,
 * pg_test_setup_sandbox, pg_test_teardown_sandbox). Return 0.
 */
int pg_test_setup_sandbox(void **state);
int pg_test_teardown_sandbox(void **state);

/**
 * Run @argv (NULL-terminated; argv[0] searched in PATH) with stdin from
 * @input (NULL: /dev/null), capture output into @o (initialised here;
 * release with pg_run_out_release()). Returns o->status.
 */
int pg_test_run(struct pg_run_out *o, const char *input, char *const argv[]);

/**
 * Run the perfgate binary under test ($PERFGATE_BIN) with the given
 * arguments (NULL-terminated varargs after @o).
 */
int pg_test_perfgate(struct pg_run_out *o, ...);

void pg_run_out_release(struct pg_run_out *o);

/** $name from the environment; fails the test when unset. */
const char *pg_test_env(const char *name);

/** Path of a built fixture program: $PG_FIXTURE_DIR/<name> (static buffer). */
const char *pg_test_fixture(const char *name);

/**
 * Call @check(path, @budget) for each toolchain layout fixture
 * ($PG_FIXTURE_DIR/layouts/layout_*, gcc and clang with bfd and lld; see
 * tests/cmake/symbols.cmake); returns the sum of what it returned.
 */
size_t pg_test_each_layout(size_t (*check)(const char *path, size_t budget), size_t budget);

/** Read a whole file into a new string (free() it); fails the test if absent. */
char *pg_test_read(const char *path);

/** Write @text to @path (creating it); fails the test on error. */
void pg_test_write(const char *path, const char *text);

/** Whether @path exists. */
int pg_test_exists(const char *path);

/**
 * Copy the program at @path into the existing directory @dir as
 * "<dir>/<basename of path>", mode 0755, and return the copy's path (free()
 * it). For tests that run a program as another user (uid 65534): the build
 * tree may lie where that user cannot reach (a clone under /root is mode
 * 0700 on Debian), while @dir can be made world-readable. Fails the test on
 * error.
 */
char *pg_test_copy_program(const char *path, const char *dir);

/**
 * kernel.perf_event_paranoid (/proc/sys/kernel/perf_event_paranoid; see
 * perf_event_open(2)), or 2, the kernel's default, when it cannot be read.
 */
int pg_test_paranoid(void);

/**
 * Whether this test can run programs as the unprivileged uid/gid 65534: it
 * runs as root and setpriv(1) is installed.
 */
int pg_test_can_be_nobody(void);

/**
 * pg_test_run() of @argv as uid and gid 65534 with no supplementary groups,
 * through setpriv(1). @argv[0] must be a path that user can reach (see
 * pg_test_copy_program()). Check pg_test_can_be_nobody() first.
 */
int pg_test_run_as_nobody(struct pg_run_out *o, char *const argv[]);

struct pg_profile;

/**
 * Fill @p (overwritten; free with pg_test_profile_free()) with the profile of
 * folded text @text ("comm;f;g 12" per line: frames root first, a space, the
 * count) of event @event: present, samples the sum of the counts. Fails the
 * test on a line without a count.
 */
void pg_test_profile_from_folded(struct pg_profile *p, const char *text, const char *event);

/** Free what pg_test_profile_from_folded() put in @p. */
void pg_test_profile_free(struct pg_profile *p);

/**
 * Fail the test unless the @len bytes at @s are text a terminal may show:
 * well-formed UTF-8 with no control byte but '\n' (no ESC, no CR, no DEL),
 * as docs/limits.md promises for perfgate's output.
 */
void pg_test_assert_terminal_safe(const char *s, size_t len);

/**
 * Run perfgate with the arguments after @want (pg_test_perfgate() into
 * struct pg_run_out *@o); fail the test, showing its output, unless it
 * exits with @want.
 */
#define PG_TEST_PERFGATE_EXPECT(o, want, ...)                                                      \
        do {                                                                                       \
                int st_ = pg_test_perfgate((o), __VA_ARGS__, NULL);                                \
                if (st_ != (want))                                                                 \
                        fail_msg("exit %d, want %d\nstdout: %s\nstderr: %s", st_, (want),          \
                                 (o)->out.ptr, (o)->err.ptr);                                      \
        } while (0)

/** Run @cmd with system(3); fail the test, naming it, unless it exits 0. */
void pg_test_sh(const char *cmd);

#endif
