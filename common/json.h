/*
 * json.h - parsing JSON with located errors, and perfgate's deterministic
 * JSON writer (on top of cJSON's tree).
 *
 * Writer rules (DESIGN.md section 4): object keys sorted bytewise, two-space
 * indentation, arrays of scalars on one line, every other value on its own
 * line, trailing newline. Numbers: integral values below 2^53 print as
 * integers; other values print with the fewest of 15, 16 or 17 significant
 * digits that read back to the same double. Non-finite numbers are refused
 * (PG_EINPUT): JSON has no NaN or Inf.
 * Strings: `"` and `\` escaped, control bytes as \n \t \r \b \f or \u00XX,
 * DEL as \u007f, and every byte that is not part of well-formed UTF-8
 * replaced by U+FFFD (the one documented rule, also used by
 * pg_utf8_sanitize() so names in memory equal names on disk).
 */
#ifndef PG_COMMON_JSON_H
#define PG_COMMON_JSON_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "common/buf.h"

/**
 * Parse @len bytes of JSON text.
 * @origin:  name used in messages (a path, or "branch:path").
 * @comments: non-zero to accept // and block comments (perfgate.json).
 * @out:     the parsed tree (the caller's; cJSON_Delete() it).
 * Errors: PG_EINPUT "'<origin>': invalid JSON at line L, column C (byte B)".
 * Also refuses NaN/Infinity tokens (they are not JSON), nesting deeper
 * than 1000 levels (CJSON_NESTING_LIMIT; "nested deeper than 1000 levels"),
 * a \u0000 escape (a NUL would silently end the string: the message gives
 * its line, column and string), a lone UTF-16 surrogate escape, an unclosed
 * block comment (@comments) ("... at line L, column C: WHY"),
 * and a name that appears twice in one object (PG_EINPUT "'<origin>': field
 * 'a.b.name' appears twice ..."; RFC 8259 section 4 leaves the choice to the
 * reader, and readers differ).
 */
int pg_json_parse(const char *text, size_t len, const char *origin, int comments, cJSON **out);

/**
 * pg_json_parse(), except that names appearing twice are not looked for
 * inside the object at the dotted path @dups_checked_by_caller (e.g.
 * "profile.stacks", whose loader checks its keys after sanitising them);
 * NULL: everywhere.
 */
int pg_json_parse_except(const char *text, size_t len, const char *origin, int comments,
                         const char *dups_checked_by_caller, cJSON **out);

/**
 * Append @item, deterministically formatted (rules above), to @out, followed
 * by a newline. Errors: PG_EINPUT naming the key of a non-finite number.
 */
int pg_json_write(struct pg_buf *out, const cJSON *item);

/** Append @s as a quoted JSON string to @out (escaping rules above). */
void pg_json_write_string(struct pg_buf *out, const char *s);

/** Append number @v as the writer prints it (no NaN/Inf: the caller checks). */
void pg_json_write_number(struct pg_buf *out, double v);

/**
 * Append @len bytes of @s to @out with every byte that is not part of
 * well-formed UTF-8 (overlong, surrogate, > U+10FFFF, truncated) replaced by
 * U+FFFD (EF BF BD). Other bytes, control bytes included, are kept.
 */
void pg_utf8_sanitize(struct pg_buf *out, const char *s, size_t len);

/* pg_show_escape() flags */
#define PG_SHOW_KEEP_LINES 1u /* newlines and tabs stay as they are */

/**
 * Append @len bytes of @s to @out as a message or a terminal may show them:
 * newline, tab and carriage return as \n \t \r, every other control byte,
 * DEL, and every byte that is not part of well-formed UTF-8 as \xNN; the
 * bidi controls U+202A..U+202E and U+2066..U+2069 (which would reorder the
 * rest of a line, Unicode UAX #9) as \uXXXX;
 * everything else (printable ASCII, well-formed UTF-8) as it is. Nothing @s
 * holds can then move the cursor, colour the terminal, start a line of its
 * own in a log or a comment, or end a message early (docs/limits.md, "Names").
 * @flags: PG_SHOW_KEEP_LINES keeps newlines and tabs (text whose lines are
 * perfgate's own: a message of several lines, the end of a log).
 * The one rule for every message that quotes user input or file contents.
 */
void pg_show_escape(struct pg_buf *out, const char *s, size_t len, unsigned flags);

/** pg_show_escape() of the C string @s without flags, as a new string (free() it). */
char *pg_shown(const char *s);

/**
 * Length of the well-formed UTF-8 sequence at @s (at most @n bytes), or 0
 * when the bytes at @s do not start one.
 */
size_t pg_utf8_seqlen(const unsigned char *s, size_t n);

/* Typed getters on a parsed object; NULL/0 when absent or of another type. */
const char *pg_json_get_string(const cJSON *obj, const char *key);

/**
 * Refuse a key of the object @o that is not one of @known (NULL-terminated):
 * in a config, a misspelt key ("threshhold") would otherwise silently leave
 * the default in force. @origin names the file; @where the object ("defaults",
 * "compare.metrics.ipc"), or NULL for the top level.
 * Returns 0, or PG_EINPUT with "'ORIGIN': unknown key 'K' in WHERE; known
 * keys: A, B" ("unknown top-level key 'K'; ..." when @where is NULL).
 */
int pg_json_check_keys(const cJSON *o, const char *const *known, const char *origin,
                       const char *where);

#endif
