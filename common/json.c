/*
 * json.c - located JSON parse errors and the deterministic writer (json.h).
 * The writer sorts object members at print time, so callers may build trees
 * in any order and still get identical bytes.
 */
#include "common/json.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

size_t pg_utf8_seqlen(const unsigned char *s, size_t n)
{
        unsigned c = s[0];
        size_t len;
        unsigned cp;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf) {
                len = 2;
                cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
                len = 3;
                cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
                len = 4;
                cp = c & 0x07;
        } else {
                return 0;
        }
        if (n < len)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

void pg_utf8_sanitize(struct pg_buf *out, const char *s, size_t len)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t i = 0, start = 0;

        while (i < len) {
                size_t n = pg_utf8_seqlen(p + i, len - i);
                if (n) {
                        i += n;
                        continue;
                }
                pg_buf_add(out, s + start, i - start);
                pg_buf_add(out, "\xef\xbf\xbd", 3);
                i++;
                start = i;
        }
        pg_buf_add(out, s + start, i - start);
}

/* Blank out comments but keep every newline, so error positions stay true. */
void pg_show_escape(struct pg_buf *out, const char *s, size_t len, unsigned flags)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t i = 0;

        while (i < len) {
                unsigned char c = p[i];
                size_t n = c < 0x80 ? 1 : pg_utf8_seqlen(p + i, len - i);
                /* the bidi embedding, override and isolate controls, U+202A..E
                 * and U+2066..9 (Unicode UAX #9), reorder the rest of a line */
                if (n == 3 && c == 0xe2 &&
                    ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
                     (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9))) {
                        pg_buf_printf(
                            out, "\\u%04x",
                            (unsigned) (0x2000 | ((p[i + 1] & 0x3f) << 6) | (p[i + 2] & 0x3f)));
                        i += n;
                        continue;
                }
                if (n > 1) {
                        pg_buf_add(out, s + i, n);
                        i += n;
                        continue;
                }
                i++;
                if ((c == '\n' || c == '\t') && (flags & PG_SHOW_KEEP_LINES))
                        pg_buf_putc(out, (char) c);
                else if (c == '\n')
                        pg_buf_puts(out, "\\n");
                else if (c == '\t')
                        pg_buf_puts(out, "\\t");
                else if (c == '\r')
                        pg_buf_puts(out, "\\r");
                else if (c < 0x20 || c >= 0x7f) /* control, DEL, not UTF-8 */
                        pg_buf_printf(out, "\\x%02x", c);
                else
                        pg_buf_putc(out, (char) c);
        }
}

char *pg_shown(const char *s)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_show_escape(&b, s, strlen(s), 0);
        return pg_buf_detach(&b, NULL);
}

static void pg_json_strip_comments(char *t, size_t len)
{
        int in_str = 0;

        for (size_t i = 0; i < len; i++) {
                if (in_str) {
                        if (t[i] == '\\' && i + 1 < len)
                                i++;
                        else if (t[i] == '"')
                                in_str = 0;
                } else if (t[i] == '"') {
                        in_str = 1;
                } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
                        while (i < len && t[i] != '\n')
                                t[i++] = ' ';
                } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
                        t[i] = t[i + 1] = ' ';
                        for (i += 2; i < len && !(t[i] == '*' && i + 1 < len && t[i + 1] == '/');
                             i++)
                                if (t[i] != '\n')
                                        t[i] = ' ';
                        if (i < len)
                                t[i] = t[i + 1] = ' ', i++;
                }
        }
}

