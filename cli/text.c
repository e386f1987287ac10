/*
 * text.c - repository-controlled text (commit subjects, data-branch entry
 * names) made safe for a terminal, as docs/limits.md ("Names") promises:
 * invalid UTF-8 becomes U+FFFD, then compare/report.h's
 * pg_report_escape_ctl() shows control bytes as \n, \t, \r, \xNN and the
 * bidi controls as \uXXXX; long text is cut.
 */
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/json.h"
#include "compare/report.h"

void pg_cli_text(struct pg_buf *out, const char *s, size_t max_bytes)
{
        struct pg_buf clean = PG_BUF_INIT;
        size_t len = strlen(s), cut = len;

        if (cut > max_bytes) {
                cut = max_bytes;
                /* end on a character boundary: no continuation byte first */
                while (cut > 0 && ((unsigned char) s[cut] & 0xc0) == 0x80)
                        cut--;
        }
        pg_utf8_sanitize(&clean, s, cut);
        pg_report_escape_ctl(out, clean.len ? clean.ptr : "");
        if (cut < len)
                pg_buf_printf(out, "... (%zu more bytes)", len - cut);
        pg_buf_release(&clean);
}
