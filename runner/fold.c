/*
 * fold.c - frame-name rules for folded stacks (see fold.h).
 *
 * Invariants: every function appends to the caller's buffer and never reads
 * past the given length (names are not NUL-terminated: they point into
 * perf script lines or symbol tables); nothing allocates except the buffer
 * growth; a frame written here never contains ';' or a control character
 * (NUL, '\n', '\r', ESC, ...), so folded text stays one stack per line and
 * every name is a C string that XML can carry.
 */
#include "runner/fold.h"

#include <string.h>

#include "common/json.h"

/*
 * Why a fast path: the importer writes millions of frames; almost all are
 * plain ASCII without separators, so one scan and one memcpy beat the
 * per-character UTF-8 validation of pg_utf8_sanitize().
 */
static void pg_fold_put(struct pg_buf *out, const char *s, size_t len, bool drop_quotes)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t i;

        for (i = 0; i < len; i++) {
                unsigned char c = p[i];
                if (c >= 0x7f || c < 0x20 || c == ';' || c == '"' || c == '\'')
                        break;
        }
        pg_buf_add(out, s, i);
        while (i < len) {
                unsigned char c = p[i];
                if (c < 0x80) {
                        if (c == ';')
                                pg_buf_putc(out, ':');
                        else if (c < 0x20 || c == 0x7f)
                                pg_buf_putc(out, ' '); /* NUL, newline, ESC: never in a frame */
                        else if (!(drop_quotes && (c == '"' || c == '\'')))
                                pg_buf_putc(out, (char) c);
                        i++;
                        continue;
                }
                size_t n = pg_utf8_seqlen(p + i, len - i);
                if (n) {
                        pg_buf_add(out, s + i, n);
                        i += n;
                } else {
                        pg_buf_add(out, "\xef\xbf\xbd", 3);
                        i++;
                }
        }
}

void pg_fold_append_frame(struct pg_buf *out, const char *name, size_t len, enum pg_frame_kind kind)
{
        if (len == 0)
                pg_buf_puts(out, "[unknown]");
        else
                pg_fold_put(out, name, len, false);
        pg_buf_puts(out, pg_frame_suffix(kind));
}

void pg_fold_append_comm(struct pg_buf *out, const char *comm, size_t len, enum pg_comm_mode mode)
{
        size_t start = out->len, end;

        if (mode == PG_COMM_NONE)
                return;
        pg_fold_append_frame(out, comm, len, PG_FRAME_USER);
        for (size_t i = start; i < out->len; i++)
                if (out->ptr[i] == ' ')
                        out->ptr[i] = '_';
        if (mode != PG_COMM_NORMALIZE)
                return;
        end = out->len;
        while (end > start && out->ptr[end - 1] >= '0' && out->ptr[end - 1] <= '9')
                end--;
        if (end < out->len && end > start && strchr("-_/# ", out->ptr[end - 1]) != NULL) {
                pg_buf_truncate(out, end);
                pg_buf_putc(out, '*');
        }
}

