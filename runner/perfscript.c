/*
 * perfscript.c - streaming `perf script` text -> folded stacks (see
 * perfscript.h for the grammar and the contract).
 *
 * Invariants:
 * - Input is processed one line at a time straight out of the caller's chunk;
 *   only a line split across two chunks is copied (into `carry`).
 * - A record is the header plus its frame lines. Its frames are written,
 *   already tidied, leaf first into `frames` (offsets in `off`); at the end
 *   of the record they are joined root first into `key`, which is looked up
 *   in a pg_strmap (common/hashmap.h); it copies a stack's text once, the
 *   first time it is seen. No allocation happens per line once
 *   the buffers have grown to the longest record.
 * - State machine: IDLE (between records), RECORD (a kept sample is open),
 *   SKIP (a sample of an event not kept is open: its frames are ignored).
 */
#include "runner/perfscript.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/hashmap.h"
#include "runner/demangle.h"

#define PG_PS_READ_BYTES (256u << 10)
#define PG_PS_MAX_TOKENS 48

enum pg_ps_state { PG_PS_IDLE = 0, PG_PS_RECORD, PG_PS_SKIP };

/* Distinct frame lines remembered (pg_ps_cached_frame()); past it lines are
 * parsed every time, so memory stays bounded on inputs with ever-new lines. */
#define PG_PS_FC_MAX_LINES (1u << 20)
#define PG_PS_FC_MAX_TEXT  (256u << 20)

/* One cached frame line: its parts (usually one; more for "a->b" Java inline
 * chains; none for a skipped process name) and its kernel-frame counts. */
struct pg_ps_fc {
        uint32_t text_off, text_len; /* in fc_text */
        uint32_t ends_off, nparts;   /* in fc_ends */
        uint8_t kernel, unresolved;  /* added to the stats per occurrence */
};

struct pg_perfscript {
        struct pg_perfscript_options opt;
        char *filter_copy; /* event_filter, split in place at ',' */
        char **filters;
        size_t nfilters;

        char source[256];
        uint64_t lineno;
        struct pg_buf carry; /* a line split across feed() calls */
        char *readbuf;

        enum pg_ps_state state;
        bool java;              /* the comm starts with "java": Java 'L' tidy */
        uint64_t weight;        /* of the open record */
        uint64_t rec_line;      /* line number of its header */
        uint64_t overflow_line; /* header of the first sample the total could not hold */
        char overflow_source[256];
        unsigned nraw;        /* frame lines of the open record */
        struct pg_buf comm;   /* its root frame, folded */
        struct pg_buf frames; /* its frames, tidied, leaf first */
        size_t *off;          /* frame i is frames[off[i] .. off[i+1]) */
        size_t nframes, capframes;
        struct pg_buf key;
        struct pg_buf tmp;
        struct pg_buf dm[2]; /* a mangled Rust symbol: NUL-terminated copy, demangled */

        /* frame-line cache: a frame line's bytes -> what pg_ps_add_frame()
         * made of it, so each distinct line is parsed and tidied once
         * (PG_PS_FC_MAX_LINES at most). One map per Java flag (the tidy
         * differs), each index -> an entry of fc. */
        struct pg_strmap fc_lines[2];
        uint32_t *fc_id[2];
        size_t capfc_id[2];
        struct pg_ps_fc *fc;
        size_t nfc, capfc;
        struct pg_buf fc_text; /* the tidied frames, leaf first, back to back */
        uint32_t *fc_ends;     /* each part's end, relative to its entry's text */
        size_t nfc_ends, capfc_ends;

        /* the open record as frame-line cache ids: its folded comm, then one
         * uint32_t per frame line; nuncached counts its frames that have no
         * id. Such a key maps straight to the stack's index in `stacks`
         * (idstack), so a stack seen before is neither joined nor hashed as text. */
        struct pg_buf ids;
        size_t nuncached;
        /* cached frames are kept as ids only until the record needs its text
         * (a frame that is not cached, or a stack not found by its ids):
         * lazy_parts counts the frames not yet written into `frames` */
        bool eager;
        size_t lazy_parts;
        struct pg_strmap idstacks;
        uint32_t *idstack;
        size_t capidstack;

        struct pg_strmap stacks; /* folded key -> index in counts */
        uint64_t *counts;
        size_t capcounts;

        struct pg_perfscript_stats st;
};

/* ---- small text helpers ---------------------------------------------- */

static bool pg_ps_space(char c)
{
        return c == ' ' || c == '\t';
}

static bool pg_ps_digit(char c)
{
        return c >= '0' && c <= '9';
}

static bool pg_ps_all_digits(const char *s, size_t n)
{
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!pg_ps_digit(s[i]))
                        return false;
        return true;
}

static bool pg_ps_all_hex(const char *s, size_t n)
{
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!pg_ps_digit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F'))
                        return false;
        }
        return true;
}

