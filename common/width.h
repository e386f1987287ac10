/*
 * width.h - how many terminal columns text takes, so that the tables
 * perfgate prints (compare, show, history, baseline list, top --stdio) line
 * up when a name holds letters outside ASCII: "ベンチ" is 9 bytes but 6
 * columns, "é" 2 bytes but 1 column.
 *
 * The text is always read as UTF-8, whatever the user's locale says: names
 * come from result files (JSON, UTF-8) and reach the terminal through
 * pg_show_escape(), which shows any byte that is not UTF-8 as \xNN, so what
 * is printed is UTF-8 even under LANG=C. A stray byte that is not UTF-8
 * counts as one column.
 */
#ifndef PG_COMMON_WIDTH_H
#define PG_COMMON_WIDTH_H

#include <stddef.h>
#include <stdio.h>

struct pg_buf;

/**
 * Columns the NUL-terminated UTF-8 text @s takes on a terminal: each code
 * point counts as wcwidth(3) says under glibc's C.UTF-8 locale (Unicode's
 * East Asian Width, UAX #11: 2 for wide and full-width letters, 0 for
 * combining marks); where that locale is missing, 2 for the wide ranges of
 * UAX #11's main blocks, 0 for the combining diacritics U+0300-U+036F and
 * 1 for the rest. A byte that does not start a well-formed UTF-8 sequence,
 * or a code point wcwidth() calls unprintable, counts as 1.
 */
size_t pg_text_width(const char *s);

/**
 * Length in bytes of the longest start of @s that takes at most @cols
 * columns (pg_text_width()) and ends on a character boundary: what to print
 * of @s in a column @cols wide.
 */
size_t pg_text_fit(const char *s, size_t cols);

/**
 * Append @s to @out, then spaces up to @cols columns (none when @s is as
 * wide or wider): printf's "%-*s" counted in columns instead of bytes.
 */
void pg_buf_pad(struct pg_buf *out, const char *s, size_t cols);

/** pg_buf_pad() written to @f. */
void pg_fput_pad(FILE *f, const char *s, size_t cols);

#endif