static bool pg_is_hex(char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

size_t pg_fold_strip_offset(const char *sym, size_t len)
{
        size_t i = len;

        while (i > 0 && pg_is_hex(sym[i - 1]))
                i--;
        if (i == len || i < 3 || sym[i - 1] != 'x' || sym[i - 2] != '0' || sym[i - 3] != '+')
                return len;
        return i - 3;
}

static bool pg_has_prefix(const char *s, size_t len, const char *prefix)
{
        size_t n = strlen(prefix);
        return len >= n && memcmp(s, prefix, n) == 0;
}

static bool pg_has_suffix(const char *s, size_t len, const char *suffix)
{
        size_t n = strlen(suffix);
        return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* The reference leaves Go method names ("net/http.(*Client).Do") alone. */
static bool pg_looks_go(const char *s, size_t len)
{
        const char *open = memmem(s, len, ".(", 2);
        if (!open)
                return false;
        size_t rest = len - (size_t) (open - s);
        return memmem(open, rest, ").", 2) != NULL;
}

/*
 * Whether what follows the last ')' is only qualifiers: " const", " &&",
 * " noexcept", "[clone .cold]" groups or a JVM return descriptor
 * ("Ljava/lang/Object;", "V"). Anything with '.', ':', brackets or braces
 * outside "[...]" means the ')' closed something inside the name
 * (a Go receiver, a local class "f()::g", a template argument).
 */
static bool pg_tail_is_qualifiers(const char *t, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                char c = t[i];
                if (c == '[') {
                        const char *close = memchr(t + i, ']', n - i);
                        if (!close)
                                return false;
                        i = (size_t) (close - t);
                        continue;
                }
                if (c == '.' || c == ':' || c == '(' || c == ')' || c == '<' || c == '>' ||
                    c == '{' || c == '}' || c == ']')
                        return false;
        }
        return true;
}

size_t pg_fold_strip_params(const char *s, size_t len)
{
        size_t depth = 0, open0 = 0, last_close = len;
        bool any_open0 = false;

        if (len == 0 || !memchr(s, '(', len) || pg_looks_go(s, len))
                return len;
        for (size_t i = 0; i < len; i++) {
                if (s[i] == '(') {
                        if (depth == 0) {
                                open0 = i;
                                any_open0 = true;
                        }
                        depth++;
                } else if (s[i] == ')') {
                        if (depth > 0)
                                depth--;
                        last_close = i;
                }
        }
        if (depth > 0) {
                /* a truncated signature such as "Lfoo;.call(Lorg/mozilla/C" */
                return open0 > 0 ? open0 : len;
        }
        if (!any_open0 || last_close == len)
                return len;
        if (!pg_tail_is_qualifiers(s + last_close + 1, len - last_close - 1))
                return len;
        size_t l = last_close;
        depth = 0;
        for (;;) {
                if (s[l] == ')')
                        depth++;
                else if (s[l] == '(' && --depth == 0)
                        break;
                if (l == 0)
                        return len;
                l--;
        }
        if (l == 0)
                return len;
        if (l + 1 == last_close && l >= 8 && memcmp(s + l - 8, "operator", 8) == 0)
                return len; /* "operator()" with no parameter list after it */
        if (s[l - 1] == '.')
                return len; /* Go receiver "pkg.(*T)" */
        if (last_close - l + 1 == 21 && memcmp(s + l, "(anonymous namespace)", 21) == 0)
                return len;
        return l;
}

void pg_fold_append_symbol(struct pg_buf *out, const char *sym, size_t len, bool java,
                           enum pg_frame_kind kind)
{
        size_t n = pg_fold_strip_offset(sym, len);
        size_t start = out->len;

        n = pg_fold_strip_params(sym, n);
        if (java && n > 1 && sym[0] == 'L' && memchr(sym, '/', n) != NULL) {
                sym++;
                n--;
        }
        pg_fold_put(out, sym, n, true);
        if (out->len == start)
                pg_buf_puts(out, "[unknown]");
        pg_buf_puts(out, pg_frame_suffix(kind));
}

static bool pg_module_is_kernel_pseudo(const char *mod, size_t len)
{
        return len >= 2 && mod[len - 1] == ']' &&
               (pg_has_prefix(mod, len, "[kernel.") || pg_has_prefix(mod, len, "[guest.kernel."));
}

static const char *pg_base(const char *mod, size_t len, size_t *base_len)
{
        const char *slash = memrchr(mod, '/', len);
        if (!slash) {
                *base_len = len;
                return mod;
        }
        *base_len = len - (size_t) (slash + 1 - mod);
        return slash + 1;
}

void pg_fold_append_unresolved(struct pg_buf *out, const char *module, size_t module_len,
                               const char *pc, size_t pc_len, enum pg_frame_kind kind)
{
        const char *base = "unknown";
        size_t base_len = 7;

        if (module && module_len > 0 && !(module_len == 9 && memcmp(module, "[unknown]", 9) == 0)) {
                if (pg_module_is_kernel_pseudo(module, module_len)) {
                        base = module + 1;
                        base_len = module_len - 2;
                } else {
                        base = pg_base(module, module_len, &base_len);
                }
        }
        pg_buf_putc(out, '[');
        pg_fold_put(out, base, base_len, true);
        if (pc && pc_len > 0) {
                pg_buf_add(out, " <", 2);
                pg_fold_put(out, pc, pc_len, true);
                pg_buf_putc(out, '>');
        }
        pg_buf_putc(out, ']');
        pg_buf_puts(out, pg_frame_suffix(kind));
}

bool pg_fold_module_is_kernel(const char *mod, size_t len)
{
        size_t base_len;
        const char *base;
        bool kernel;

        if (len == 0)
                return false;
        base = pg_base(mod, len, &base_len);
        kernel = mod[0] == '[' || pg_has_suffix(mod, len, "vmlinux") ||
                 pg_has_prefix(base, base_len, "vmlinux-") ||
                 pg_has_prefix(base, base_len, "bpf_prog_") ||
                 pg_has_suffix(base, base_len, ".ko") || pg_has_suffix(base, base_len, ".ko.xz") ||
                 pg_has_suffix(base, base_len, ".ko.gz") ||
                 pg_has_suffix(base, base_len, ".ko.zst");
        /* checked last: memmem costs more than the tests above, and most frames are user code */
        return kernel && memmem(mod, len, "unknown", 7) == NULL;
}

/* End of the digits run at @q (NULL when there is none). */
static const char *pg_skip_digits(const char *q, const char *end)
{
        const char *d = q;
        while (q < end && *q >= '0' && *q <= '9')
                q++;
        return q > d ? q : NULL;
}

bool pg_fold_module_is_jit(const char *mod, size_t len)
{
        const char *end = mod + len, *p = mod, *q;

        while ((p = memmem(p, (size_t) (end - p), "/tmp/perf-", 10)) != NULL) {
                q = pg_skip_digits(p + 10, end);
                if (q && end - q >= 4 && memcmp(q, ".map", 4) == 0)
                        return true;
                p++;
        }
        p = mod;
        while ((p = memmem(p, (size_t) (end - p), "/jitted-", 8)) != NULL) {
                q = pg_skip_digits(p + 8, end);
                if (q && q < end && *q == '-')
                        q = pg_skip_digits(q + 1, end);
                else
                        q = NULL;
                if (q && end - q >= 3 && memcmp(q, ".so", 3) == 0)
                        return true;
                p++;
        }
        return false;
}
