/*
 * text.c - repository-controlled text (commit subjects, data-branch entry
 * names) made safe for a terminal, as docs/limits.md ("Names") promises:
 * cut to a length, then compare/report.h's pg_report_escape_ctl() (the one
 * rule, pg_show_escape()) shows control bytes and bytes that are not UTF-8
 * as \n, \t, \r, \xNN and the bidi controls as \uXXXX.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "compare/report.h"

void pg_cli_text(struct pg_buf *out, const char *s, size_t max_bytes)
{
        char *shown;
        size_t len = strlen(s), cut = len;

        if (cut > max_bytes) {
                cut = max_bytes;
                /* end on a character boundary: no continuation byte first */
                while (cut > 0 && ((unsigned char) s[cut] & 0xc0) == 0x80)
                        cut--;
        }
        shown = pg_xstrndup(s, cut);
        pg_report_escape_ctl(out, shown);
        if (cut < len)
                pg_buf_printf(out, "... (%zu more bytes)", len - cut);
        free(shown);
}
