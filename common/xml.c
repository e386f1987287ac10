/*
 * xml.c - cleaning and escaping names for XML output (see xml.h).
 */
#include "common/xml.h"

#include <stdbool.h>
#include <string.h>

#include "common/json.h"

void pg_xml_clean(struct pg_buf *out, const char *s, size_t len)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t i = 0;

        while (i < len) {
                size_t n = pg_utf8_seqlen(p + i, len - i);
                bool bad =
                    n == 0 ||
                    (n == 1 && p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') ||
                    (n == 3 && p[i] == 0xef && p[i + 1] == 0xbf &&
                     (p[i + 2] == 0xbe || p[i + 2] == 0xbf));
                if (bad) {
                        pg_buf_add(out, "\xef\xbf\xbd", 3);
                        i += n ? n : 1;
                } else {
                        pg_buf_add(out, s + i, n);
                        i += n;
                }
        }
}

void pg_xml_escape(struct pg_buf *out, const char *s, size_t len)
{
        size_t start = 0;

        for (size_t i = 0; i < len; i++) {
                const char *rep;
                switch (s[i]) {
                case '&':
                        rep = "&amp;";
                        break;
                case '<':
                        rep = "&lt;";
                        break;
                case '>':
                        rep = "&gt;";
                        break;
                case '"':
                        rep = "&quot;";
                        break;
                case '\'':
                        rep = "&#39;";
                        break;
                case '\t':
                        rep = "&#9;";
                        break;
                case '\n':
                        rep = "&#10;";
                        break;
                case '\r':
                        rep = "&#13;";
                        break;
                default:
                        continue;
                }
                pg_buf_add(out, s + start, i - start);
                pg_buf_puts(out, rep);
                start = i + 1;
        }
        pg_buf_add(out, s + start, len - start);
}

void pg_xml_put(struct pg_buf *out, const char *s)
{
        struct pg_buf c = PG_BUF_INIT;

        pg_xml_clean(&c, s, strlen(s));
        pg_xml_escape(out, c.ptr, c.len);
        pg_buf_release(&c);
}
