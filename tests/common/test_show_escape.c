/*
 * test_show_escape.c - pg_show_escape(), the one rule by which messages
 * show user input and file contents: \n \t \r, \xNN for other control
 * bytes, DEL and bytes that are not well-formed UTF-8; printable ASCII and
 * well-formed UTF-8 as they are; PG_SHOW_KEEP_LINES keeps newlines and tabs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/json.h"

static void pg_check(const char *in, size_t len, unsigned flags, const char *want)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_show_escape(&b, in, len, flags);
        assert_string_equal(b.ptr ? b.ptr : "", want);
        pg_buf_release(&b);
}

static void test_show_escape(void **state)
{
        char *s;
        (void) state;

        pg_check("plain ascii", 11, 0, "plain ascii");
        pg_check("a\nb\tc\rd", 7, 0, "a\\nb\\tc\\rd");
        pg_check("a\nb\tc\rd", 7, PG_SHOW_KEEP_LINES, "a\nb\tc\\rd");
        pg_check("\x1b[31mred\x7f", 9, 0, "\\x1b[31mred\\x7f");
        pg_check("nul\0after", 9, 0, "nul\\x00after");
        /* é and U+1F600 kept; a lone continuation byte, a truncated
         * sequence, an overlong '/' and a surrogate escaped byte by byte */
        pg_check("caf\xc3\xa9 \xf0\x9f\x98\x80", 10, 0, "caf\xc3\xa9 \xf0\x9f\x98\x80");
        pg_check("ho\xff", 3, 0, "ho\\xff");
        pg_check("x\x80y\xc3", 4, 0, "x\\x80y\\xc3");
        pg_check("\xc0\xaf", 2, 0, "\\xc0\\xaf");
        pg_check("\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80");
        s = pg_shown("a\nb\xff");
        assert_string_equal(s, "a\\nb\\xff");
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_show_escape),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
