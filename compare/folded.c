/*
 * folded.c - folded-stack text parser (rules in folded.h).
 *
 * Two passes: the first splits every line into a stack and one or two
 * trailing counts, the second decides whether the whole input is two-column
 * and builds the stacks, so a file is never read half one way, half the
 * other. Invariant of the output: keys sorted bytewise, unique, counts > 0,
 * totals equal the sums of the counts.
 */
#include "compare/folded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

enum pg_folded_bad {
        PG_FOLDED_NOCOUNT,  /* no count at the end of the line */
        PG_FOLDED_EMPTY,    /* a count but nothing before it */
        PG_FOLDED_RANGE,    /* a count that does not fit in 64 bits */
        PG_FOLDED_FRACTION, /* a fractional count (truncated; the line is used) */
        PG_FOLDED_NUL,      /* a NUL byte in the stack */
        PG_FOLDED_NKINDS
};

struct pg_folded_line {
        const char *key; /* stack as a one-column line */
        size_t key_len;
        uint64_t count;   /* last count */
        bool has_two;     /* the stack itself ends in blanks + a count */
        size_t key2_len;  /* stack as a two-column line (same start) */
        uint64_t count2;  /* the count before the last one ("before") */
        bool frac, frac2; /* which counts were fractional */
        size_t lineno;
};

struct pg_folded_row {
        char *key;
        size_t len;
        uint64_t after, before;
};

void pg_folded_init(struct pg_folded *f)
{
        memset(f, 0, sizeof(*f));
}

static void pg_stacks_free(struct pg_stack *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(s[i].frames);
        free(s);
}

void pg_folded_release(struct pg_folded *f)
{
        pg_stacks_free(f->stacks, f->nstacks);
        pg_stacks_free(f->before, f->nbefore);
        for (size_t i = 0; i < f->nwarnings; i++)
                free(f->warnings[i]);
        free(f->warnings);
        pg_folded_init(f);
}

static bool pg_is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/*
 * Parse the count that ends at @end (exclusive) going back from it; on
 * success set *start to its first byte. Returns 0, or the kind of fault.
 * A fractional count is truncated (kind FRACTION only when a non-zero digit
 * was dropped, so "12.0" is quietly 12).
 */