static int pg_name_ptr_cmp(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/*
 * The first key that appears twice in one object of @node, depth first, or
 * NULL; its object's path ("metrics.task-clock") goes to @path. RFC 8259
 * (section 4) leaves duplicate names to the reader: cJSON keeps the first,
 * Python, jq and JavaScript the last, so one file could show a reviewer one
 * number and gate on another. O(n log n) per object.
 */
static const char *pg_json_duplicate(const cJSON *node, struct pg_buf *path, const char *skip)
{
        const cJSON *c;
        size_t n = 0, i = 0, mark = path->len;
        const char **names;
        const char *dup = NULL;

        if ((!cJSON_IsObject(node) && !cJSON_IsArray(node)) ||
            (skip && path->len && strcmp(path->ptr, skip) == 0))
                return NULL;
        for (c = node->child; c; c = c->next)
                n++;
        if (cJSON_IsObject(node) && n > 1) {
                names = pg_xcalloc(n, sizeof(*names));
                for (c = node->child; c; c = c->next)
                        names[i++] = c->string ? c->string : "";
                qsort(names, n, sizeof(*names), pg_name_ptr_cmp);
                for (i = 1; i < n && !dup; i++)
                        if (strcmp(names[i - 1], names[i]) == 0)
                                dup = names[i];
                free(names);
                if (dup)
                        return dup;
        }
        i = 0;
        for (c = node->child; c && !dup; c = c->next, i++) {
                if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
                        continue;
                if (path->len)
                        pg_buf_putc(path, '.');
                if (cJSON_IsObject(node))
                        pg_buf_puts(path, c->string ? c->string : "");
                else
                        pg_buf_printf(path, "%zu", i);
                dup = pg_json_duplicate(c, path, skip);
                if (!dup)
                        pg_buf_truncate(path, mark);
        }
        return dup;
}

/* Whether cJSON stopped at byte @off of @t (@len bytes) because the array
 * or object there would nest deeper than CJSON_NESTING_LIMIT (cJSON.h):
 * that many are open before it (outside strings). */
static bool pg_json_too_deep(const char *t, size_t len, size_t off)
{
        size_t depth = 0;
        bool in_str = false;

        if (off >= len || (t[off] != '[' && t[off] != '{'))
                return false;
        for (size_t i = 0; i < off; i++) {
                char c = t[i];
                if (in_str) {
                        if (c == '\\')
                                i++;
                        else if (c == '"')
                                in_str = false;
                } else if (c == '"') {
                        in_str = true;
                } else if (c == '[' || c == '{') {
                        depth++;
                } else if ((c == ']' || c == '}') && depth > 0) {
                        depth--;
                }
        }
        return depth >= CJSON_NESTING_LIMIT;
}

/* The first \u0000 escape in @t (@len bytes), or NULL. cJSON decodes it to
 * a NUL that ends the C string it builds: a name would be cut there
 * silently, and two names that differ only after it would collide. Escapes
 * come in pairs ("\\\\u0000" is a backslash, then text), so the scan steps
 * over each one whole. */
static const char *pg_json_nul_escape(const char *t, size_t len)
{
        const char *p = t, *end = t + len;

        while (p < end && (p = memchr(p, '\\', (size_t) (end - p))) != NULL) {
                if (end - p >= 6 && memcmp(p + 1, "u0000", 5) == 0)
                        return p;
                p += 2;
        }
        return NULL;
}

/* PG_EINPUT for the \u0000 at @at of @t: its line and column, and the
 * string that holds it (as written, escaped, at most 200 bytes). */
static int pg_json_nul_error(const char *t, size_t len, const char *at, const char *origin)
{
        const char *start = t, *end;
        size_t line = 1, col = 1;
        bool in_str = false;
        struct pg_buf shown = PG_BUF_INIT;
        int rc;

        for (const char *p = t; p < at; p++) {
                if (*p == '\n') {
                        line++;
                        col = 1;
                } else {
                        col++;
                }
                if (in_str && *p == '\\') {
                        p++;
                        col++;
                } else if (*p == '"') {
                        in_str = !in_str;
                        start = p;
                }
        }
        for (end = at; end < t + len && *end != '"'; end++)
                if (*end == '\\')
                        end++;
        if (end > t + len)
                end = t + len;
        if (end - start > 200)
                end = start + 200;
        pg_show_escape(&shown, start, (size_t) (end - start), 0);
        rc =
            pg_error_set(PG_EINPUT,
                         "'%s': line %zu, column %zu: \\u0000 (a NUL character) in the string "
                         "%s%s, which no name or value can hold; remove it",
                         origin, line, col, shown.ptr, end < t + len && *end == '"' ? "\"" : "...");
        pg_buf_release(&shown);
        return rc;
}

int pg_json_parse(const char *text, size_t len, const char *origin, int comments, cJSON **out)
{
        return pg_json_parse_except(text, len, origin, comments, NULL, out);
}

/* 1-based line and column of byte @off of @text. */
static void pg_json_where(const char *text, size_t off, size_t *line, size_t *col)
{
        *line = 1;
        *col = 1;
        for (size_t i = 0; i < off; i++) {
                if (text[i] == '\n') {
                        (*line)++;
                        *col = 1;
                } else {
                        (*col)++;
                }
        }
}

static int pg_json_hex4(const char *p, size_t room, unsigned *v)
{
        *v = 0;
        if (room < 4)
                return 0;
        for (int k = 0; k < 4; k++) {
                char c = p[k];
                unsigned d = c >= '0' && c <= '9'   ? (unsigned) (c - '0')
                             : c >= 'a' && c <= 'f' ? (unsigned) (c - 'a' + 10)
                             : c >= 'A' && c <= 'F' ? (unsigned) (c - 'A' + 10)
                                                    : 16u;
                if (d == 16)
                        return 0;
                *v = *v * 16 + d;
        }
        return 1;
}

/*
 * What cJSON accepts silently but perfgate must not (besides \u0000,
 * pg_json_nul_escape()): a lone UTF-16 surrogate escape (no character; RFC
 * 8259 section 8.2), and, with @comments, a block comment never closed (the
 * rest of the file would vanish). 0, or PG_EINPUT naming the line and
 * column.
 */
static int pg_json_precheck(const char *text, size_t len, const char *origin, int comments)
{
        const char *why = NULL;
        size_t i = 0, at = 0, line, col;
        int in_str = 0;

        for (; i < len && !why; i++) {
                if (in_str) {
                        unsigned v, w;
                        if (text[i] == '"') {
                                in_str = 0;
                        } else if (text[i] == '\\' && i + 1 < len) {
                                if (text[i + 1] == 'u' &&
                                    pg_json_hex4(text + i + 2, len - i - 2, &v)) {
                                        at = i; /* \u0000: pg_json_nul_escape() */
                                        if (v >= 0xdc00 && v <= 0xdfff)
                                                why = "a \\u escape is a lone low surrogate (no "
                                                      "character; write the character itself)";
                                        else if (v >= 0xd800 && v <= 0xdbff) {
                                                if (i + 7 < len && text[i + 6] == '\\' &&
                                                    text[i + 7] == 'u' &&
                                                    pg_json_hex4(text + i + 8, len - i - 8, &w) &&
                                                    w >= 0xdc00 && w <= 0xdfff)
                                                        i += 6;
                                                else
                                                        why = "a \\u escape is a high surrogate "
                                                              "without its low half (no "
                                                              "character; write the character "
                                                              "itself)";
                                        }
                                        i += 5;
                                } else {
                                        i++;
                                }
                        }
                } else if (text[i] == '"') {
                        in_str = 1;
                } else if (comments && text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
                        while (i < len && text[i] != '\n')
                                i++;
                } else if (comments && text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
                        at = i;
                        for (i += 2; i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'); i++)
                                ;
                        if (i + 1 >= len)
                                why = "a /* comment is never closed";
                        else
                                i++;
                }
        }
        if (!why)
                return 0;
        pg_json_where(text, at, &line, &col);
        return pg_error_set(PG_EINPUT, "'%s': invalid JSON at line %zu, column %zu: %s", origin,
                            line, col, why);
}

int pg_json_parse_except(const char *text, size_t len, const char *origin, int comments,
                         const char *dups_checked_by_caller, cJSON **out)
{
        char *copy = NULL;
        const char *end = NULL;
        cJSON *root;

        *out = NULL;
        if (pg_json_precheck(text, len, origin, comments) < 0)
                return PG_EINPUT;
        if (comments) {
                copy = pg_xmalloc(len + 1);
                memcpy(copy, text, len);
                copy[len] = '\0';
                pg_json_strip_comments(copy, len);
                text = copy;
        }
        {
                const char *nul = pg_json_nul_escape(text, len);
                if (nul) {
                        int rc = pg_json_nul_error(text, len, nul, origin);
                        free(copy);
                        return rc;
                }
        }
        root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
        if (root && end) {
                /* cJSON stops after the first value; anything but whitespace is an error */
                while (end < text + len &&
                       (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
                        end++;
                if (end < text + len && *end != '\0') {
                        cJSON_Delete(root);
                        root = NULL;
                }
        }
        if (!root) {
                size_t off = end && end >= text ? (size_t) (end - text) : 0;
                bool deep;
                size_t line = 1, col = 1;
                if (!end || end < text || off > len)
                        off = len;
                for (size_t i = 0; i < off; i++) {
                        if (text[i] == '\n') {
                                line++;
                                col = 1;
                        } else {
                                col++;
                        }
                }
                deep = pg_json_too_deep(text, len, off);
                free(copy);
                if (len == 0)
                        return pg_error_set(PG_EINPUT, "'%s': invalid JSON: the file is empty",
                                            origin);
                if (deep)
                        return pg_error_set(PG_EINPUT,
                                            "'%s': invalid JSON at line %zu, column %zu (byte "
                                            "%zu): nested deeper than %d levels of arrays and "
                                            "objects",
                                            origin, line, col, off, (int) CJSON_NESTING_LIMIT);
                return pg_error_set(PG_EINPUT,
                                    "'%s': invalid JSON at line %zu, column %zu (byte %zu)", origin,
                                    line, col, off);
        }
        free(copy);
        {
                struct pg_buf path = PG_BUF_INIT;
                const char *dup = pg_json_duplicate(root, &path, dups_checked_by_caller);
                if (dup) {
                        int error = pg_error_set(
                            PG_EINPUT,
                            "'%s': field '%s%s%s' appears twice (JSON readers disagree on which "
                            "one counts); keep one",
                            origin, path.len ? path.ptr : "", path.len ? "." : "", dup);
                        pg_buf_release(&path);
                        cJSON_Delete(root);
                        return error;
                }
                pg_buf_release(&path);
        }
        *out = root;
        return 0;
}

void pg_json_write_number(struct pg_buf *out, double v)
{
        char tmp[64];

        if (v == 0) {
                pg_buf_putc(out, '0');
                return;
        }
        if (v == floor(v) && fabs(v) < 9007199254740992.0) {
                pg_buf_printf(out, "%.0f", v);
                return;
        }
        for (int prec = 15; prec <= 17; prec++) {
                snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
                if (strtod(tmp, NULL) == v || prec == 17)
                        break;
        }
        pg_buf_puts(out, tmp);
}

void pg_json_write_string(struct pg_buf *out, const char *s)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t len = strlen(s);

        pg_buf_putc(out, '"');
        for (size_t i = 0; i < len;) {
                unsigned char c = p[i];
                size_t n;
                if (c == '"' || c == '\\') {
                        pg_buf_putc(out, '\\');
                        pg_buf_putc(out, (char) c);
                        i++;
                } else if (c < 0x20 || c == 0x7f) {
                        switch (c) {
                        case '\n':
                                pg_buf_puts(out, "\\n");
                                break;
                        case '\t':
                                pg_buf_puts(out, "\\t");
                                break;
                        case '\r':
                                pg_buf_puts(out, "\\r");
                                break;
                        case '\b':
                                pg_buf_puts(out, "\\b");
                                break;
                        case '\f':
                                pg_buf_puts(out, "\\f");
                                break;
                        default:
                                pg_buf_printf(out, "\\u%04x", c);
                        }
                        i++;
                } else if ((n = pg_utf8_seqlen(p + i, len - i)) != 0) {
                        pg_buf_add(out, p + i, n);
                        i += n;
                } else {
                        pg_buf_add(out, "\xef\xbf\xbd", 3);
                        i++;
                }
        }
        pg_buf_putc(out, '"');
}

static int pg_json_is_container(const cJSON *it)
{
        return cJSON_IsArray(it) || cJSON_IsObject(it);
}

static int pg_member_cmp(const void *a, const void *b)
{
        const cJSON *x = *(const cJSON *const *) a, *y = *(const cJSON *const *) b;
        return strcmp(x->string ? x->string : "", y->string ? y->string : "");
}

static void pg_indent(struct pg_buf *out, int depth)
{
        for (int i = 0; i < depth; i++)
                pg_buf_puts(out, "  ");
}

static int pg_json_write_value(struct pg_buf *out, const cJSON *it, int depth)
{
        int error = 0;

        if (cJSON_IsNull(it)) {
                pg_buf_puts(out, "null");
        } else if (cJSON_IsTrue(it)) {
                pg_buf_puts(out, "true");
        } else if (cJSON_IsFalse(it)) {
                pg_buf_puts(out, "false");
        } else if (cJSON_IsNumber(it)) {
                if (!isfinite(it->valuedouble))
                        return pg_error_set(PG_EINPUT, "refusing to write a non-finite number%s%s",
                                            it->string ? " for key " : "",
                                            it->string ? it->string : "");
                pg_json_write_number(out, it->valuedouble);
        } else if (cJSON_IsString(it)) {
                pg_json_write_string(out, it->valuestring ? it->valuestring : "");
        } else if (cJSON_IsArray(it)) {
                int inline_ok = 1;
                const cJSON *c;
                if (!it->child) {
                        pg_buf_puts(out, "[]");
                        return 0;
                }
                for (c = it->child; c; c = c->next)
                        if (pg_json_is_container(c))
                                inline_ok = 0;
                pg_buf_putc(out, '[');
                for (c = it->child; c; c = c->next) {
                        if (inline_ok) {
                                if (c != it->child)
                                        pg_buf_puts(out, ", ");
                        } else {
                                pg_buf_putc(out, '\n');
                                pg_indent(out, depth + 1);
                        }
                        if ((error = pg_json_write_value(out, c, depth + 1)) < 0)
                                return error;
                        if (!inline_ok && c->next)
                                pg_buf_putc(out, ',');
                }
                if (!inline_ok) {
                        pg_buf_putc(out, '\n');
                        pg_indent(out, depth);
                }
                pg_buf_putc(out, ']');
        } else if (cJSON_IsObject(it)) {
                size_t n = 0, i;
                const cJSON **members;
                const cJSON *c;
                for (c = it->child; c; c = c->next)
                        n++;
                if (!n) {
                        pg_buf_puts(out, "{}");
                        return 0;
                }
                members = pg_xcalloc(n, sizeof(*members));
                for (i = 0, c = it->child; c; c = c->next)
                        members[i++] = c;
                qsort(members, n, sizeof(*members), pg_member_cmp);
                pg_buf_putc(out, '{');
                for (i = 0; i < n; i++) {
                        pg_buf_putc(out, '\n');
                        pg_indent(out, depth + 1);
                        pg_json_write_string(out, members[i]->string ? members[i]->string : "");
                        pg_buf_puts(out, ": ");
                        if ((error = pg_json_write_value(out, members[i], depth + 1)) < 0)
                                break;
                        if (i + 1 < n)
                                pg_buf_putc(out, ',');
                }
                free(members);
                if (error)
                        return error;
                pg_buf_putc(out, '\n');
                pg_indent(out, depth);
                pg_buf_putc(out, '}');
        } else {
                return pg_error_set(PG_ERROR, "cannot write a JSON value of unknown type");
        }
        return error;
}

int pg_json_write(struct pg_buf *out, const cJSON *item)
{
        size_t start = out->len;
        int error = pg_json_write_value(out, item, 0);
        if (error < 0) {
                pg_buf_truncate(out, start);
                return error;
        }
        pg_buf_putc(out, '\n');
        return 0;
}

const char *pg_json_get_string(const cJSON *obj, const char *key)
{
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
        return cJSON_IsString(it) ? it->valuestring : NULL;
}

int pg_json_check_keys(const cJSON *o, const char *const *known, const char *origin,
                       const char *where)
{
        const cJSON *it;

        cJSON_ArrayForEach(it, o)
        {
                struct pg_buf list = PG_BUF_INIT;
                const char *const *k;
                int e;

                for (k = known; *k; k++)
                        if (strcmp(*k, it->string) == 0)
                                break;
                if (*k)
                        continue;
                for (k = known; *k; k++)
                        pg_buf_printf(&list, "%s%s", k == known ? "" : ", ", *k);
                if (where)
                        e = pg_error_set(PG_EINPUT, "'%s': unknown key '%s' in %s; known keys: %s",
                                         origin, it->string, where, list.ptr);
                else
                        e = pg_error_set(PG_EINPUT,
                                         "'%s': unknown top-level key '%s'; known keys: %s", origin,
                                         it->string, list.ptr);
                pg_buf_release(&list);
                return e;
        }
        return 0;
}
