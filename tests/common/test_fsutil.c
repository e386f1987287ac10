/*
 * test_fsutil.c - pg_write_file_atomic(): a regular file is replaced whole
 * and no temporary is left; a device (/dev/null) is written in place, never
 * replaced by a regular file; a symlink keeps being a symlink and its target
 * (even a dangling one) gets the content; a directory is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

static size_t pg_count_entries(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t n = 0;
        while (d && (de = readdir(d)) != NULL)
                if (de->d_name[0] != '.')
                        n++;
        if (d)
                closedir(d);
        return n;
}

static void test_fsutil_atomic_targets(void **state)
{
        struct stat st;
        char *text;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_write_file_atomic("a.txt", "one\n", 4), 0);
        assert_int_equal(pg_write_file_atomic("a.txt", "two\n", 4), 0);
        text = pg_test_read("a.txt");
        assert_string_equal(text, "two\n");
        free(text);
        assert_int_equal(pg_count_entries("."), 1); /* no temporary left behind */

        /* a character device is written in place, not replaced */
        assert_int_equal(pg_write_file_atomic("/dev/null", "x", 1), 0);
        assert_int_equal(stat("/dev/null", &st), 0);
        assert_true(S_ISCHR(st.st_mode));

        /* symlinks: the target gets the content, the link stays */
        assert_int_equal(symlink("a.txt", "link"), 0);
        assert_int_equal(pg_write_file_atomic("link", "three\n", 6), 0);
        assert_int_equal(lstat("link", &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        text = pg_test_read("a.txt");
        assert_string_equal(text, "three\n");
        free(text);
        assert_int_equal(symlink("new.txt", "dangling"), 0);
        assert_int_equal(pg_write_file_atomic("dangling", "four\n", 5), PG_EIO);
        assert_non_null(strstr(pg_error_last(), "not writing through dangling symlink"));
        assert_false(pg_test_exists("new.txt"));
        assert_int_equal(unlink("dangling"), 0);

        assert_int_equal(mkdir("d", 0755), 0);
        assert_int_equal(pg_write_file_atomic("d", "x", 1), PG_EIO);
        assert_non_null(strstr(pg_error_last(), "directory"));
        if (access("/dev/full", W_OK) == 0) {
                assert_int_equal(pg_write_file_atomic("/dev/full", "x", 1), PG_EIO);
                assert_int_equal(stat("/dev/full", &st), 0);
                assert_true(S_ISCHR(st.st_mode));
        }
        pg_test_sandbox_remove();
}

static void test_fsutil_own_file_replaces_links(void **state)
{
        struct stat st;
        struct pg_buf b = PG_BUF_INIT;
        char *text;
        int fd;
        (void) state;

        pg_test_sandbox();
        pg_test_write("victim", "secret\n");
        assert_int_equal(symlink("victim", "r.json"), 0);
        assert_int_equal(pg_write_file_own("r.json", "{}\n", 3), 0);
        assert_int_equal(lstat("r.json", &st), 0);
        assert_true(S_ISREG(st.st_mode));
        text = pg_test_read("victim");
        assert_string_equal(text, "secret\n");
        free(text);
        assert_int_equal(symlink("nowhere", "d.svg"), 0);
        assert_int_equal(pg_write_file_own("d.svg", "x", 1), 0);
        assert_false(pg_test_exists("nowhere"));
        assert_int_equal(mkdir("dir", 0755), 0);
        assert_int_equal(pg_write_file_own("dir", "x", 1), PG_EIO);

        pg_test_write("long", "0123456789abcdef");
        fd = open("long", O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(pg_read_tail(fd, 6, &b), 0);
        assert_string_equal(b.ptr, "abcdef");
        pg_buf_reset(&b);
        assert_int_equal(pg_read_tail(fd, 100, &b), 0);
        assert_string_equal(b.ptr, "0123456789abcdef");
        close(fd);
        pg_buf_release(&b);
        pg_test_sandbox_remove();
}

/* Leave the stack below us full of stat modes that read as symbolic links. */
__attribute__((noinline)) static void pg_poison_stack(void)
{
        volatile unsigned int junk[4096];

        for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
                junk[i] = S_IFLNK | 0777;
}

/* A new output file (absent, in a writable directory) is accepted, whatever
 * the stack held: the check once read an undefined struct stat for a path
 * that does not exist, and a stale S_IFLNK in it refused the file with
 * "No such file or directory" now and then (compare --json in CI). */
static void test_fsutil_new_output_file_accepted(void **state)
{
        (void) state;
        pg_test_sandbox();
        for (int i = 0; i < 100; i++) {
                pg_poison_stack();
                if (pg_output_file_check("new.json") != 0)
                        fail_msg("a new file refused (round %d): %s", i, pg_error_last());
                pg_poison_stack();
                if (pg_output_file_check("./sub-is-here.json") != 0)
                        fail_msg("a new file refused (round %d): %s", i, pg_error_last());
        }
        assert_int_equal(access("new.json", F_OK), -1); /* checked, not created */
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fsutil_atomic_targets),
                cmocka_unit_test(test_fsutil_new_output_file_accepted),
                cmocka_unit_test(test_fsutil_own_file_replaces_links),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