static int pg_count_parse(const char *line, size_t end, size_t *start, uint64_t *out, bool *frac)
{
        size_t s = end, dot = (size_t) -1;
        uint64_t v = 0;

        *frac = false;
        while (s > 0 && !pg_is_blank(line[s - 1]))
                s--;
        if (s == end)
                return PG_FOLDED_NOCOUNT + 1;
        for (size_t i = s; i < end; i++) {
                if (line[i] == '.' && dot == (size_t) -1 && i > s) {
                        dot = i;
                } else if (line[i] < '0' || line[i] > '9') {
                        return PG_FOLDED_NOCOUNT + 1;
                }
        }
        size_t int_end = dot == (size_t) -1 ? end : dot;
        for (size_t i = s; i < int_end; i++) {
                unsigned d = (unsigned) (line[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return PG_FOLDED_RANGE + 1;
                v = v * 10 + d;
        }
        if (dot != (size_t) -1)
                for (size_t i = dot + 1; i < end; i++)
                        if (line[i] != '0')
                                *frac = true;
        *start = s;
        *out = v;
        return 0;
}

int pg_folded_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
        size_t n = alen < blen ? alen : blen, i = 0;
        /* only the first differing byte matters: find it eight bytes at a time */
        while (i + 8 <= n) {
                uint64_t x, y;
                memcpy(&x, a + i, 8);
                memcpy(&y, b + i, 8);
                if (x != y)
                        break;
                i += 8;
        }
        for (; i < n; i++) {
                unsigned char x = (unsigned char) a[i], y = (unsigned char) b[i];
                if (x == y)
                        continue;
                int rx = x == ';' ? 0 : x + 1, ry = y == ';' ? 0 : y + 1;
                return rx - ry;
        }
        return (alen > blen) - (alen < blen);
}

static int pg_row_cmp(const void *pa, const void *pb)
{
        const struct pg_folded_row *a = pa, *b = pb;
        return pg_folded_key_cmp(a->key, a->len, b->key, b->len);
}

static void pg_folded_warn(struct pg_folded *f, int kind, size_t n, size_t first)
{
        const char *s = n == 1 ? "" : "s";
        char *msg;
        switch (kind) {
        case PG_FOLDED_NOCOUNT:
                msg = pg_xasprintf("ignored %zu line%s without a sample count at the end "
                                   "(first: line %zu)",
                                   n, s, first);
                break;
        case PG_FOLDED_EMPTY:
                msg = pg_xasprintf("ignored %zu line%s with an empty stack (first: line %zu)", n, s,
                                   first);
                break;
        case PG_FOLDED_NUL:
                msg = pg_xasprintf("ignored %zu line%s with a NUL byte in the stack (first: line "
                                   "%zu)",
                                   n, s, first);
                break;
        case PG_FOLDED_RANGE:
                msg = pg_xasprintf("ignored %zu line%s whose count is too large (first: line %zu)",
                                   n, s, first);
                break;
        default:
                msg = pg_xasprintf("truncated the fractional counts of %zu line%s to whole "
                                   "samples (first: line %zu)",
                                   n, s, first);
                break;
        }
        f->warnings = pg_xreallocarray(f->warnings, f->nwarnings + 1, sizeof(char *));
        f->warnings[f->nwarnings++] = msg;
}

int pg_folded_parse(struct pg_folded *f, const char *text, size_t len, const char *origin)
{
        struct pg_folded_line *lines = NULL;
        struct pg_folded_row *rows = NULL;
        size_t nlines = 0, caplines = 0, nrows = 0, lineno = 0, ntwo = 0;
        size_t bad_n[PG_FOLDED_NKINDS] = { 0 }, bad_first[PG_FOLDED_NKINDS] = { 0 };
        int error = 0;

        pg_folded_init(f);
        for (size_t pos = 0; pos < len;) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t end = nl ? (size_t) (nl - text) : len;
                const char *line = text + pos;
                size_t n = end - pos, cstart = 0, c2start = 0;
                struct pg_folded_line l = { 0 };
                int bad;

                pos = nl ? end + 1 : len;
                lineno++;
                while (n > 0 && (pg_is_blank(line[n - 1]) || line[n - 1] == '\r'))
                        n--;
                if (n == 0)
                        continue;
                bad = pg_count_parse(line, n, &cstart, &l.count, &l.frac);
                if (!bad && cstart == 0)
                        bad = PG_FOLDED_NOCOUNT + 1;
                if (!bad) {
                        l.key = line;
                        l.key_len = cstart;
                        /* blanks, then empty trailing frames: flamegraph.pl splits the
                         * stack with Perl's split, which drops them ("a;" is "a"; real
                         * stackcollapse-perf.pl output has them for a frame without a
                         * symbol); an inner empty frame stays, a box without a name */
                        while (l.key_len > 0 &&
                               (pg_is_blank(line[l.key_len - 1]) || line[l.key_len - 1] == ';'))
                                l.key_len--;
                        if (l.key_len == 0)
                                bad = PG_FOLDED_EMPTY + 1;
                }
                if (bad) {
                        if (bad_n[bad - 1]++ == 0)
                                bad_first[bad - 1] = lineno;
                        continue;
                }
                /* Does the stack itself end in a count? Then it may be two-column. */
                if (pg_count_parse(line, l.key_len, &c2start, &l.count2, &l.frac2) == 0 &&
                    c2start > 0) {
                        l.key2_len = c2start;
                        while (l.key2_len > 0 &&
                               (pg_is_blank(line[l.key2_len - 1]) || line[l.key2_len - 1] == ';'))
                                l.key2_len--;
                        if (l.key2_len > 0) {
                                l.has_two = true;
                                ntwo++;
                        }
                }
                /* keys are C strings downstream: a NUL byte would cut the stack
                 * there, so the line is skipped (found by fuzzing) */
                if (memchr(line, '\0', l.key_len)) {
                        if (l.has_two)
                                ntwo--;
                        if (bad_n[PG_FOLDED_NUL]++ == 0)
                                bad_first[PG_FOLDED_NUL] = lineno;
                        continue;
                }
                l.lineno = lineno;
                if (nlines == caplines) {
                        caplines = caplines ? 2 * caplines : 256;
                        lines = pg_xreallocarray(lines, caplines, sizeof(*lines));
                }
                lines[nlines++] = l;
        }

        f->two_column = nlines > 0 && ntwo == nlines;
        f->nlines = nlines;
        rows = pg_xcalloc(nlines ? nlines : 1, sizeof(*rows));
        for (size_t i = 0; i < nlines; i++) {
                const struct pg_folded_line *l = &lines[i];
                bool frac = l->frac || (f->two_column && l->frac2);
                if (frac && bad_n[PG_FOLDED_FRACTION]++ == 0)
                        bad_first[PG_FOLDED_FRACTION] = l->lineno;
                rows[i].len = f->two_column ? l->key2_len : l->key_len;
                rows[i].key = pg_xstrndup(l->key, rows[i].len);
                rows[i].after = l->count;
                rows[i].before = f->two_column ? l->count2 : 0;
        }
        qsort(rows, nlines, sizeof(*rows), pg_row_cmp);
        for (size_t i = 0; i < nlines; i++) {
                if (nrows > 0 && rows[nrows - 1].len == rows[i].len &&
                    memcmp(rows[nrows - 1].key, rows[i].key, rows[i].len) == 0) {
                        struct pg_folded_row *r = &rows[nrows - 1];
                        if (r->after > UINT64_MAX - rows[i].after ||
                            r->before > UINT64_MAX - rows[i].before) {
                                error = pg_error_set(PG_EINPUT,
                                                     "counts of stack in '%s' add up to more "
                                                     "than 2^64; check the input",
                                                     origin);
                                goto done;
                        }
                        r->after += rows[i].after;
                        r->before += rows[i].before;
                        free(rows[i].key);
                        rows[i].key = NULL;
                } else {
                        struct pg_folded_row r = rows[i];
                        rows[i].key = NULL;
                        rows[nrows++] = r;
                }
        }
        f->stacks = pg_xcalloc(nrows ? nrows : 1, sizeof(struct pg_stack));
        f->before = pg_xcalloc(nrows ? nrows : 1, sizeof(struct pg_stack));
        for (size_t i = 0; i < nrows; i++) {
                if (rows[i].after > UINT64_MAX - f->total ||
                    rows[i].before > UINT64_MAX - f->total_before) {
                        error = pg_error_set(PG_EINPUT,
                                             "counts in '%s' add up to more than 2^64; check the "
                                             "input",
                                             origin);
                        goto done;
                }
                f->total += rows[i].after;
                f->total_before += rows[i].before;
                /* the key moves to the first column that keeps it; a copy for the second */
                if (rows[i].after > 0) {
                        f->stacks[f->nstacks++] = (struct pg_stack){ rows[i].key, rows[i].after };
                        rows[i].key = NULL;
                }
                if (rows[i].before > 0) {
                        char *key = rows[i].key ? rows[i].key
                                                : pg_xstrdup(f->stacks[f->nstacks - 1].frames);
                        f->before[f->nbefore++] = (struct pg_stack){ key, rows[i].before };
                        rows[i].key = NULL;
                }
        }
        for (int k = 0; k < PG_FOLDED_NKINDS; k++)
                if (bad_n[k])
                        pg_folded_warn(f, k, bad_n[k], bad_first[k]);
        if (!f->two_column && ntwo > 0 && ntwo * 2 > nlines) {
                f->warnings = pg_xreallocarray(f->warnings, f->nwarnings + 1, sizeof(char *));
                f->warnings[f->nwarnings++] =
                    pg_xasprintf("read '%s' as one-column text: only %zu of %zu lines end in two "
                                 "counts (a two-column diff needs them on every line)",
                                 origin, ntwo, nlines);
        }

done:
        for (size_t i = 0; i < nlines; i++)
                free(rows[i].key);
        if (error)
                pg_folded_release(f);
        free(rows);
        free(lines);
        return error;
}

