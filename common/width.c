/*
 * width.c - terminal columns of UTF-8 text (see width.h).
 */
#include "common/width.h"

#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "common/buf.h"

static locale_t pg_utf8_locale;
static pthread_once_t pg_utf8_once = PTHREAD_ONCE_INIT;

static void pg_utf8_init(void)
{
        pg_utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t) 0);
}

/* Decode the code point at @s (not at its NUL) into *@cp; returns its length
 * in bytes, or 0 when @s does not start a well-formed UTF-8 sequence
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t pg_utf8_decode(const unsigned char *s, uint32_t *cp)
{
        size_t n;
        uint32_t c, min;

        if (s[0] < 0x80) {
                *cp = s[0];
                return 1;
        }
        if ((s[0] & 0xe0) == 0xc0) {
                n = 2, c = s[0] & 0x1f, min = 0x80;
        } else if ((s[0] & 0xf0) == 0xe0) {
                n = 3, c = s[0] & 0x0f, min = 0x800;
        } else if ((s[0] & 0xf8) == 0xf0) {
                n = 4, c = s[0] & 0x07, min = 0x10000;
        } else {
                return 0;
        }
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = c << 6 | (s[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *cp = c;
        return n;
}

/* Without C.UTF-8: the wide ranges of UAX #11's main blocks (Hangul Jamo,
 * CJK and Kana, Hangul syllables, compatibility ideographs, full-width forms,
 * the emoji blocks, the supplementary ideographic planes). */
static int pg_cp_width_fallback(uint32_t c)
{
        static const uint32_t wide[][2] = {
                { 0x1100, 0x115f },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },
                { 0x3400, 0x4dbf },   { 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },
                { 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },   { 0xfe30, 0xfe4f },
                { 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },   { 0x1f300, 0x1f64f },
                { 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
        };

        if (c >= 0x300 && c <= 0x36f)
                return 0;
        for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
                if (c >= wide[i][0] && c <= wide[i][1])
                        return 2;
        return 1;
}

static size_t pg_cp_width(uint32_t c)
{
        int w;

        if (c < 0x80)
                return 1;
        pthread_once(&pg_utf8_once, pg_utf8_init);
        if (pg_utf8_locale == (locale_t) 0)
                return (size_t) pg_cp_width_fallback(c);
        {
                locale_t old = uselocale(pg_utf8_locale);
                w = wcwidth((wchar_t) c);
                uselocale(old);
        }
        return w < 0 ? 1 : (size_t) w;
}

/* The columns and byte length of the character at @s (not at its NUL). */
static size_t pg_char_at(const char *s, size_t *cols)
{
        uint32_t c;
        size_t n = pg_utf8_decode((const unsigned char *) s, &c);

        if (n == 0) {
                *cols = 1;
                return 1;
        }
        *cols = pg_cp_width(c);
        return n;
}

size_t pg_text_width(const char *s)
{
        size_t w = 0, cols;

        while (*s) {
                s += pg_char_at(s, &cols);
                w += cols;
        }
        return w;
}

size_t pg_text_fit(const char *s, size_t cols)
{
        size_t at = 0, w = 0, c;

        while (s[at]) {
                size_t n = pg_char_at(s + at, &c);

                if (w + c > cols)
                        break;
                w += c;
                at += n;
        }
        /* a combining mark after the last character that fits stays with it */
        while (s[at]) {
                size_t n = pg_char_at(s + at, &c);

                if (c != 0)
                        break;
                at += n;
        }
        return at;
}

void pg_buf_pad(struct pg_buf *out, const char *s, size_t cols)
{
        size_t w = pg_text_width(s);

        pg_buf_puts(out, s);
        for (; w < cols; w++)
                pg_buf_putc(out, ' ');
}

void pg_fput_pad(FILE *f, const char *s, size_t cols)
{
        size_t w = pg_text_width(s);

        fputs(s, f);
        for (; w < cols; w++)
                putc(' ', f);
}