static bool pg_ps_word_char(char c)
{
        return pg_ps_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static void pg_ps_copy_cut(char *dst, size_t cap, const char *s, size_t n)
{
        size_t j = 0;
        for (size_t i = 0; i < n && j + 1 < cap; i++) {
                unsigned char c = (unsigned char) s[i];
                dst[j++] = (c >= 0x20 && c < 0x7f) ? (char) c : '?';
        }
        dst[j] = '\0';
}

/* Whether "@a@b" occurs in @s (@n bytes); cheaper than memmem() for the short lines here. */
static bool pg_ps_has_pair(const char *s, size_t n, char a, char b)
{
        const char *end = s + n, *p = s;

        while ((p = memchr(p, a, (size_t) (end - p))) != NULL) {
                if (p + 1 < end && p[1] == b)
                        return true;
                p++;
        }
        return false;
}

/* Whether @needle (@k >= 1 bytes, its first byte rare in perf script
 * headers) occurs in @s (@n bytes): memchr() on the first byte, then
 * memcmp(); several times faster than memmem() on lines that hold it nowhere. */
static bool pg_ps_contains(const char *s, size_t n, const char *needle, size_t k)
{
        const char *end = s + n, *p = s;

        while (n >= k && (p = memchr(p, needle[0], (size_t) (end - p) - (k - 1))) != NULL) {
                if (memcmp(p + 1, needle + 1, k - 1) == 0)
                        return true;
                p++;
                if ((size_t) (end - p) < k)
                        break;
        }
        return false;
}

/* ---- odd input --------------------------------------------------------- */

static void pg_ps_odd(struct pg_perfscript *ps, enum pg_perfscript_odd kind, uint64_t line,
                      const char *s, size_t n)
{
        struct pg_perfscript_odd_info *o = &ps->st.odd[kind];

        if (o->count++ > 0)
                return;
        o->first_line = line;
        pg_ps_copy_cut(o->first_source, sizeof(o->first_source), ps->source, strlen(ps->source));
        while (n > 0 && pg_ps_space(*s)) {
                s++;
                n--;
        }
        pg_ps_copy_cut(o->excerpt, sizeof(o->excerpt), s, n);
}

/* ---- the stack table ---------------------------------------------------- */

static size_t pg_ps_table_add(struct pg_perfscript *ps, const char *key, size_t len, uint64_t count)
{
        bool added;
        size_t i = pg_strmap_intern(&ps->stacks, key, len, &added);

        if (!added) {
                ps->counts[i] += count;
                return i;
        }
        if (i == ps->capcounts) {
                ps->capcounts = ps->capcounts ? ps->capcounts * 2 : 1024;
                ps->counts = pg_xreallocarray(ps->counts, ps->capcounts, sizeof(*ps->counts));
        }
        ps->counts[i] = count;
        ps->st.stacks = ps->stacks.n;
        return i;
}

/* ---- records ------------------------------------------------------------- */

static void pg_ps_frame_mark(struct pg_perfscript *ps)
{
        if (ps->nframes + 2 > ps->capframes) {
                ps->capframes = ps->capframes ? ps->capframes * 2 : 256;
                ps->off = pg_xreallocarray(ps->off, ps->capframes, sizeof(*ps->off));
        }
        ps->off[++ps->nframes] = ps->frames.len;
}

/* Append cached entry @e's frames to the open record's `frames`. */
static void pg_ps_put_cached(struct pg_perfscript *ps, const struct pg_ps_fc *e)
{
        size_t base = ps->frames.len;

        pg_buf_add(&ps->frames, ps->fc_text.ptr + e->text_off, e->text_len);
        for (uint32_t i = 0; i < e->nparts; i++) {
                ps->frames.len = base + ps->fc_ends[e->ends_off + i];
                pg_ps_frame_mark(ps);
        }
        ps->frames.len = base + e->text_len;
}

/*
 * Write the frames the open record holds as ids only (ids[.. @ids_end), after
 * the comm) into `frames`, and keep writing them from now on.
 */
static void pg_ps_materialize(struct pg_perfscript *ps, size_t ids_end)
{
        uint32_t comm_len;

        if (ps->eager)
                return;
        ps->eager = true;
        if (ps->lazy_parts == 0 || ps->ids.len < sizeof(comm_len))
                return;
        memcpy(&comm_len, ps->ids.ptr, sizeof(comm_len));
        for (size_t at = sizeof(comm_len) + comm_len; at + sizeof(uint32_t) <= ids_end;
             at += sizeof(uint32_t)) {
                uint32_t id;
                memcpy(&id, ps->ids.ptr + at, sizeof(id));
                pg_ps_put_cached(ps, &ps->fc[id]);
        }
        ps->lazy_parts = 0;
}

static void pg_ps_end_record(struct pg_perfscript *ps)
{
        /* every count is at most the total: a total that fits in 64 bits
         * keeps each stack's count exact (a wrapped sum would be silently
         * wrong, so the import stops at the first sample it cannot add) */
        if (ps->state == PG_PS_RECORD && ps->st.weight_total > UINT64_MAX - ps->weight) {
                if (!ps->overflow_line) {
                        ps->overflow_line = ps->rec_line;
                        snprintf(ps->overflow_source, sizeof(ps->overflow_source), "%s",
                                 ps->source);
                }
                ps->state = PG_PS_SKIP;
        }
        if (ps->state == PG_PS_RECORD) {
                struct pg_buf *k = &ps->key;
                bool truncated = ps->opt.max_stack > 0 && ps->nraw >= ps->opt.max_stack;
                bool by_ids = ps->nuncached == 0 && ps->nframes + ps->lazy_parts > 0;
                size_t idx, ids_len = ps->ids.len;

                if (truncated)
                        pg_ps_odd(ps, PG_PS_ODD_TRUNCATED, ps->rec_line, "", 0);
                if (by_ids) {
                        pg_buf_putc(&ps->ids, truncated ? 'T' : '-');
                        if (pg_strmap_find(&ps->idstacks, ps->ids.ptr, ps->ids.len, &idx)) {
                                ps->counts[ps->idstack[idx]] += ps->weight;
                                ps->st.samples++;
                                ps->st.weight_total += ps->weight;
                                goto done;
                        }
                }
                pg_ps_materialize(ps, ids_len);
                pg_buf_reset(k);
                if (ps->opt.comm != PG_COMM_NONE)
                        pg_buf_add(k, ps->comm.ptr, ps->comm.len);
                if (truncated && ps->opt.mark_truncated) {
                        if (k->len)
                                pg_buf_putc(k, ';');
                        pg_buf_puts(k, "[truncated]");
                }
                for (size_t i = ps->nframes; i > 0; i--) {
                        if (k->len)
                                pg_buf_putc(k, ';');
                        pg_buf_add(k, ps->frames.ptr + ps->off[i - 1], ps->off[i] - ps->off[i - 1]);
                }
                if (k->len == 0) {
                        pg_ps_odd(ps, PG_PS_ODD_NO_FRAMES, ps->rec_line, "", 0);
                } else {
                        size_t t = pg_ps_table_add(ps, k->ptr, k->len, ps->weight);
                        ps->st.samples++;
                        ps->st.weight_total += ps->weight;
                        if (by_ids) {
                                idx =
                                    pg_strmap_intern(&ps->idstacks, ps->ids.ptr, ps->ids.len, NULL);
                                if (idx == ps->capidstack) {
                                        ps->capidstack = ps->capidstack ? ps->capidstack * 2 : 1024;
                                        ps->idstack = pg_xreallocarray(ps->idstack, ps->capidstack,
                                                                       sizeof(*ps->idstack));
                                }
                                ps->idstack[idx] = (uint32_t) t;
                        }
                }
        }
done:
        ps->state = PG_PS_IDLE;
        ps->nframes = 0;
        ps->off[0] = 0;
        ps->nraw = 0;
        ps->nuncached = 0;
        ps->eager = false;
        ps->lazy_parts = 0;
        pg_buf_reset(&ps->ids);
        pg_buf_reset(&ps->frames);
}

/*
 * Split @sym at "->" (perf-map-agent's inlined Java chains) outside any
 * bracket, never inside "operator->"; returns the number of parts (at most
 * @max), their bounds in @start/@len.
 */
static size_t pg_ps_split_inline(const char *sym, size_t n, size_t *start, size_t *len, size_t max)
{
        size_t parts = 0, from = 0, depth = 0;

        if (!pg_ps_has_pair(sym, n, '-', '>')) {
                start[0] = 0;
                len[0] = n;
                return 1;
        }
        for (size_t i = 0; i < n; i++) {
                char c = sym[i];
                if (c == '-' && i + 1 < n && sym[i + 1] == '>') {
                        bool op = i >= 8 && memcmp(sym + i - 8, "operator", 8) == 0;
                        if (depth == 0 && !op && parts + 1 < max) {
                                start[parts] = from;
                                len[parts++] = i - from;
                                from = i + 2;
                        }
                        i++;
                        continue;
                }
                if (c == '(' || c == '<' || c == '[' || c == '{')
                        depth++;
                else if ((c == ')' || c == '>' || c == ']' || c == '}') && depth > 0)
                        depth--;
        }
        start[parts] = from;
        len[parts++] = n - from;
        return parts;
}

static void pg_ps_add_frame(struct pg_perfscript *ps, const char *pc, size_t pc_len,
                            const char *sym, size_t sym_len, const char *mod, size_t mod_len)
{
        enum pg_frame_kind kind = PG_FRAME_USER;
        size_t start[16], len[16], parts;

        pg_ps_materialize(ps, ps->ids.len);
        ps->nraw++;
        ps->nuncached++; /* pg_ps_cached_frame() takes it back when it caches the line */
        if (sym_len == 0) {
                /* old perf printed "ADDR  (MODULE)"; the reference folds it as " " */
                sym = " ";
                sym_len = 1;
        }
        sym_len = pg_fold_strip_offset(sym, sym_len);
        /* perf prints Rust symbols mangled when it was built without a
         * demangler: give them the names perfgate run gives (demangle.h);
         * mangled C++ stays as the reference prints it */
        if (pg_demangle_is_rust(sym, sym_len)) {
                pg_buf_reset(&ps->dm[0]);
                pg_buf_reset(&ps->dm[1]);
                pg_buf_add(&ps->dm[0], sym, sym_len);
                pg_demangle(&ps->dm[1], ps->dm[0].ptr);
                sym = ps->dm[1].ptr;
                sym_len = ps->dm[1].len;
        }
        /* the reference skips a symbol in parentheses (a process name) */
        if (sym_len > 0 && sym[0] == '(' &&
            !(sym_len >= 21 && memcmp(sym, "(anonymous namespace)", 21) == 0))
                return;
        bool kernel = pg_fold_module_is_kernel(mod, mod_len);
        bool unknown = sym_len == 9 && memcmp(sym, "[unknown]", 9) == 0;
        if (kernel) {
                ps->st.kernel_frames++;
                ps->st.kernel_unresolved += unknown;
        } else if (unknown && pc_len == 16 && memcmp(pc, "ffff", 4) == 0) {
                /* "[unknown] ([unknown])" at a kernel address */
                ps->st.kernel_frames++;
                ps->st.kernel_unresolved++;
        }
        if (ps->opt.annotate_inlined && mod_len == 7 && memcmp(mod, "inlined", 7) == 0)
                kind = PG_FRAME_INLINED;
        else if (ps->opt.annotate_kernel && kernel)
                kind = PG_FRAME_KERNEL;
        else if (ps->opt.annotate_jit && pg_fold_module_is_jit(mod, mod_len))
                kind = PG_FRAME_JIT;

        parts = pg_ps_split_inline(sym, sym_len, start, len, 16);
        /* written leaf first; the record is reversed at its end */
        for (size_t p = parts; p > 0; p--) {
                const char *e = sym + start[p - 1];
                size_t n = len[p - 1];
                enum pg_frame_kind k = p > 1 ? PG_FRAME_INLINED : kind;

                if (n == 9 && memcmp(e, "[unknown]", 9) == 0)
                        pg_fold_append_unresolved(&ps->frames, mod, mod_len,
                                                  ps->opt.include_addrs ? pc : NULL, pc_len, k);
                else
                        pg_fold_append_symbol(&ps->frames, e, n, ps->java && !ps->opt.no_tidy_java,
                                              k);
                pg_ps_frame_mark(ps);
        }
}

/*
 * Parse a frame "ADDR SYMBOL (MODULE)" (MODULE may itself hold balanced
 * parentheses, e.g. "/tmp/x (deleted)"); without a module the address must
 * be hex. Returns false when @s is not a frame line.
 */
static bool pg_ps_parse_frame(const char *s, size_t n, const char **pc, size_t *pc_len,
                              const char **sym, size_t *sym_len, const char **mod, size_t *mod_len)
{
        size_t i = 0, a, b;

        while (i < n && pg_ps_space(s[i]))
                i++;
        a = i;
        while (i < n && pg_ps_word_char(s[i]))
                i++;
        if (i == a || i == n || !pg_ps_space(s[i]))
                return false;
        *pc = s + a;
        *pc_len = i - a;
        while (i < n && pg_ps_space(s[i]))
                i++;
        b = i; /* symbol start */
        if (s[n - 1] == ')') {
                size_t depth = 0, o = n - 1;
                for (;;) {
                        if (s[o] == ')')
                                depth++;
                        else if (s[o] == '(' && --depth == 0)
                                break;
                        if (o == b)
                                break;
                        o--;
                }
                if (depth == 0 && s[o] == '(' && (o == b || s[o - 1] == ' ')) {
                        size_t e = o;
                        while (e > b && pg_ps_space(s[e - 1]))
                                e--;
                        *sym = s + b;
                        *sym_len = e - b;
                        *mod = s + o + 1;
                        *mod_len = n - 1 - (o + 1);
                        return true;
                }
        }
        if (!pg_ps_all_hex(*pc, *pc_len) || b == n)
                return false;
        *sym = s + b;
        *sym_len = n - b;
        *mod = "";
        *mod_len = 0;
        return true;
}

/*
 * A frame line of an open record (@s, @n bytes, trimmed): replayed from the
 * frame-line cache when this line was seen before, else parsed, added, and
 * remembered. Returns false when @s is not a frame line. The result of
 * pg_ps_add_frame() depends only on the line, the options and the record's
 * Java flag, so the cache is the line in that flag's map.
 */
static bool pg_ps_cached_frame(struct pg_perfscript *ps, const char *s, size_t n)
{
        const char *pc, *sym, *mod;
        size_t pc_len, sym_len, mod_len, idx;
        struct pg_strmap *lines = &ps->fc_lines[ps->java];

        if (pg_strmap_find(lines, s, n, &idx)) {
                uint32_t id = ps->fc_id[ps->java][idx];
                const struct pg_ps_fc *e = &ps->fc[id];

                if (ps->state != PG_PS_RECORD)
                        return true;
                pg_buf_add(&ps->ids, &id, sizeof(id));
                ps->nraw++;
                ps->st.kernel_frames += e->kernel;
                ps->st.kernel_unresolved += e->unresolved;
                if (ps->eager)
                        pg_ps_put_cached(ps, e);
                else
                        ps->lazy_parts += e->nparts;
                return true;
        }
        if (s[n - 1] == ':' || pg_ps_has_pair(s, n, ':', ' ') ||
            !pg_ps_parse_frame(s, n, &pc, &pc_len, &sym, &sym_len, &mod, &mod_len))
                return false;
        if (ps->state != PG_PS_RECORD)
                return true;

        pg_ps_materialize(ps, ps->ids.len); /* before base and f0 are taken */
        size_t base = ps->frames.len, f0 = ps->nframes;
        uint64_t kf = ps->st.kernel_frames, ku = ps->st.kernel_unresolved;
        pg_ps_add_frame(ps, pc, pc_len, sym, sym_len, mod, mod_len);
        if (ps->nfc >= PG_PS_FC_MAX_LINES ||
            ps->fc_text.len + (ps->frames.len - base) > PG_PS_FC_MAX_TEXT)
                return true;
        if (ps->nfc == ps->capfc) {
                ps->capfc = ps->capfc ? ps->capfc * 2 : 1024;
                ps->fc = pg_xreallocarray(ps->fc, ps->capfc, sizeof(*ps->fc));
        }
        size_t nparts = ps->nframes - f0;
        if (ps->nfc_ends + nparts > ps->capfc_ends) {
                while (ps->nfc_ends + nparts > ps->capfc_ends)
                        ps->capfc_ends = ps->capfc_ends ? ps->capfc_ends * 2 : 1024;
                ps->fc_ends = pg_xreallocarray(ps->fc_ends, ps->capfc_ends, sizeof(*ps->fc_ends));
        }
        idx = pg_strmap_intern(lines, s, n, NULL);
        if (idx == ps->capfc_id[ps->java]) {
                size_t *cap = &ps->capfc_id[ps->java];
                *cap = *cap ? *cap * 2 : 1024;
                ps->fc_id[ps->java] =
                    pg_xreallocarray(ps->fc_id[ps->java], *cap, sizeof(*ps->fc_id[ps->java]));
        }
        uint32_t id = (uint32_t) ps->nfc++;
        struct pg_ps_fc *e = &ps->fc[id];
        ps->fc_id[ps->java][idx] = id;
        ps->nuncached--;
        pg_buf_add(&ps->ids, &id, sizeof(id));
        e->text_off = (uint32_t) ps->fc_text.len;
        e->text_len = (uint32_t) (ps->frames.len - base);
        e->ends_off = (uint32_t) ps->nfc_ends;
        e->nparts = (uint32_t) nparts;
        e->kernel = (uint8_t) (ps->st.kernel_frames - kf);
        e->unresolved = (uint8_t) (ps->st.kernel_unresolved - ku);
        for (size_t i = 0; i < nparts; i++)
                ps->fc_ends[ps->nfc_ends++] = (uint32_t) (ps->off[f0 + 1 + i] - base);
        pg_buf_add(&ps->fc_text, ps->frames.ptr + base, e->text_len);
        return true;
}

/* ---- headers -------------------------------------------------------------- */

struct pg_ps_tok {
        const char *s;
        size_t n;
};

static bool pg_ps_is_time(const struct pg_ps_tok *t)
{
        const char *dot;
        if (t->n < 4 || t->s[t->n - 1] != ':')
                return false;
        dot = memchr(t->s, '.', t->n);
        if (!dot)
                return false;
        size_t a = (size_t) (dot - t->s);
        return pg_ps_all_digits(t->s, a) && pg_ps_all_digits(dot + 1, t->n - a - 2);
}

static bool pg_ps_is_cpu(const struct pg_ps_tok *t)
{
        return t->n >= 3 && t->s[0] == '[' && t->s[t->n - 1] == ']' &&
               pg_ps_all_digits(t->s + 1, t->n - 2);
}

static bool pg_ps_is_pid(const struct pg_ps_tok *t, const char **slash)
{
        const char *s = t->s;
        size_t n = t->n;
        if (n > 0 && s[0] == '-') {
                s++;
                n--;
        }
        *slash = memchr(s, '/', n);
        if (!*slash)
                return pg_ps_all_digits(s, n);
        size_t a = (size_t) (*slash - s);
        return pg_ps_all_digits(s, a) && pg_ps_all_digits(*slash + 1, n - a - 1);
}

static bool pg_ps_event_match(const char *filter, const char *ev, size_t n)
{
        size_t fl = strlen(filter);
        if (fl == n && memcmp(filter, ev, n) == 0)
                return true;
        /* "cpu-clock" keeps "cpu-clock:pppH" */
        return !memchr(filter, ':', fl) && n > fl && ev[fl] == ':' && memcmp(filter, ev, fl) == 0;
}

/* Length of an event name without its modifiers ("cycles:u" -> 6). */
static size_t pg_ps_event_base(const char *ev, size_t n)
{
        const char *colon = memchr(ev, ':', n);
        return colon ? (size_t) (colon - ev) : n;
}

static bool pg_ps_keep_event(struct pg_perfscript *ps, const char *ev, size_t n)
{
        if (n == 0)
                return true; /* no event printed: nothing to filter on (the reference) */
        if (ps->nfilters == 0) {
                size_t kept = strlen(ps->st.event), b = pg_ps_event_base(ev, n);
                if (kept == 0 && n < sizeof(ps->st.event)) {
                        memcpy(ps->st.event, ev, n);
                        ps->st.event[n] = '\0';
                        return true;
                }
                /* "cpu-clock:u" and "cpu-clock" are one event; "cycles" and "instructions" not */
                return pg_ps_event_base(ps->st.event, kept) == b &&
                       memcmp(ps->st.event, ev, b) == 0;
        }
        for (size_t i = 0; i < ps->nfilters; i++) {
                if (pg_ps_event_match(ps->filters[i], ev, n)) {
                        if (ps->st.event[0] == '\0' && n < sizeof(ps->st.event)) {
                                memcpy(ps->st.event, ev, n);
                                ps->st.event[n] = '\0';
                        }
                        return true;
                }
        }
        return false;
}

static void pg_ps_note_other_event(struct pg_perfscript *ps, const char *ev, size_t n)
{
        char *list = ps->st.other_events;
        size_t have = strlen(list);
        const char *p = list;

        while (*p) {
                const char *comma = strchr(p, ',');
                size_t l = comma ? (size_t) (comma - p) : strlen(p);
                if (l == n && memcmp(p, ev, n) == 0)
                        return;
                p += l + (comma ? 1 : 0);
        }
        if (have + n + 2 > sizeof(ps->st.other_events))
                return;
        if (have)
                list[have++] = ',';
        memcpy(list + have, ev, n);
        list[have + n] = '\0';
}

/* Parse the @n decimal digits at @s as a sample period; false when they are
 * not all digits or the value does not fit in 64 bits. */
static bool pg_ps_parse_period(const char *s, size_t n, uint64_t *out)
{
        uint64_t v = 0;

        if (n == 0 || !pg_ps_all_digits(s, n))
                return false;
        for (size_t k = 0; k < n; k++) {
                uint64_t d = (uint64_t) (s[k] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        *out = v;
        return true;
}

/*
 * Try @s as a sample header, anchored on "PID[/TID] [CPU] TIME:" or, for
 * headers without a time, "PID[/TID] [CPU] EVENT:": the comm is everything
 * before the pid, so it may hold spaces, digits and brackets. Returns false
 * when @s is not a header.
 */
static bool pg_ps_try_header(struct pg_perfscript *ps, const char *s, size_t n)
{
        struct pg_ps_tok tok[PG_PS_MAX_TOKENS];
        size_t ntok = 0, i = 0, t, p = 0, e;
        const char *slash = NULL, *ev = "", *rest = s + n;
        size_t ev_len = 0;
        uint64_t period = 0;
        bool found = false, bad_period = false;

        while (i < n && ntok < PG_PS_MAX_TOKENS) {
                while (i < n && pg_ps_space(s[i]))
                        i++;
                if (i == n)
                        break;
                tok[ntok].s = s + i;
                while (i < n && !pg_ps_space(s[i]))
                        i++;
                tok[ntok].n = (size_t) (s + i - tok[ntok].s);
                ntok++;
        }
        for (t = 1; t < ntok && !found; t++) {
                bool is_time = pg_ps_is_time(&tok[t]);
                if (!is_time && (tok[t].n < 2 || tok[t].s[tok[t].n - 1] != ':'))
                        continue;
                p = t - 1;
                if (pg_ps_is_cpu(&tok[p])) {
                        if (p == 0)
                                continue;
                        p--;
                }
                if (p == 0 || !pg_ps_is_pid(&tok[p], &slash))
                        continue;
                found = true;
                e = t;
                if (is_time) {
                        e = t + 1;
                        /* perf script prints the period as "%10" PRIu64 " " between
                         * the time and "EVENT:" (process_event() in
                         * tools/perf/builtin-script.c): a token there that is not
                         * a decimal u64 ("-5", "0x10", "1e3", 21 digits) is not
                         * perf's, and its sample is skipped, not given another
                         * weight (stackcollapse-perf.pl would count it as 1) */
                        if (e + 1 < ntok && tok[e].s[tok[e].n - 1] != ':' &&
                            tok[e + 1].s[tok[e + 1].n - 1] == ':') {
                                if (!pg_ps_parse_period(tok[e].s, tok[e].n, &period))
                                        bad_period = true;
                                e++;
                        }
                        if (e >= ntok || tok[e].s[tok[e].n - 1] != ':')
                                e = t; /* no event printed */
                }
                if (e != t || !is_time) {
                        ev = tok[e].s;
                        ev_len = tok[e].n - 1;
                }
                rest = tok[e].s + tok[e].n;
        }
        if (!found)
                return false;
        pg_ps_end_record(ps);
        ps->rec_line = ps->lineno;
        if (bad_period) {
                pg_ps_odd(ps, PG_PS_ODD_BAD_PERIOD, ps->lineno, s, n);
                ps->state = PG_PS_SKIP;
                return true;
        }
        if (!pg_ps_keep_event(ps, ev, ev_len)) {
                pg_ps_odd(ps, PG_PS_ODD_OTHER_EVENT, ps->lineno, s, n);
                pg_ps_note_other_event(ps, ev, ev_len);
                ps->state = PG_PS_SKIP;
                return true;
        }
        ps->state = PG_PS_RECORD;
        ps->weight = ps->opt.weight == PG_WEIGHT_SAMPLES || period == 0 ? 1 : period;

        /* root frame: comm[-PID[/TID]] ("?" for a PID perf did not print) */
        const char *comm = tok[0].s;
        size_t comm_len = (size_t) (tok[p - 1].s + tok[p - 1].n - comm);
        const char *id = tok[p].s;
        size_t id_len = tok[p].n;
        struct pg_buf *b = &ps->tmp;
        pg_buf_reset(b);
        pg_buf_add(b, comm, comm_len);
        if (ps->opt.include_tid || ps->opt.include_pid) {
                pg_buf_putc(b, '-');
                if (slash) {
                        size_t pid_len = (size_t) (slash - id);
                        pg_buf_add(b, id, ps->opt.include_tid ? id_len : pid_len);
                } else {
                        pg_buf_putc(b, '?');
                        if (ps->opt.include_tid) {
                                pg_buf_putc(b, '/');
                                pg_buf_add(b, id, id_len);
                        }
                }
        }
        ps->java = b->len >= 4 && memcmp(b->ptr, "java", 4) == 0;
        pg_buf_reset(&ps->comm);
        pg_fold_append_comm(&ps->comm, b->ptr, b->len,
                            ps->opt.comm == PG_COMM_NONE ? PG_COMM_KEEP : ps->opt.comm);
        /* the ids key starts with the comm, its length first (comm.len < 2^32:
         * a line is at most PG_PERFSCRIPT_MAX_LINE_BYTES) */
        uint32_t comm_len32 = (uint32_t) ps->comm.len;
        pg_buf_add(&ps->ids, &comm_len32, sizeof(comm_len32));
        pg_buf_add(&ps->ids, ps->comm.ptr, ps->comm.len);

        /* a single-line sample (perf script without -g): "... EVENT:  ADDR SYM (MOD)" */
        size_t rest_len = (size_t) (s + n - rest);
        if (rest_len > 0) {
                const char *pc, *sym, *mod;
                size_t pc_len, sym_len, mod_len;
                while (rest_len > 0 && pg_ps_space(*rest)) {
                        rest++;
                        rest_len--;
                }
                size_t w = 0;
                while (w < rest_len && !pg_ps_space(rest[w]))
                        w++;
                if (rest_len > 0 && pg_ps_all_hex(rest, w) &&
                    pg_ps_parse_frame(rest, rest_len, &pc, &pc_len, &sym, &sym_len, &mod, &mod_len))
                        pg_ps_add_frame(ps, pc, pc_len, sym, sym_len, mod, mod_len);
        }
        return true;
}

/* ---- lines ---------------------------------------------------------------- */

static void pg_ps_comment(struct pg_perfscript *ps, const char *s, size_t n)
{
        static const char key[] = "# event : name = ";
        size_t kl = sizeof(key) - 1;

        if (ps->st.header_event[0] || n <= kl || memcmp(s, key, kl) != 0)
                return;
        size_t e = kl;
        while (e < n && s[e] != ',' && !pg_ps_space(s[e]))
                e++;
        pg_ps_copy_cut(ps->st.header_event, sizeof(ps->st.header_event), s + kl, e - kl);
}

static bool pg_ps_perf_message(const char *s, size_t n)
{
        static const char *const prefixes[] = { "Warning:",  "WARNING:",  "Error:",    "ERROR:",
                                                "Failed to", "failed to", "  Warning:" };
        for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
                size_t l = strlen(prefixes[i]);
                if (n >= l && memcmp(s, prefixes[i], l) == 0)
                        return true;
        }
        return false;
}

/* The error for a total past 2^64 - 1 (limits.md: a column's sum must fit in 64 bits). */
static int pg_ps_overflow(const struct pg_perfscript *ps)
{
        return pg_error_set(PG_EINPUT,
                            "'%s': the sample periods add up to more than 2^64 - 1 at the "
                            "sample of line %llu; no count could be written exactly; check "
                            "the input",
                            ps->overflow_source, (unsigned long long) ps->overflow_line);
}

static int pg_ps_line(struct pg_perfscript *ps, const char *s, size_t n)
{
        const char *pc, *sym, *mod;
        size_t pc_len, sym_len, mod_len;
        bool indented;

        if (ps->overflow_line)
                return pg_ps_overflow(ps);

        ps->lineno++;
        ps->st.lines++;
        if (ps->lineno == 1 && n >= 7 && memcmp(s, "PERFILE", 7) == 0)
                return pg_error_set(PG_EINPUT,
                                    "'%s' is a perf.data file, not perf script text; "
                                    "run 'perf script -i %s | perfgate fold'",
                                    ps->source, ps->source);
        while (n > 0 && (s[n - 1] == '\r' || pg_ps_space(s[n - 1])))
                n--;
        if (n == 0) {
                pg_ps_end_record(ps);
                return 0;
        }
        if (s[0] == '#') {
                pg_ps_comment(ps, s, n);
                return 0;
        }
        indented = pg_ps_space(s[0]);
        /* the hot path: a frame line inside a record */
        if (indented && ps->state != PG_PS_IDLE && pg_ps_cached_frame(ps, s, n))
                return 0;
        if (pg_ps_contains(s, n, "PERF_RECORD_", 12)) {
                pg_ps_end_record(ps);
                pg_ps_odd(ps, PG_PS_ODD_NON_SAMPLE, ps->lineno, s, n);
                return 0;
        }
        if (!indented && pg_ps_perf_message(s, n)) {
                pg_ps_odd(ps, PG_PS_ODD_PERF_MESSAGE, ps->lineno, s, n);
                return 0;
        }
        if (pg_ps_contains(s, n, "trace error", 11)) {
                pg_ps_odd(ps, PG_PS_ODD_TRACE_ERROR, ps->lineno, s, n);
                return 0;
        }
        if (pg_ps_try_header(ps, s, n))
                return 0;
        if (pg_ps_parse_frame(s, n, &pc, &pc_len, &sym, &sym_len, &mod, &mod_len)) {
                if (ps->state == PG_PS_RECORD)
                        pg_ps_add_frame(ps, pc, pc_len, sym, sym_len, mod, mod_len);
                else if (ps->state == PG_PS_IDLE)
                        pg_ps_odd(ps, PG_PS_ODD_ORPHAN_FRAME, ps->lineno, s, n);
                return 0;
        }
        pg_ps_odd(ps, PG_PS_ODD_UNRECOGNIZED, ps->lineno, s, n);
        return 0;
}

/* ---- public API ------------------------------------------------------------ */

int pg_perfscript_new(struct pg_perfscript **out, const struct pg_perfscript_options *opts)
{
        struct pg_perfscript *ps = pg_xcalloc(1, sizeof(*ps));

        *out = NULL;
        ps->opt = *opts;
        ps->opt.event_filter = NULL;
        pg_buf_init(&ps->carry);
        pg_buf_init(&ps->comm);
        pg_buf_init(&ps->frames);
        pg_buf_init(&ps->key);
        pg_buf_init(&ps->tmp);
        pg_buf_init(&ps->fc_text);
        pg_buf_init(&ps->ids);
        pg_buf_init(&ps->dm[0]);
        pg_buf_init(&ps->dm[1]);
        ps->capframes = 256;
        ps->off = pg_xcalloc(ps->capframes, sizeof(*ps->off));
        snprintf(ps->source, sizeof(ps->source), "<input>");
        if (opts->event_filter && opts->event_filter[0]) {
                char *p;
                ps->filter_copy = pg_xstrdup(opts->event_filter);
                for (p = ps->filter_copy;; p++) {
                        char *comma = strchr(p, ',');
                        if (comma)
                                *comma = '\0';
                        if (*p == '\0') {
                                pg_perfscript_free(ps);
                                return pg_error_set(PG_EINPUT,
                                                    "empty event name in event filter '%s'",
                                                    opts->event_filter);
                        }
                        ps->filters =
                            pg_xreallocarray(ps->filters, ps->nfilters + 1, sizeof(*ps->filters));
                        ps->filters[ps->nfilters++] = p;
                        if (!comma)
                                break;
                        p = comma;
                }
        }
        *out = ps;
        return 0;
}

void pg_perfscript_free(struct pg_perfscript *ps)
{
        if (!ps)
                return;
        pg_strmap_release(&ps->stacks);
        pg_strmap_release(&ps->fc_lines[0]);
        pg_strmap_release(&ps->fc_lines[1]);
        free(ps->fc_id[0]);
        free(ps->fc_id[1]);
        pg_strmap_release(&ps->idstacks);
        free(ps->idstack);
        pg_buf_release(&ps->ids);
        free(ps->fc);
        free(ps->fc_ends);
        pg_buf_release(&ps->fc_text);
        free(ps->counts);
        free(ps->off);
        free(ps->filters);
        free(ps->filter_copy);
        free(ps->readbuf);
        pg_buf_release(&ps->carry);
        pg_buf_release(&ps->comm);
        pg_buf_release(&ps->frames);
        pg_buf_release(&ps->key);
        pg_buf_release(&ps->tmp);
        pg_buf_release(&ps->dm[0]);
        pg_buf_release(&ps->dm[1]);
        free(ps);
}

void pg_perfscript_begin(struct pg_perfscript *ps, const char *name)
{
        (void) pg_perfscript_end(ps);
        snprintf(ps->source, sizeof(ps->source), "%s", name ? name : "<input>");
        ps->lineno = 0;
}

/* A line beyond PG_PERFSCRIPT_MAX_LINE_BYTES: not perf script text. */
static int pg_ps_too_long(struct pg_perfscript *ps)
{
        pg_buf_release(&ps->carry);
        return pg_error_set(PG_EINPUT,
                            "'%s': line %llu is longer than %u MiB; this is not 'perf script' "
                            "output",
                            ps->source, (unsigned long long) ps->lineno + 1,
                            PG_PERFSCRIPT_MAX_LINE_BYTES >> 20);
}

int pg_perfscript_feed(struct pg_perfscript *ps, const char *data, size_t len)
{
        const char *p = data, *end = data + len, *nl;
        int error;

        if (ps->carry.len > 0) {
                nl = memchr(p, '\n', len);
                if (!nl) {
                        if (ps->carry.len + len > PG_PERFSCRIPT_MAX_LINE_BYTES)
                                return pg_ps_too_long(ps);
                        pg_buf_add(&ps->carry, p, len);
                        return 0;
                }
                if (ps->carry.len + (size_t) (nl - p) > PG_PERFSCRIPT_MAX_LINE_BYTES)
                        return pg_ps_too_long(ps);
                pg_buf_add(&ps->carry, p, (size_t) (nl - p));
                error = pg_ps_line(ps, ps->carry.ptr, ps->carry.len);
                pg_buf_reset(&ps->carry);
                if (error < 0)
                        return error;
                p = nl + 1;
        }
        while (p < end) {
                nl = memchr(p, '\n', (size_t) (end - p));
                if (!nl) {
                        if ((size_t) (end - p) > PG_PERFSCRIPT_MAX_LINE_BYTES)
                                return pg_ps_too_long(ps);
                        pg_buf_add(&ps->carry, p, (size_t) (end - p));
                        break;
                }
                if ((error = pg_ps_line(ps, p, (size_t) (nl - p))) < 0)
                        return error;
                p = nl + 1;
        }
        return 0;
}

int pg_perfscript_end(struct pg_perfscript *ps)
{
        int error = 0;

        if (ps->carry.len > 0) {
                error = pg_ps_line(ps, ps->carry.ptr, ps->carry.len);
                pg_buf_reset(&ps->carry);
        }
        pg_ps_end_record(ps);
        if (!error && ps->overflow_line)
                error = pg_ps_overflow(ps);
        return error;
}

int pg_perfscript_read(struct pg_perfscript *ps, FILE *f, const char *name)
{
        size_t got;
        int error;

        pg_perfscript_begin(ps, name);
        if (!ps->readbuf)
                ps->readbuf = pg_xmalloc(PG_PS_READ_BYTES);
        while ((got = fread(ps->readbuf, 1, PG_PS_READ_BYTES, f)) > 0) {
                if ((error = pg_perfscript_feed(ps, ps->readbuf, got)) < 0) {
                        pg_buf_reset(&ps->carry);
                        return error;
                }
        }
        if (ferror(f))
                return pg_error_set(PG_EIO, "cannot read '%s': %s", name, strerror(errno));
        return pg_perfscript_end(ps);
}

const struct pg_perfscript_stats *pg_perfscript_stats(const struct pg_perfscript *ps)
{
        return &ps->st;
}

static int pg_ps_cmp(const void *a, const void *b)
{
        const struct pg_folded *x = a, *y = b;
        size_t n = x->len < y->len ? x->len : y->len;
        int c = memcmp(x->stack, y->stack, n);
        if (c)
                return c;
        return x->len < y->len ? -1 : x->len > y->len;
}

void pg_perfscript_sorted(struct pg_perfscript *ps, struct pg_folded **out, size_t *n)
{
        struct pg_folded *v = pg_xcalloc(ps->stacks.n ? ps->stacks.n : 1, sizeof(*v));
        size_t k = 0;

        for (; k < ps->stacks.n; k++) {
                v[k].stack = ps->stacks.keys[k].ptr;
                v[k].len = ps->stacks.keys[k].len;
                v[k].count = ps->counts[k];
        }
        qsort(v, k, sizeof(*v), pg_ps_cmp);
        *out = v;
        *n = k;
}

int pg_perfscript_write(struct pg_perfscript *ps, FILE *f, const char *name)
{
        struct pg_folded *v;
        struct pg_buf b = PG_BUF_INIT;
        size_t n;
        int error = 0;

        pg_perfscript_sorted(ps, &v, &n);
        for (size_t i = 0; i < n; i++) {
                pg_buf_add(&b, v[i].stack, v[i].len);
                pg_buf_printf(&b, " %llu\n", (unsigned long long) v[i].count);
                if (b.len >= (64u << 10) || i + 1 == n) {
                        if (fwrite(b.ptr, 1, b.len, f) != b.len)
                                break;
                        pg_buf_reset(&b);
                }
        }
        if (fflush(f) != 0 || ferror(f))
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", name, strerror(errno));
        pg_buf_release(&b);
        free(v);
        return error;
}