static char *pg_profile_info(const struct pg_result *r, const struct pg_profile *p)
{
        struct pg_buf b = PG_BUF_INIT;
        char num[32];
        int n;

        if (p == &r->offcpu) {
                pg_buf_printf(&b, "%s: %.3f s blocked in %llu run%s (off-CPU, context switches)",
                              r->name ? r->name : "result", (double) p->samples / 1e9,
                              (unsigned long long) p->runs, p->runs == 1 ? "" : "s");
                if (r->has_git && r->git_commit)
                        pg_buf_printf(&b, ", commit %.7s%s", r->git_commit,
                                      r->git_dirty ? " (dirty)" : "");
                return pg_buf_detach(&b, NULL);
        }
        n = snprintf(num, sizeof(num), "%llu", (unsigned long long) r->profile.samples);

        pg_buf_printf(&b, "%s: ", r->name ? r->name : "result");
        for (int i = 0; i < n; i++) {
                if (i > 0 && (n - i) % 3 == 0)
                        pg_buf_putc(&b, ',');
                pg_buf_putc(&b, num[i]);
        }
        pg_buf_printf(&b, " samples of %s", r->profile.event ? r->profile.event : "an event");
        if (r->profile.frequency_hz)
                pg_buf_printf(&b, " at %llu Hz", (unsigned long long) r->profile.frequency_hz);
        if (r->has_git && r->git_commit)
                pg_buf_printf(&b, ", commit %.7s%s", r->git_commit, r->git_dirty ? " (dirty)" : "");
        return pg_buf_detach(&b, NULL);
}

