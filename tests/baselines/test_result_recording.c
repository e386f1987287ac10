/*
 * test_result_recording.c - how a recording ended ("recording",
 * docs/result-format.md): written and read back, absent in `run` results,
 * refused when malformed (an unknown "ended", a missing "elapsed_ns"); and
 * the two ways a result is saved: pg_result_save() replaces whatever entry
 * is at a path perfgate names, pg_result_save_as() writes a user's path as
 * cp(1) does (through a symlink to its target).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "tests/util/result_json.h"

static int load(struct pg_result *r, const char *recording)
{
        char buf[2048];

        snprintf(buf, sizeof(buf), "%s%s%s}", PG_TEST_RESULT_JSON_HEAD,
                 recording ? ",\"recording\":" : "", recording ? recording : "");
        pg_result_init(r);
        return pg_result_from_json(r, buf, strlen(buf), "test");
}

static void test_round_trip(void **state)
{
        struct pg_result r, back;
        struct pg_buf json = PG_BUF_INIT;

        (void) state;
        assert_int_equal(load(&r, "{\"ended\":\"target-exited\",\"elapsed_ns\":1500000000,"
                                  "\"requested_ns\":60000000000}"),
                         0);
        assert_true(r.recording.present);
        assert_int_equal(r.recording.ended, PG_RECORD_END_TARGET_EXITED);
        assert_int_equal(r.recording.elapsed_ns, 1500000000ull);
        assert_int_equal(r.recording.requested_ns, 60000000000ull);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        assert_non_null(strstr(json.ptr, "\"ended\": \"target-exited\""));
        pg_result_init(&back);
        assert_int_equal(pg_result_from_json(&back, json.ptr, json.len, "back"), 0);
        assert_true(back.recording.present);
        assert_int_equal(back.recording.ended, PG_RECORD_END_TARGET_EXITED);
        assert_int_equal(back.recording.elapsed_ns, 1500000000ull);
        assert_int_equal(back.recording.requested_ns, 60000000000ull);
        pg_result_release(&back);
        pg_result_release(&r);
        pg_buf_release(&json);

        /* no --duration: no requested_ns written */
        assert_int_equal(load(&r, "{\"ended\":\"interrupted\",\"elapsed_ns\":7}"), 0);
        assert_int_equal(r.recording.ended, PG_RECORD_END_INTERRUPTED);
        assert_int_equal(r.recording.requested_ns, 0);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        assert_null(strstr(json.ptr, "requested_ns"));
        assert_string_equal(pg_record_end_name(PG_RECORD_END_DURATION), "duration");
        pg_result_release(&r);
        pg_buf_release(&json);
}

static void test_absent_and_malformed(void **state)
{
        struct pg_result r;
        struct pg_buf json = PG_BUF_INIT;

        (void) state;
        assert_int_equal(load(&r, NULL), 0);
        assert_false(r.recording.present);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        assert_null(strstr(json.ptr, "recording"));
        pg_result_release(&r);
        pg_buf_release(&json);
        assert_int_equal(load(&r, "{\"ended\":\"crashed\",\"elapsed_ns\":1}"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "recording.ended"));
        pg_result_release(&r);
        assert_int_equal(load(&r, "{\"ended\":\"duration\"}"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "elapsed_ns"));
        pg_result_release(&r);
        assert_int_equal(load(&r, "[1]"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "recording"));
        pg_result_release(&r);
}

static void test_save_and_save_as(void **state)
{
        char dir[] = "/tmp/pg-save-XXXXXX", link[128], target[128], path[256];
        struct pg_result r, back;
        struct stat st;

        (void) state;
        assert_non_null(mkdtemp(dir));
        assert_int_equal(load(&r, "{\"ended\":\"duration\",\"elapsed_ns\":5}"), 0);
        snprintf(target, sizeof(target), "%s/target.json", dir);
        snprintf(link, sizeof(link), "%s/link.json", dir);
        assert_int_equal(symlink(target, link), 0);
        /* a user's path: never through a dangling link (as GNU cp), and
         * through a link to an existing file, into that file */
        assert_int_equal(pg_result_save_as(&r, link), PG_EIO);
        assert_int_equal(pg_write_file_own(target, "old", 3), 0);
        assert_int_equal(pg_result_save_as(&r, link), 0);
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        pg_result_init(&back);
        assert_int_equal(pg_result_load(&back, target), 0);
        assert_true(back.recording.present);
        pg_result_release(&back);
        /* a name perfgate chose: the link is replaced, its target untouched */
        unlink(target);
        assert_int_equal(pg_result_save(&r, link), 0);
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(access(target, F_OK), -1);
        /* an output file's directory, checked before the work */
        assert_int_equal(pg_output_file_check(link), 0);
        assert_int_equal(pg_output_file_check("-"), 0);
        assert_int_equal(pg_output_file_check("relative-here.json"), 0);
        snprintf(path, sizeof(path), "%s/missing/out.json", dir);
        assert_int_equal(pg_output_file_check(path), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "not a writable directory"));
        snprintf(path, sizeof(path), "%s/out.json", link); /* under a file */
        assert_int_equal(pg_output_file_check(path), PG_EINPUT);
        unlink(link);
        rmdir(dir);
        pg_result_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_absent_and_malformed),
                cmocka_unit_test(test_save_and_save_as),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
