/*
 * text.c - repository-controlled text (commit subjects, data-branch entry
 * names) made safe for a terminal, as docs/limits.md ("Names") promises:
 * invalid UTF-8 becomes U+FFFD, control bytes are shown as \n, \t, \r,
 * \xNN (compare/report.h's pg_report_escape_ctl()), and the Unicode bidi
 * embedding, override and isolate controls (U+202A..U+202E, U+2066..U+2069;
 * Unicode UAX #9), which would reorder the rest of the line, as \uXXXX.
 */
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/json.h"
#include "compare/report.h"

void pg_cli_text(struct pg_buf *out, const char *s, size_t max_bytes)
{
        struct pg_buf clean = PG_BUF_INIT, shown = PG_BUF_INIT;
        size_t len = strlen(s), cut = len;

        if (cut > max_bytes) {
                cut = max_bytes;
                /* end on a character boundary: no continuation byte first */
                while (cut > 0 && ((unsigned char) s[cut] & 0xc0) == 0x80)
                        cut--;
        }
        pg_utf8_sanitize(&clean, s, cut);
        for (size_t i = 0; i < clean.len; i++) {
                const unsigned char *u = (const unsigned char *) clean.ptr + i;
                if (i + 2 < clean.len && u[0] == 0xe2 &&
                    ((u[1] == 0x80 && u[2] >= 0xaa && u[2] <= 0xae) ||
                     (u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9))) {
                        pg_buf_printf(&shown, "\\u%04x",
                                      (unsigned) (((u[0] & 0x0f) << 12) | ((u[1] & 0x3f) << 6) |
                                                  (u[2] & 0x3f)));
                        i += 2;
                } else {
                        pg_buf_putc(&shown, (char) u[0]);
                }
        }
        pg_report_escape_ctl(out, shown.len ? shown.ptr : "");
        if (cut < len)
                pg_buf_printf(out, "... (%zu more bytes)", len - cut);
        pg_buf_release(&clean);
        pg_buf_release(&shown);
}