int pg_folded_load(struct pg_folded *f, const char *path, char **info)
{
        return pg_folded_load_profile(f, path, false, info);
}

int pg_folded_load_profile(struct pg_folded *f, const char *path, bool off_cpu, char **info)
{
        const struct pg_profile *p;
        struct pg_buf text = PG_BUF_INIT;
        struct pg_result r;
        const char *origin = strcmp(path, "-") == 0 ? "stdin" : path;
        size_t i = 0;
        int error;

        pg_folded_init(f);
        pg_result_init(&r);
        if (info)
                *info = NULL;
        if (strcmp(path, "-") != 0 && pg_is_dir(path)) {
                error = pg_error_set(
                    PG_EINPUT, "'%s' is a directory; give a result file or folded stacks", path);
                goto done;
        }
        if ((error = pg_read_input(path, "result file or folded stacks", &text)) < 0)
                goto done;
        while (i < text.len && (text.ptr[i] == ' ' || text.ptr[i] == '\t' || text.ptr[i] == '\n' ||
                                text.ptr[i] == '\r'))
                i++;
        if (i == text.len || text.ptr[i] != '{') {
                error = pg_folded_parse(f, text.ptr, text.len, origin);
                goto done;
        }
        if ((error = pg_result_from_json_buf(&r, text.ptr, text.len, origin)) < 0)
                goto done;
        p = off_cpu ? &r.offcpu : &r.profile;
        if (off_cpu && !p->present) {
                error = pg_error_set(PG_EINPUT,
                                     "result '%s' has no off-CPU profile; record one with "
                                     "'perfgate run --off-cpu'",
                                     origin);
                goto done;
        }
        if (!p->present) {
                error = pg_error_set(PG_EINPUT,
                                     "result '%s' has no profile (recorded with --no-profile?); "
                                     "run 'perfgate run' with sampling to get one",
                                     origin);
                goto done;
        }
        f->stacks = pg_xcalloc(p->nstacks + 1, sizeof(*f->stacks));
        f->before = pg_xcalloc(1, sizeof(*f->before));
        for (size_t k = 0; k < p->nstacks; k++) {
                const struct pg_stack *s = &p->stacks[k];
                if (s->count == 0)
                        continue;
                if (s->count > UINT64_MAX - f->total) {
                        error = pg_error_set(PG_EINPUT,
                                             "counts in '%s' add up to more than 2^64; check the "
                                             "input",
                                             origin);
                        goto done;
                }
                f->total += s->count;
                f->stacks[f->nstacks++] = (struct pg_stack){ pg_xstrdup(s->frames), s->count };
        }
        f->nlines = f->nstacks;
        if (info)
                *info = pg_profile_info(&r, p);
        error = 0;
done:
        if (error) {
                pg_folded_release(f);
                if (info) {
                        free(*info);
                        *info = NULL;
                }
        }
        pg_result_release(&r);
        pg_buf_release(&text);
        return error;
}
