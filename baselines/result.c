/*
 * result.c - the result model's JSON form: one writer (deterministic, via
 * common/json.c) and one validating loader, used for results and baselines
 * alike. Loading never trusts the file: every field is type-checked and the
 * invariants of result.h are re-established or the file is refused.
 */
#include "baselines/result.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"

static const char *const pg_status_names[] = { "ok", "not-supported", "not-counted",
                                               "kernel-only" };

const char *pg_metric_status_name(enum pg_metric_status status)
{
        if ((size_t) status < sizeof(pg_status_names) / sizeof(pg_status_names[0]))
                return pg_status_names[status];
        return "unknown";
}

/* The code point of the UTF-8 sequence @s of @n bytes (n from pg_utf8_seqlen). */
static unsigned pg_utf8_cp(const unsigned char *s, size_t n)
{
        unsigned cp = n == 1 ? s[0] : s[0] & (0x7f >> n);
        for (size_t i = 1; i < n; i++)
                cp = (cp << 6) | (s[i] & 0x3f);
        return cp;
}

const char *pg_path_component_why(const char *component)
{
        const char *p = component;
        size_t len = strlen(component);

        if (!*component)
                return "is empty";
        /* utf8.c next_hfs_char: the code points HFS+ drops when comparing names */
        for (size_t i = 0; i < len;) {
                size_t n = pg_utf8_seqlen((const unsigned char *) component + i, len - i);
                unsigned cp;
                if (!n)
                        return "is not valid UTF-8";
                cp = pg_utf8_cp((const unsigned char *) component + i, n);
                if ((cp >= 0x200c && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
                    (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff)
                        return "holds an invisible code point HFS+ ignores (U+200C-U+200F, "
                               "U+202A-U+202E, U+206A-U+206F, U+FEFF), so it can alias '.git'";
                i += n;
        }
        /* path.c is_ntfs_dotgit: fsck reads '\' as a directory separator */
        for (;;) {
                size_t n = strcspn(p, "\\");
                if (n > 0 && p[0] == '.')
                        return p == component
                                   ? "starts with '.' (git gives .git, .gitmodules and "
                                     ".gitattributes meaning, and git fsck refuses them as "
                                     "directories)"
                                   : "has a '.' right after a '\\' (git fsck reads '\\' as a "
                                     "directory separator, so 'a\\.git' holds '.git')";
                if (n > 0 && (p[n - 1] == '.' || p[n - 1] == ' '))
                        return "ends with '.' or a space (Windows drops them, so 'git~1.' "
                               "would be 'git~1')";
                for (size_t i = 0; i + 1 < n && i < 8; i++)
                        if (p[i] == '~' && p[i + 1] >= '0' && p[i + 1] <= '9')
                                return "looks like an NTFS short name ('~' and a digit in its "
                                       "first 8 bytes: 'git~1' is '.git' on Windows)";
                if (!p[n])
                        break;
                p += n + 1;
        }
        return NULL;
}

/* The part of the name rules that is not git's: 1..PG_RESULT_NAME_MAX bytes
 * of UTF-8 without '/' or control characters. */
static const char *pg_name_basic_why(const char *name)
{
        if (!name || !*name)
                return "is empty";
        if (strlen(name) > PG_RESULT_NAME_MAX)
                return "is longer than 200 bytes";
        for (const char *p = name; *p; p++) {
                if (*p == '/')
                        return "holds '/'";
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return "holds a control character";
        }
        for (size_t i = 0, len = strlen(name); i < len;) {
                size_t n = pg_utf8_seqlen((const unsigned char *) name + i, len - i);
                if (!n)
                        return "is not valid UTF-8"; /* the JSON could not hold it */
                i += n;
        }
        return NULL;
}

const char *pg_result_name_why(const char *name)
{
        const char *why = pg_name_basic_why(name);
        char *file;

        if (why)
                return why;
        /* the name becomes <name>.json, a tree entry on the data branch */
        file = pg_xasprintf("%s.json", name);
        why = pg_path_component_why(file);
        free(file);
        return why;
}

const char *pg_machine_name_why(const char *machine)
{
        const char *why = pg_name_basic_why(machine);
        return why ? why : pg_path_component_why(machine);
}

bool pg_result_name_valid(const char *name)
{
        return pg_result_name_why(name) == NULL;
}

void pg_result_init(struct pg_result *r)
{
        memset(r, 0, sizeof(*r));
}

static void pg_metric_release(struct pg_metric *m)
{
        free(m->name);
        free(m->unit);
        free(m->values);
        free(m->coverage);
        free(m->reason);
        memset(m, 0, sizeof(*m));
}

char *pg_result_created_at(int64_t t)
{
        /* Civil date of day @days since 1970-01-01 in the proleptic
         * Gregorian calendar, by 400-year eras (H. Hinnant, "chrono-Compatible
         * Low-Level Date Algorithms", civil_from_days). Not gmtime_r(3):
         * glibc's loads the time zone file (/etc/localtime) on its first
         * call, which a UTC stamp does not need. */
        int64_t days = t / 86400, secs = t % 86400;
        int64_t era, doe, yoe, doy, mp, y, m, d;
        char buf[80];

        if (secs < 0) {
                secs += 86400;
                days--;
        }
        days += 719468; /* days from 0000-03-01 to 1970-01-01 */
        era = (days >= 0 ? days : days - 146096) / 146097;
        doe = days - era * 146097;                                   /* [0, 146096] */
        yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
        doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
        mp = (5 * doy + 2) / 153;                                    /* March = 0 */
        d = doy - (153 * mp + 2) / 5 + 1;
        m = mp < 10 ? mp + 3 : mp - 9;
        y = yoe + era * 400 + (m <= 2);
        snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", (long long) y,
                 (long long) m, (long long) d, (long long) (secs / 3600),
                 (long long) (secs / 60 % 60), (long long) (secs % 60));
        return pg_xstrdup(buf);
}

char *pg_result_created_now(void)
{
        return pg_result_created_at((int64_t) time(NULL));
}

/* Free the stack keys of @p (one arena, or one block each). */
static void pg_profile_free_frames(struct pg_profile *p)
{
        if (p->frames_arena)
                free(p->frames_arena);
        else
                for (size_t i = 0; i < p->nstacks; i++)
                        free(p->stacks[i].frames);
        p->frames_arena = NULL;
}

void pg_profile_release(struct pg_profile *p)
{
        free(p->missing);
        free(p->event);
        free(p->call_graph);
        pg_profile_free_frames(p);
        free(p->stacks);
        pg_profile_clear_addrs(p);
        pg_profile_clear_runs(p);
        memset(p, 0, sizeof(*p));
}

void pg_profile_clear_runs(struct pg_profile *p)
{
        for (size_t i = 0; i < p->nrun_self; i++) {
                free(p->run_self[i].function);
                free(p->run_self[i].counts);
        }
        free(p->run_self);
        free(p->run_samples);
        p->run_self = NULL;
        p->run_samples = NULL;
        p->nrun_self = 0;
}

void pg_profile_clear_addrs(struct pg_profile *p)
{
        for (size_t i = 0; i < p->naddrs; i++) {
                free(p->addrs[i].function);
                free(p->addrs[i].module);
                free(p->addrs[i].build_id);
                free(p->addrs[i].addrs);
                for (size_t j = 0; j < p->addrs[i].nlines; j++)
                        free(p->addrs[i].lines[j].where);
                free(p->addrs[i].lines);
                for (size_t j = 0; j < p->addrs[i].ninlined; j++) {
                        free(p->addrs[i].inlined[j].site);
                        free(p->addrs[i].inlined[j].function);
                        free(p->addrs[i].inlined[j].line);
                }
                free(p->addrs[i].inlined);
        }
        free(p->addrs);
        p->addrs = NULL;
        p->naddrs = 0;
        p->inline_sites = false;
}

const struct pg_fn_addrs *pg_profile_find_addrs(const struct pg_profile *p, const char *function)
{
        const struct pg_fn_addrs *best = NULL;

        for (size_t i = 0; i < p->naddrs; i++)
                if (strcmp(p->addrs[i].function, function) == 0 &&
                    (best == NULL || p->addrs[i].samples > best->samples))
                        best = &p->addrs[i];
        return best;
}

static int pg_addr_cmp(const void *a, const void *b)
{
        const struct pg_addr_count *x = a, *y = b;

        return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int pg_line_count_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_line_count *) a)->where,
                      ((const struct pg_line_count *) b)->where);
}

static int pg_inline_count_cmp(const void *a, const void *b)
{
        const struct pg_inline_count *x = a, *y = b;
        int c = strcmp(x->site, y->site);

        if (c == 0)
                c = strcmp(x->function, y->function);
        return c ? c : strcmp(x->line, y->line);
}

static int pg_fn_addrs_cmp(const void *a, const void *b)
{
        const struct pg_fn_addrs *x = a, *y = b;
        int c = strcmp(x->function, y->function);

        return c ? c : strcmp(x->module, y->module);
}

/* @key ("file:line") made relative to @root when its file lies below it. */
static void pg_key_relative(char **key, const char *root)
{
        const char *rel = pg_path_below(*key, root);
        char *r;

        if (rel == NULL)
                return;
        r = pg_xstrdup(rel);
        free(*key);
        *key = r;
}

void pg_profile_relative_sources(struct pg_profile *p, const char *root)
{
        if (root == NULL || root[0] == '\0')
                return;
        for (size_t i = 0; i < p->naddrs; i++) {
                struct pg_fn_addrs *f = &p->addrs[i];

                for (size_t j = 0; j < f->nlines; j++)
                        pg_key_relative(&f->lines[j].where, root);
                for (size_t j = 0; j < f->ninlined; j++) {
                        pg_key_relative(&f->inlined[j].site, root);
                        pg_key_relative(&f->inlined[j].line, root);
                }
        }
        pg_profile_sort_addrs(p);
}

void pg_profile_sort_addrs(struct pg_profile *p)
{
        for (size_t i = 0; i < p->naddrs; i++) {
                struct pg_fn_addrs *f = &p->addrs[i];
                size_t w = 0;

                if (f->n > 1) /* qsort(NULL, 0) is undefined */
                        qsort(f->addrs, f->n, sizeof(*f->addrs), pg_addr_cmp);
                f->samples = 0;
                for (size_t j = 0; j < f->n; j++) {
                        if (w > 0 && f->addrs[w - 1].addr == f->addrs[j].addr)
                                f->addrs[w - 1].count += f->addrs[j].count;
                        else
                                f->addrs[w++] = f->addrs[j];
                        f->samples += f->addrs[j].count;
                }
                f->n = w;
                if (f->nlines > 1)
                        qsort(f->lines, f->nlines, sizeof(*f->lines), pg_line_count_cmp);
                w = 0;
                for (size_t j = 0; j < f->nlines; j++) {
                        if (w > 0 && strcmp(f->lines[w - 1].where, f->lines[j].where) == 0) {
                                f->lines[w - 1].count += f->lines[j].count;
                                free(f->lines[j].where);
                        } else {
                                f->lines[w++] = f->lines[j];
                        }
                }
                f->nlines = w;
                if (f->ninlined > 1)
                        qsort(f->inlined, f->ninlined, sizeof(*f->inlined), pg_inline_count_cmp);
                w = 0;
                for (size_t j = 0; j < f->ninlined; j++) {
                        struct pg_inline_count *e = &f->inlined[j];

                        if (w > 0 && pg_inline_count_cmp(&f->inlined[w - 1], e) == 0) {
                                f->inlined[w - 1].count += e->count;
                                free(e->site);
                                free(e->function);
                                free(e->line);
                        } else {
                                f->inlined[w++] = *e;
                        }
                }
                f->ninlined = w;
        }
        if (p->naddrs > 1)
                qsort(p->addrs, p->naddrs, sizeof(*p->addrs), pg_fn_addrs_cmp);
}

void pg_functions_release(struct pg_functions *f)
{
        free(f->source);
        for (size_t i = 0; i < f->ncounters; i++)
                free(f->counters[i]);
        free(f->counters);
        for (size_t i = 0; i < f->n; i++) {
                free(f->items[i].name);
                free(f->items[i].file);
                free(f->items[i].counts);
        }
        free(f->items);
        memset(f, 0, sizeof(*f));
}

static int pg_function_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_function *) a)->name,
                      ((const struct pg_function *) b)->name);
}

void pg_functions_sort(struct pg_functions *f)
{
        if (f->n > 1)
                qsort(f->items, f->n, sizeof(*f->items), pg_function_cmp);
        for (size_t i = 1; i < f->n; i++)
                assert(strcmp(f->items[i - 1].name, f->items[i].name) != 0);
}

int pg_functions_counter_index(const struct pg_functions *f, const char *name)
{
        for (size_t i = 0; i < f->ncounters; i++)
                if (strcmp(f->counters[i], name) == 0)
                        return (int) i;
        return -1;
}

const struct pg_function *pg_functions_find(const struct pg_functions *f, const char *name)
{
        struct pg_function key = { .name = (char *) name };
        if (!f->n)
                return NULL;
        return bsearch(&key, f->items, f->n, sizeof(*f->items), pg_function_cmp);
}

void pg_result_release(struct pg_result *r)
{
        free(r->name);
        for (size_t i = 0; i < r->ncommand; i++)
                free(r->command[i]);
        free(r->command);
        free(r->created);
        free(r->git_commit);
        free(r->machine);
        free(r->host.cpu);
        free(r->host.kernel);
        free(r->host.arch);
        for (size_t i = 0; i < r->host.npmu; i++)
                free(r->host.pmu[i]);
        free(r->host.pmu);
        free(r->counters);
        for (size_t i = 0; i < r->nmetrics; i++)
                pg_metric_release(&r->metrics[i]);
        free(r->metrics);
        pg_profile_release(&r->profile);
        pg_profile_release(&r->offcpu);
        pg_sched_release(&r->sched);
        pg_functions_release(&r->functions);
        free(r->noise.metric);
        pg_result_init(r);
}

const struct pg_metric *pg_result_find_metric(const struct pg_result *r, const char *name)
{
        for (size_t i = 0; i < r->nmetrics; i++)
                if (strcmp(r->metrics[i].name, name) == 0)
                        return &r->metrics[i];
        return NULL;
}

struct pg_metric *pg_result_add_metric(struct pg_result *r, const char *name, const char *unit,
                                       enum pg_metric_status status, const double *values,
                                       const double *coverage, size_t n, const char *reason)
{
        struct pg_metric *m = (struct pg_metric *) pg_result_find_metric(r, name);

        if (m) {
                pg_metric_release(m);
        } else {
                r->metrics = pg_xreallocarray(r->metrics, r->nmetrics + 1, sizeof(*r->metrics));
                m = &r->metrics[r->nmetrics++];
                memset(m, 0, sizeof(*m));
        }
        m->name = pg_xstrdup(name);
        m->unit = pg_xstrdup(unit);
        m->status = status;
        m->reason = reason ? pg_xstrdup(reason) : NULL;
        if (status == PG_METRIC_OK && n) {
                m->nvalues = n;
                m->values = pg_xcalloc(n, sizeof(double));
                memcpy(m->values, values, n * sizeof(double));
                if (coverage) {
                        m->coverage = pg_xcalloc(n, sizeof(double));
                        memcpy(m->coverage, coverage, n * sizeof(double));
                }
        }
        return m;
}

static void pg_derive_ratio(struct pg_result *r, const char *name, const char *num, const char *den,
                            double scale)
{
        const struct pg_metric *a = pg_result_find_metric(r, num);
        const struct pg_metric *b = pg_result_find_metric(r, den);
        double *v;

        if (!a || !b || a->status != PG_METRIC_OK || b->status != PG_METRIC_OK ||
            a->nvalues != b->nvalues || !a->nvalues)
                return;
        for (size_t i = 0; i < b->nvalues; i++)
                if (!(b->values[i] > 0))
                        return;
        v = pg_xcalloc(a->nvalues, sizeof(double));
        for (size_t i = 0; i < a->nvalues; i++)
                v[i] = a->values[i] / b->values[i] * scale;
        pg_result_add_metric(r, name, "ratio", PG_METRIC_OK, v, NULL, a->nvalues, NULL);
        free(v);
}

void pg_result_derive(struct pg_result *r)
{
        pg_derive_ratio(r, "ipc", "instructions", "cycles", 1);
        pg_derive_ratio(r, "branch-miss-rate", "branch-misses", "branches", 1);
        pg_derive_ratio(r, "cache-miss-rate", "cache-misses", "cache-references", 1);
        pg_derive_ratio(r, "L1-dcache-miss-rate", "L1-dcache-load-misses", "L1-dcache-loads", 1);
        pg_derive_ratio(r, "LLC-miss-rate", "LLC-load-misses", "LLC-loads", 1);
        pg_derive_ratio(r, "cpus-utilized", "task-clock", "duration_time", 1);
}

/* Sorting stacks bytewise (strcmp's order), most significant 8 key bytes
 * first: each stack's 8-byte chunk of its key at offset @off is read into a
 * big-endian integer, a run of stacks is sorted by it (radix sort, 16 bits
 * a pass, for long runs), and each run of equal chunks is sorted by the
 * next chunk until its keys have ended (a chunk with a 0 byte). A run
 * whose chunks are all equal (a shared prefix such as "comm;main;") is not
 * sorted, only advanced. A qsort() with strcmp() reached every key again
 * in each of its ~20 merge passes, a cache miss each: a million unsorted
 * stacks spent half a second there. Equal keys end up next to each other,
 * in any order. */
struct pg_chunk_ix {
        uint64_t chunk;
        size_t i; /* index in the stacks */
};

struct pg_chunk_run {
        size_t from, n, off;
};

static int pg_chunk_cmp(const void *a, const void *b)
{
        uint64_t x = ((const struct pg_chunk_ix *) a)->chunk;
        uint64_t y = ((const struct pg_chunk_ix *) b)->chunk;

        return x < y ? -1 : x > y;
}

/* Stable LSD radix sort of @a[0..n) by chunk, 16 bits a pass; @tmp: n
 * entries of scratch, @count: 65536. */
static void pg_chunk_radix(struct pg_chunk_ix *a, struct pg_chunk_ix *tmp, size_t n, size_t *count)
{
        for (unsigned shift = 0; shift < 64; shift += 16) {
                size_t sum = 0;

                memset(count, 0, 65536 * sizeof(*count));
                for (size_t i = 0; i < n; i++)
                        count[(a[i].chunk >> shift) & 0xffff]++;
                if (count[(a[0].chunk >> shift) & 0xffff] == n)
                        continue; /* one digit for all: nothing moves */
                for (size_t d = 0; d < 65536; d++) {
                        size_t c = count[d];
                        count[d] = sum;
                        sum += c;
                }
                for (size_t i = 0; i < n; i++)
                        tmp[count[(a[i].chunk >> shift) & 0xffff]++] = a[i];
                memcpy(a, tmp, n * sizeof(*a));
        }
}

static void pg_stacks_sort(struct pg_stack *stacks, size_t n)
{
        struct pg_chunk_ix *a, *tmp;
        struct pg_stack *out;
        struct pg_chunk_run *todo;
        size_t ntodo = 0, captodo = 16, *count;

        if (n < 2)
                return;
        a = pg_xmalloc(n * sizeof(*a));
        tmp = pg_xmalloc(n * sizeof(*tmp));
        count = pg_xmalloc(65536 * sizeof(*count));
        todo = pg_xmalloc(captodo * sizeof(*todo));
        for (size_t i = 0; i < n; i++)
                a[i].i = i;
        todo[ntodo++] = (struct pg_chunk_run){ 0, n, 0 };
        while (ntodo) {
                struct pg_chunk_run r = todo[--ntodo];
                struct pg_chunk_ix *x = a + r.from;
                bool same;

                do { /* advance over chunks all stacks of the run share */
                        for (size_t i = 0; i < r.n; i++) {
                                const unsigned char *k =
                                    (const unsigned char *) stacks[x[i].i].frames + r.off;
                                uint64_t c = 0;
                                size_t j = 0;

                                for (; j < 8 && k[j]; j++)
                                        c = c << 8 | k[j];
                                x[i].chunk = j ? c << (8 * (8 - j)) : 0; /* (<< 64: undefined) */
                        }
                        same = true;
                        for (size_t i = 1; i < r.n && same; i++)
                                same = x[i].chunk == x[0].chunk;
                        r.off += 8;
                } while (same && (x[0].chunk & 0xff) != 0);
                if (same)
                        continue; /* equal keys */
                if (r.n >= 1024)
                        pg_chunk_radix(x, tmp, r.n, count);
                else
                        qsort(x, r.n, sizeof(*x), pg_chunk_cmp);
                for (size_t i = 0, j; i < r.n; i = j) {
                        for (j = i + 1; j < r.n && x[j].chunk == x[i].chunk; j++)
                                ;
                        /* a run of equal chunks without a 0 byte: keys go on */
                        if (j - i > 1 && (x[i].chunk & 0xff) != 0) {
                                if (ntodo == captodo) {
                                        captodo *= 2;
                                        todo = pg_xreallocarray(todo, captodo, sizeof(*todo));
                                }
                                todo[ntodo++] = (struct pg_chunk_run){ r.from + i, j - i, r.off };
                        }
                }
        }
        /* the radix scratch is free now and as large: the permuted copy
         * goes there instead of into memory of its own (16 MB a million
         * stacks that would be faulted in only to be copied and freed) */
        _Static_assert(sizeof(*tmp) >= sizeof(*out), "the scratch holds the stacks");
        out = (struct pg_stack *) (void *) tmp;
        for (size_t i = 0; i < n; i++)
                out[i] = stacks[a[i].i];
        memcpy(stacks, out, n * sizeof(*out));
        free(a);
        free(tmp);
        free(count);
        free(todo);
}

void pg_profile_set_stacks(struct pg_profile *p, const struct pg_stack *stacks, size_t n)
{
        size_t out = 0;

        pg_profile_free_frames(p);
        free(p->stacks);
        p->stacks = pg_xcalloc(n ? n : 1, sizeof(*p->stacks));
        for (size_t i = 0; i < n; i++) {
                p->stacks[i].frames = pg_xstrdup(stacks[i].frames);
                p->stacks[i].count = stacks[i].count;
        }
        pg_stacks_sort(p->stacks, n);
        for (size_t i = 0; i < n; i++) {
                if (out && strcmp(p->stacks[out - 1].frames, p->stacks[i].frames) == 0) {
                        p->stacks[out - 1].count += p->stacks[i].count;
                        free(p->stacks[i].frames);
                } else if (p->stacks[i].count == 0) {
                        free(p->stacks[i].frames);
                } else {
                        p->stacks[out++] = p->stacks[i];
                }
        }
        p->nstacks = out;
}

/* ---- writing ---------------------------------------------------------- */

static cJSON *pg_number_array(const double *v, size_t n)
{
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
                cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
        return a;
}

/* The profile @p as the object @key of @root ("profile", "offcpu"). */
static void pg_profile_to_json(cJSON *root, const char *key, const struct pg_profile *p)
{
        cJSON *o = cJSON_AddObjectToObject(root, key), *so;

        cJSON_AddStringToObject(o, "event", p->event ? p->event : "");
        cJSON_AddNumberToObject(o, "frequency_hz", (double) p->frequency_hz);
        cJSON_AddStringToObject(o, "call_graph", p->call_graph ? p->call_graph : "fp");
        cJSON_AddNumberToObject(o, "samples", (double) p->samples);
        cJSON_AddNumberToObject(o, "lost", (double) p->lost);
        cJSON_AddNumberToObject(o, "throttled", (double) p->throttled);
        cJSON_AddNumberToObject(o, "truncated", (double) p->truncated);
        if (p->frames > 0) { /* absent: not recorded (older results, folded input) */
                cJSON_AddNumberToObject(o, "frames", (double) p->frames);
                cJSON_AddNumberToObject(o, "unresolved", (double) p->unresolved);
        }
        cJSON_AddNumberToObject(o, "runs", (double) p->runs);
        cJSON_AddBoolToObject(o, "kernel", p->kernel);
        if (p->run_samples) {
                cJSON *ro = cJSON_AddObjectToObject(o, "run_self"), *arr;

                arr = cJSON_AddArrayToObject(o, "run_samples");
                for (uint64_t r = 0; r < p->runs; r++)
                        cJSON_AddItemToArray(arr, cJSON_CreateNumber((double) p->run_samples[r]));
                for (size_t i = 0; i < p->nrun_self; i++) {
                        arr = cJSON_AddArrayToObject(ro, p->run_self[i].function);
                        for (uint64_t r = 0; r < p->runs; r++)
                                cJSON_AddItemToArray(
                                    arr, cJSON_CreateNumber((double) p->run_self[i].counts[r]));
                }
        }
        so = cJSON_AddObjectToObject(o, "stacks");
        for (size_t i = 0; i < p->nstacks; i++)
                cJSON_AddItemToObject(so, p->stacks[i].frames,
                                      cJSON_CreateNumber((double) p->stacks[i].count));
        if (p->naddrs > 0) {
                cJSON *arr = cJSON_AddArrayToObject(o, "addresses");

                if (p->inline_sites)
                        cJSON_AddBoolToObject(o, "inline_sites", true);

                for (size_t i = 0; i < p->naddrs; i++) {
                        const struct pg_fn_addrs *f = &p->addrs[i];
                        cJSON *fo = cJSON_CreateObject(), *co;

                        cJSON_AddStringToObject(fo, "function", f->function);
                        cJSON_AddStringToObject(fo, "module", f->module);
                        if (f->build_id)
                                cJSON_AddStringToObject(fo, "build_id", f->build_id);
                        co = cJSON_AddObjectToObject(fo, "counts");
                        for (size_t j = 0; j < f->n; j++) {
                                char hex[24];

                                snprintf(hex, sizeof(hex), "%llx",
                                         (unsigned long long) f->addrs[j].addr);
                                cJSON_AddItemToObject(
                                    co, hex, cJSON_CreateNumber((double) f->addrs[j].count));
                        }
                        if (f->nlines) {
                                cJSON *lo = cJSON_AddObjectToObject(fo, "lines");

                                for (size_t j = 0; j < f->nlines; j++)
                                        cJSON_AddItemToObject(
                                            lo, f->lines[j].where,
                                            cJSON_CreateNumber((double) f->lines[j].count));
                        }
                        if (f->ninlined) {
                                cJSON *ia = cJSON_AddArrayToObject(fo, "inlined");

                                for (size_t j = 0; j < f->ninlined; j++) {
                                        const struct pg_inline_count *e = &f->inlined[j];
                                        cJSON *eo = cJSON_CreateObject();

                                        cJSON_AddStringToObject(eo, "site", e->site);
                                        cJSON_AddStringToObject(eo, "function", e->function);
                                        cJSON_AddStringToObject(eo, "line", e->line);
                                        cJSON_AddNumberToObject(eo, "samples", (double) e->count);
                                        cJSON_AddItemToArray(ia, eo);
                                }
                        }
                        cJSON_AddItemToArray(arr, fo);
                }
        }
}

void pg_sched_release(struct pg_sched *s)
{
        for (size_t i = 0; i < s->n; i++)
                free(s->tasks[i].comm);
        free(s->tasks);
        memset(s, 0, sizeof(*s));
}

/* The scheduler latency @s as "sched" (docs/result-format.md). */
static void pg_sched_to_json(cJSON *root, const struct pg_sched *s)
{
        cJSON *o = cJSON_AddObjectToObject(root, "sched");
        cJSON *a = cJSON_AddArrayToObject(o, "tasks");

        cJSON_AddNumberToObject(o, "runs", (double) s->runs);
        for (size_t i = 0; i < s->n; i++) {
                const struct pg_sched_task *t = &s->tasks[i];
                cJSON *to = cJSON_CreateObject();

                cJSON_AddStringToObject(to, "comm", t->comm);
                cJSON_AddNumberToObject(to, "threads", (double) t->threads);
                cJSON_AddNumberToObject(to, "runtime_ns", (double) t->runtime_ns);
                cJSON_AddNumberToObject(to, "switches", (double) t->switches);
                cJSON_AddNumberToObject(to, "delay_total_ns", (double) t->delay_total_ns);
                cJSON_AddNumberToObject(to, "delay_max_ns", (double) t->delay_max_ns);
                cJSON_AddItemToArray(a, to);
        }
}

static cJSON *pg_result_to_tree(const struct pg_result *r)
{
        cJSON *root = cJSON_CreateObject(), *o, *a;

        cJSON_AddStringToObject(root, "schema", PG_RESULT_SCHEMA);
        cJSON_AddStringToObject(root, "name", r->name ? r->name : "");
        a = cJSON_AddArrayToObject(root, "command");
        for (size_t i = 0; i < r->ncommand; i++)
                cJSON_AddItemToArray(a, cJSON_CreateString(r->command[i]));
        cJSON_AddStringToObject(root, "created", r->created ? r->created : "");
        if (r->has_git) {
                o = cJSON_AddObjectToObject(root, "git");
                cJSON_AddStringToObject(o, "commit", r->git_commit ? r->git_commit : "");
                cJSON_AddBoolToObject(o, "dirty", r->git_dirty);
        }
        cJSON_AddStringToObject(root, "machine", r->machine ? r->machine : "default");
        o = cJSON_AddObjectToObject(root, "host");
        cJSON_AddStringToObject(o, "cpu", r->host.cpu ? r->host.cpu : "");
        cJSON_AddNumberToObject(o, "cpus", (double) r->host.cpus);
        cJSON_AddStringToObject(o, "kernel", r->host.kernel ? r->host.kernel : "");
        cJSON_AddStringToObject(o, "arch", r->host.arch ? r->host.arch : "");
        a = cJSON_AddArrayToObject(o, "pmu");
        for (size_t i = 0; i < r->host.npmu; i++)
                cJSON_AddItemToArray(a, cJSON_CreateString(r->host.pmu[i]));
        cJSON_AddBoolToObject(o, "virtualized", r->host.virtualized);
        cJSON_AddNumberToObject(o, "perf_event_paranoid", r->host.perf_event_paranoid);
        cJSON_AddBoolToObject(o, "exclude_kernel", r->host.exclude_kernel);
        cJSON_AddStringToObject(root, "counters", r->counters ? r->counters : "software");
        cJSON_AddNumberToObject(root, "repeat", (double) r->repeat);
        cJSON_AddNumberToObject(root, "warmup", (double) r->warmup);
        o = cJSON_AddObjectToObject(root, "metrics");
        for (size_t i = 0; i < r->nmetrics; i++) {
                const struct pg_metric *m = &r->metrics[i];
                cJSON *mo = cJSON_CreateObject();
                cJSON_AddStringToObject(mo, "unit", m->unit);
                if (m->status != PG_METRIC_OK)
                        cJSON_AddStringToObject(mo, "status", pg_metric_status_name(m->status));
                if (m->reason)
                        cJSON_AddStringToObject(mo, "reason", m->reason);
                if (m->status == PG_METRIC_OK) {
                        cJSON_AddItemToObject(mo, "values", pg_number_array(m->values, m->nvalues));
                        if (m->coverage)
                                cJSON_AddItemToObject(mo, "coverage",
                                                      pg_number_array(m->coverage, m->nvalues));
                }
                cJSON_AddItemToObject(o, m->name, mo);
        }
        if (r->profile.present)
                pg_profile_to_json(root, "profile", &r->profile);
        else if (r->profile.missing)
                cJSON_AddStringToObject(root, "profile_missing", r->profile.missing);
        if (r->offcpu.present)
                pg_profile_to_json(root, "offcpu", &r->offcpu);
        else if (r->offcpu.missing)
                cJSON_AddStringToObject(root, "offcpu_missing", r->offcpu.missing);
        if (r->sched.present)
                pg_sched_to_json(root, &r->sched);
        if (r->noise.present) {
                o = cJSON_AddObjectToObject(root, "noise");
                cJSON_AddStringToObject(o, "metric", r->noise.metric ? r->noise.metric : "");
                cJSON_AddNumberToObject(o, "pairs", (double) r->noise.pairs);
                cJSON_AddNumberToObject(o, "paired_sd", r->noise.paired_sd);
        }
        if (r->recording.present) {
                o = cJSON_AddObjectToObject(root, "recording");
                cJSON_AddStringToObject(o, "ended", pg_record_end_name(r->recording.ended));
                cJSON_AddNumberToObject(o, "elapsed_ns", (double) r->recording.elapsed_ns);
                if (r->recording.requested_ns)
                        cJSON_AddNumberToObject(o, "requested_ns",
                                                (double) r->recording.requested_ns);
        }
        if (r->leftovers.present) {
                o = cJSON_AddObjectToObject(root, "leftovers");
                cJSON_AddNumberToObject(o, "runs", (double) r->leftovers.runs);
                cJSON_AddNumberToObject(o, "of_runs", (double) r->leftovers.of_runs);
                cJSON_AddNumberToObject(o, "processes", (double) r->leftovers.processes);
        }
        if (r->load.present) {
                o = cJSON_AddObjectToObject(root, "load");
                cJSON_AddNumberToObject(o, "other_cpus", round(r->load.other_cpus * 1000) / 1000);
                cJSON_AddNumberToObject(o, "steal", round(r->load.steal * 10000) / 10000);
                cJSON_AddNumberToObject(o, "window_ns", (double) r->load.window_ns);
        }
        if (r->functions.present) {
                const struct pg_functions *f = &r->functions;
                cJSON *io;
                o = cJSON_AddObjectToObject(root, "functions");
                cJSON_AddStringToObject(o, "source", f->source ? f->source : "");
                cJSON_AddNumberToObject(o, "min_share", f->min_share);
                io = cJSON_AddObjectToObject(o, "items");
                for (size_t i = 0; i < f->n; i++) {
                        const struct pg_function *fn = &f->items[i];
                        cJSON *fo = cJSON_CreateObject(), *co;
                        if (fn->file)
                                cJSON_AddStringToObject(fo, "file", fn->file);
                        if (fn->line)
                                cJSON_AddNumberToObject(fo, "line", (double) fn->line);
                        co = cJSON_AddObjectToObject(fo, "counts");
                        for (size_t k = 0; k < f->ncounters; k++)
                                cJSON_AddNumberToObject(co, f->counters[k], (double) fn->counts[k]);
                        cJSON_AddItemToObject(io, fn->name, fo);
                }
        }
        return root;
}

int pg_result_to_json(const struct pg_result *r, struct pg_buf *out)
{
        cJSON *tree = pg_result_to_tree(r);
        int error = pg_json_write(out, tree);
        cJSON_Delete(tree);
        return error;
}

/* @r's JSON written by @write (common/fsutil.h's two ways). */
static int pg_result_write(const struct pg_result *r, const char *path,
                           int (*write)(const char *, const void *, size_t))
{
        struct pg_buf b = PG_BUF_INIT;
        int error;

        if ((error = pg_result_to_json(r, &b)) < 0)
                goto done;
        error = write(path, b.ptr, b.len);
done:
        pg_buf_release(&b);
        return error;
}

int pg_result_save(const struct pg_result *r, const char *path)
{
        return pg_result_write(r, path, pg_write_file_own);
}

int pg_result_save_as(const struct pg_result *r, const char *path)
{
        return pg_result_write(r, path, pg_write_file_atomic);
}

/* ---- loading ---------------------------------------------------------- */

/* profile.stacks read straight from the text (pg_take_stacks()), or none */
struct pg_raw_stacks {
        struct pg_stack *stacks;
        size_t n;
        char *arena; /* every stacks[i].frames, one after another */
};

struct pg_loader {
        const char *origin;
        struct pg_raw_stacks *raw; /* NULL, or profile.stacks already read */
        const char *at;            /* the object the getters read ("leftovers"); NULL: the root */
};

/* @ld for the getters of the fields of the object @at, so that their
 * messages name a field by its path ("leftovers.runs"), not its bare key. */
static struct pg_loader pg_loader_at(const struct pg_loader *ld, const char *at)
{
        struct pg_loader in = *ld;

        in.at = at;
        return in;
}

/* Strings are kept exactly as the writer will print them: invalid UTF-8
 * replaced by U+FFFD on the way in, so load -> save -> load is stable and a
 * frame name maps to one key (common/json.h's rule). */
static char *pg_dup_utf8(const char *s)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_utf8_sanitize(&b, s, strlen(s));
        return pg_buf_detach(&b, NULL);
}

/* PG_EINPUT with the message @fmt, its control characters written as C
 * escapes (\n, \x1b): it quotes the file's own strings (names, units,
 * schema), and a newline in one must not start a line of its own where the
 * message is shown (a terminal, a CI log, a PR comment quoting it). */
static int pg_bad_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int pg_bad_set(const char *fmt, ...)
{
        struct pg_buf raw = PG_BUF_INIT, out = PG_BUF_INIT;
        va_list ap;

        va_start(ap, fmt);
        pg_buf_vprintf(&raw, fmt, ap);
        va_end(ap);
        pg_show_escape(&out, raw.ptr, raw.len, 0);
        pg_error_set(PG_EINPUT, "%s", out.len ? out.ptr : "");
        pg_buf_release(&raw);
        pg_buf_release(&out);
        return PG_EINPUT;
}

static int pg_bad(const struct pg_loader *ld, const char *field, const char *what)
{
        if (ld->at != NULL)
                return pg_bad_set("'%s': field '%s.%s' %s", ld->origin, ld->at, field, what);
        return pg_bad_set("'%s': field '%s' %s", ld->origin, field, what);
}

/* pg_bad() for the field @sub of the object @key ("profile.stacks"). */
static int pg_bad_in(const struct pg_loader *ld, const char *key, const char *sub, const char *what)
{
        return pg_bad_set("'%s': field '%s.%s' %s", ld->origin, key, sub, what);
}

static int pg_get_str(const struct pg_loader *ld, const cJSON *obj, const char *key, bool required,
                      char **out)
{
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (!it) {
                if (required)
                        return pg_bad(ld, key, "is missing");
                return 0;
        }
        if (!cJSON_IsString(it))
                return pg_bad(ld, key, "must be a string");
        *out = pg_dup_utf8(it->valuestring);
        return 0;
}

/* JSON numbers as unsigned counts: finite, >= 0, integral, below 2^53. */
static int pg_get_u64(const struct pg_loader *ld, const cJSON *obj, const char *key, bool required,
                      uint64_t *out)
{
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
        double v;
        if (!it) {
                if (required)
                        return pg_bad(ld, key, "is missing");
                return 0;
        }
        if (!cJSON_IsNumber(it))
                return pg_bad(ld, key, "must be a number");
        v = it->valuedouble;
        if (!isfinite(v) || v < 0 || v != floor(v) || v > 9007199254740992.0)
                return pg_bad(ld, key, "must be a non-negative integer");
        *out = (uint64_t) v;
        return 0;
}

static int pg_get_bool(const struct pg_loader *ld, const cJSON *obj, const char *key, bool *out)
{
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (!it)
                return 0;
        if (!cJSON_IsBool(it))
                return pg_bad(ld, key, "must be true or false");
        *out = cJSON_IsTrue(it);
        return 0;
}

static int pg_get_numbers(const struct pg_loader *ld, const cJSON *arr, const char *field,
                          double **out, size_t *n)
{
        size_t count = 0, i = 0;
        const cJSON *c;

        if (!cJSON_IsArray(arr))
                return pg_bad(ld, field, "must be an array of numbers");
        cJSON_ArrayForEach(c, arr) count++;
        *out = pg_xcalloc(count ? count : 1, sizeof(double));
        cJSON_ArrayForEach(c, arr)
        {
                if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble)) {
                        free(*out);
                        *out = NULL;
                        return pg_bad(ld, field, "must hold only finite numbers");
                }
                (*out)[i++] = c->valuedouble;
        }
        *n = count;
        return 0;
}

static int pg_parse_schema(const struct pg_loader *ld, const char *schema)
{
        const char *prefix = "perfgate/result/";
        char *end;
        long major;

        if (strncmp(schema, prefix, strlen(prefix)) != 0)
                return pg_bad_set("'%s': not a perfgate result (schema '%s')", ld->origin, schema);
        major = strtol(schema + strlen(prefix), &end, 10);
        if (end == schema + strlen(prefix) || major < 1 || (*end && *end != '.'))
                return pg_bad_set("'%s': unrecognised schema '%s'", ld->origin, schema);
        if (major > PG_RESULT_SCHEMA_MAJOR)
                return pg_bad_set("'%s': written by a newer perfgate (schema '%s'); this "
                                  "perfgate reads %s; upgrade perfgate to read it",
                                  ld->origin, schema, PG_RESULT_SCHEMA);
        return 0;
}

/* The base units of docs/result-format.md: anything else (msec, KiB,
 * percent, a typo) would be compared with the wrong scale. */
static bool pg_unit_known(const char *unit)
{
        static const char *const units[] = { "ns", "count", "bytes", "ratio" };
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
                if (strcmp(unit, units[i]) == 0)
                        return true;
        return false;
}

static int pg_load_metric(const struct pg_loader *ld, struct pg_result *r, const cJSON *mo)
{
        struct pg_metric *m;
        const cJSON *it;
        char *field = pg_xasprintf("metrics.%s", mo->string);
        int error = 0;
        enum pg_metric_status status = PG_METRIC_OK;
        const char *s;

        if (!cJSON_IsObject(mo)) {
                error = pg_bad(ld, field, "must be an object");
                goto done;
        }
        s = pg_json_get_string(mo, "unit");
        if (!s) {
                error = pg_bad(ld, field, "has no string 'unit'");
                goto done;
        }
        if (!pg_unit_known(s)) {
                char *what = pg_xasprintf("has unit '%s'; known units: ns, count, bytes, ratio "
                                          "(docs/result-format.md)",
                                          s);
                error = pg_bad(ld, field, what);
                free(what);
                goto done;
        }
        it = cJSON_GetObjectItemCaseSensitive(mo, "status");
        if (it) {
                size_t k;
                if (!cJSON_IsString(it)) {
                        error = pg_bad(ld, field, "has a non-string 'status'");
                        goto done;
                }
                for (k = 0; k < sizeof(pg_status_names) / sizeof(pg_status_names[0]); k++)
                        if (strcmp(it->valuestring, pg_status_names[k]) == 0)
                                break;
                if (k == sizeof(pg_status_names) / sizeof(pg_status_names[0])) {
                        error = pg_bad(ld, field, "has an unknown 'status'");
                        goto done;
                }
                status = (enum pg_metric_status) k;
        }
        {
                const char *reason = pg_json_get_string(mo, "reason");
                char *mname = pg_dup_utf8(mo->string), *unit = pg_dup_utf8(s);
                char *why = reason ? pg_dup_utf8(reason) : NULL;
                /* a name twice in the text is refused by pg_json_parse_except();
                 * two names that differ only in bytes that are not UTF-8 meet here */
                bool dup = pg_result_find_metric(r, mname) != NULL;
                if (!dup)
                        m = pg_result_add_metric(r, mname, unit, status, NULL, NULL, 0, why);
                free(mname);
                free(unit);
                free(why);
                if (dup) {
                        error = pg_bad(ld, field, "appears twice");
                        goto done;
                }
        }
        it = cJSON_GetObjectItemCaseSensitive(mo, "values");
        if (status == PG_METRIC_OK) {
                const cJSON *cov = cJSON_GetObjectItemCaseSensitive(mo, "coverage");
                if (!it) {
                        error = pg_bad(ld, field, "is counted but has no 'values'");
                        goto done;
                }
                if ((error = pg_get_numbers(ld, it, field, &m->values, &m->nvalues)) < 0)
                        goto done;
                if (!m->nvalues) {
                        error = pg_bad(ld, field, "has an empty 'values' array");
                        goto done;
                }
                for (size_t i = 0; i < m->nvalues; i++) {
                        if (m->values[i] < 0) {
                                char *what = pg_xasprintf("has a negative value (%g); counts, "
                                                          "times, sizes and ratios are >= 0",
                                                          m->values[i]);
                                error = pg_bad(ld, field, what);
                                free(what);
                                goto done;
                        }
                }
                if (cov) {
                        size_t nc = 0;
                        if ((error = pg_get_numbers(ld, cov, field, &m->coverage, &nc)) < 0)
                                goto done;
                        if (nc != m->nvalues) {
                                error = pg_bad(ld, field,
                                               "has 'coverage' and 'values' of different "
                                               "lengths");
                                goto done;
                        }
                        for (size_t i = 0; i < nc; i++)
                                if (!(m->coverage[i] > 0 && m->coverage[i] <= 1)) {
                                        error =
                                            pg_bad(ld, field, "has a 'coverage' outside (0, 1]");
                                        goto done;
                                }
                }
        } else if (it) {
                error = pg_bad(ld, field, "has 'values' although it was not counted");
                goto done;
        }
done:
        free(field);
        return error;
}

/* "samples" is the sum of the stack counts: the sampler adds 1 to both for
 * every sample it folds (runner/symbolize.c), so any other total was not
 * produced by perfgate and would skew every share computed from it. */
static int pg_check_samples(const struct pg_loader *ld, const struct pg_profile *p, const char *key)
{
        uint64_t sum = 0;
        char *what;
        int error;

        for (size_t i = 0; i < p->nstacks; i++) {
                if (p->stacks[i].count > UINT64_MAX - sum)
                        return pg_bad_in(ld, key, "stacks",
                                         "has counts that add up to more than 2^64");
                sum += p->stacks[i].count;
        }
        if (sum == p->samples)
                return 0;
        what = pg_xasprintf("is %llu but the stack counts add up to %llu; 'samples' must be "
                            "their sum",
                            (unsigned long long) p->samples, (unsigned long long) sum);
        error = pg_bad_in(ld, key, "samples", what);
        free(what);
        return error;
}

/* @a's entries as integers into @out (@n of them); "must be ..." on error */
static bool pg_u64_array(const cJSON *a, uint64_t n, uint64_t *out)
{
        const cJSON *c;
        uint64_t i = 0;

        if (!cJSON_IsArray(a) || (uint64_t) cJSON_GetArraySize(a) != n)
                return false;
        cJSON_ArrayForEach(c, a)
        {
                double v = c->valuedouble;
                if (!cJSON_IsNumber(c) || !isfinite(v) || v < 0 || v != floor(v) ||
                    v > 9007199254740992.0)
                        return false;
                out[i++] = (uint64_t) v;
        }
        return true;
}

static int pg_run_self_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_run_self *) a)->function,
                      ((const struct pg_run_self *) b)->function);
}

/* The optional per-run self counts of profile @p: "run_samples" (one count
 * per run, summing to "samples") and "run_self" (function -> one count per
 * run; each run's counts sum to its run_samples), both or neither. */
static int pg_load_runs(const struct pg_loader *ld, struct pg_profile *p, const cJSON *po,
                        const char *key)
{
        const cJSON *rs = cJSON_GetObjectItemCaseSensitive(po, "run_samples");
        const cJSON *ro = cJSON_GetObjectItemCaseSensitive(po, "run_self"), *c;
        uint64_t sum = 0, *check;
        size_t n = 0;

        if (!rs && !ro)
                return 0;
        if (!rs || !ro)
                return pg_bad_in(ld, key, rs ? "run_samples" : "run_self",
                                 "is given without the other of 'run_samples' and 'run_self'");
        if (p->runs == 0 || p->runs > 1000000)
                return pg_bad_in(ld, key, "runs", "must be 1 to 1000000 with 'run_samples'");
        p->run_samples = pg_xcalloc(p->runs, sizeof(*p->run_samples));
        if (!pg_u64_array(rs, p->runs, p->run_samples))
                return pg_bad_in(ld, key, "run_samples",
                                 "must be an array of 'runs' non-negative integers");
        for (uint64_t r = 0; r < p->runs; r++)
                sum += p->run_samples[r];
        if (sum != p->samples)
                return pg_bad_in(ld, key, "run_samples", "must add up to 'samples'");
        if (!cJSON_IsObject(ro))
                return pg_bad_in(ld, key, "run_self", "must be an object");
        cJSON_ArrayForEach(c, ro) n++;
        p->run_self = pg_xcalloc(n ? n : 1, sizeof(*p->run_self));
        cJSON_ArrayForEach(c, ro)
        {
                struct pg_run_self *f = &p->run_self[p->nrun_self++];
                f->function = pg_dup_utf8(c->string ? c->string : "");
                f->counts = pg_xcalloc(p->runs, sizeof(*f->counts));
                if (!*f->function || !pg_u64_array(c, p->runs, f->counts))
                        return pg_bad_in(ld, key, "run_self",
                                         "must map functions to arrays of 'runs' non-negative "
                                         "integers");
        }
        qsort(p->run_self, p->nrun_self, sizeof(*p->run_self), pg_run_self_cmp);
        check = pg_xcalloc(p->runs, sizeof(*check));
        for (size_t i = 0; i < p->nrun_self; i++) {
                if (i > 0 && strcmp(p->run_self[i - 1].function, p->run_self[i].function) == 0) {
                        free(check);
                        return pg_bad_in(ld, key, "run_self", "has a function twice");
                }
                for (uint64_t r = 0; r < p->runs; r++)
                        check[r] += p->run_self[i].counts[r];
        }
        for (uint64_t r = 0; r < p->runs; r++)
                if (check[r] != p->run_samples[r]) {
                        free(check);
                        return pg_bad_in(ld, key, "run_self",
                                         "must add up to 'run_samples' in every run");
                }
        free(check);
        return 0;
}

static int pg_load_noise(const struct pg_loader *ld, struct pg_noise *n, const cJSON *no)
{
        const cJSON *sd;
        int error;

        if (!cJSON_IsObject(no))
                return pg_bad(ld, "noise", "must be an object");
        n->present = true;
        if ((error = pg_get_str(ld, no, "metric", true, &n->metric)) < 0 ||
            (error = pg_get_u64(ld, no, "pairs", true, &n->pairs)) < 0)
                return error;
        if (n->pairs < 2)
                return pg_bad(ld, "noise.pairs", "must be 2 or more");
        sd = cJSON_GetObjectItemCaseSensitive(no, "paired_sd");
        if (!cJSON_IsNumber(sd) || !isfinite(sd->valuedouble) || sd->valuedouble < 0 ||
            sd->valuedouble > 10)
                return pg_bad(ld, "noise.paired_sd", "must be a number in [0, 10]");
        n->paired_sd = sd->valuedouble;
        return 0;
}

static const char *const pg_record_end_names[] = { "duration", "interrupted", "target-exited" };

const char *pg_record_end_name(enum pg_record_end e)
{
        return (size_t) e < sizeof(pg_record_end_names) / sizeof(pg_record_end_names[0])
                   ? pg_record_end_names[e]
                   : "duration";
}

static int pg_load_recording(const struct pg_loader *ld, struct pg_recording *rec, const cJSON *ro)
{
        struct pg_loader in;
        char *ended = NULL;
        size_t i, n = sizeof(pg_record_end_names) / sizeof(pg_record_end_names[0]);
        int error;

        if (!cJSON_IsObject(ro))
                return pg_bad(ld, "recording", "must be an object");
        in = pg_loader_at(ld, "recording");
        if ((error = pg_get_str(&in, ro, "ended", true, &ended)) < 0)
                return error;
        for (i = 0; i < n && strcmp(ended, pg_record_end_names[i]) != 0; i++)
                ;
        free(ended);
        if (i == n)
                return pg_bad(ld, "recording.ended",
                              "must be \"duration\", \"interrupted\" or \"target-exited\"");
        rec->present = true;
        rec->ended = (enum pg_record_end) i;
        if ((error = pg_get_u64(&in, ro, "elapsed_ns", true, &rec->elapsed_ns)) < 0 ||
            (error = pg_get_u64(&in, ro, "requested_ns", false, &rec->requested_ns)) < 0)
                return error;
        return 0;
}

void pg_leftovers_describe(struct pg_buf *out, const struct pg_leftovers *l)
{
        bool many = l->processes > 1;

        pg_buf_printf(out,
                      "%s%llu process%s it started %s still running at its exit in %llu of %llu "
                      "runs, %s CPU time counted",
                      many ? "up to " : "", (unsigned long long) l->processes, many ? "es" : "",
                      many ? "were" : "was", (unsigned long long) l->runs,
                      (unsigned long long) l->of_runs, many ? "their" : "its");
}

/* The optional "leftovers" object: {"runs", "of_runs", "processes"}, with
 * 1 <= runs <= of_runs, of_runs = warmup + repeat (the counting runs the
 * result made, runner/run.c) and processes >= 1. */
static int pg_load_leftovers(const struct pg_loader *ld, struct pg_leftovers *l, const cJSON *lo,
                             uint64_t warmup, uint64_t repeat)
{
        struct pg_loader in = pg_loader_at(ld, "leftovers");
        int error;

        if (!cJSON_IsObject(lo))
                return pg_bad(ld, "leftovers", "must be an object");
        if ((error = pg_get_u64(&in, lo, "runs", true, &l->runs)) < 0 ||
            (error = pg_get_u64(&in, lo, "of_runs", true, &l->of_runs)) < 0 ||
            (error = pg_get_u64(&in, lo, "processes", true, &l->processes)) < 0)
                return error;
        if (l->runs == 0 || l->runs > l->of_runs)
                return pg_bad(ld, "leftovers.runs", "must be between 1 and leftovers.of_runs");
        if (l->of_runs != warmup + repeat)
                return pg_bad_set("'%s': field 'leftovers.of_runs' must be %llu (warmup %llu + "
                                  "repeat %llu), the counting runs the result made, not %llu",
                                  ld->origin, (unsigned long long) (warmup + repeat),
                                  (unsigned long long) warmup, (unsigned long long) repeat,
                                  (unsigned long long) l->of_runs);
        if (l->processes == 0)
                return pg_bad(ld, "leftovers.processes", "must be at least 1");
        l->present = true;
        return 0;
}

/* The optional "load" object: {"other_cpus" >= 0, "steal" in [0, 1],
 * "window_ns" >= 1}. */
static int pg_load_load(const struct pg_loader *ld, struct pg_load *l, const cJSON *lo)
{
        struct pg_loader in = pg_loader_at(ld, "load");
        const cJSON *oc, *st;
        int error;

        if (!cJSON_IsObject(lo))
                return pg_bad(ld, "load", "must be an object");
        oc = cJSON_GetObjectItemCaseSensitive(lo, "other_cpus");
        st = cJSON_GetObjectItemCaseSensitive(lo, "steal");
        if (!cJSON_IsNumber(oc) || !(oc->valuedouble >= 0) || oc->valuedouble > 1e6)
                return pg_bad(ld, "load.other_cpus", "must be a number >= 0");
        if (!cJSON_IsNumber(st) || !(st->valuedouble >= 0) || st->valuedouble > 1)
                return pg_bad(ld, "load.steal", "must be a number between 0 and 1");
        if ((error = pg_get_u64(&in, lo, "window_ns", true, &l->window_ns)) < 0)
                return error;
        if (l->window_ns == 0)
                return pg_bad(ld, "load.window_ns", "must be at least 1");
        l->other_cpus = oc->valuedouble;
        l->steal = st->valuedouble;
        l->present = true;
        return 0;
}

/* The optional "sched" object: {"runs", "tasks": [{"comm", "threads",
 * "runtime_ns", "switches", "delay_total_ns", "delay_max_ns"}]}, tasks
 * sorted by comm and unique, a delay never above the total of its task. */
static int pg_load_sched(const struct pg_loader *ld, struct pg_sched *s, const cJSON *so)
{
        struct pg_loader in;
        const cJSON *arr, *to;
        int error;

        if (!cJSON_IsObject(so))
                return pg_bad(ld, "sched", "must be an object");
        s->present = true;
        in = pg_loader_at(ld, "sched");
        if ((error = pg_get_u64(&in, so, "runs", true, &s->runs)) < 0)
                return error;
        if (s->runs == 0)
                return pg_bad_in(ld, "sched", "runs", "must be at least 1");
        arr = cJSON_GetObjectItemCaseSensitive(so, "tasks");
        if (!cJSON_IsArray(arr))
                return pg_bad_in(ld, "sched", "tasks", "must be an array");
        s->tasks = pg_xcalloc((size_t) cJSON_GetArraySize(arr) + 1, sizeof(*s->tasks));
        cJSON_ArrayForEach(to, arr)
        {
                struct pg_sched_task *t = &s->tasks[s->n];

                if (!cJSON_IsObject(to))
                        return pg_bad_in(ld, "sched", "tasks", "must hold objects");
                s->n++;
                if ((error = pg_get_str(ld, to, "comm", true, &t->comm)) < 0 ||
                    (error = pg_get_u64(ld, to, "threads", true, &t->threads)) < 0 ||
                    (error = pg_get_u64(ld, to, "runtime_ns", true, &t->runtime_ns)) < 0 ||
                    (error = pg_get_u64(ld, to, "switches", true, &t->switches)) < 0 ||
                    (error = pg_get_u64(ld, to, "delay_total_ns", true, &t->delay_total_ns)) < 0 ||
                    (error = pg_get_u64(ld, to, "delay_max_ns", true, &t->delay_max_ns)) < 0)
                        return error;
                if (s->n > 1 && strcmp(s->tasks[s->n - 2].comm, t->comm) >= 0)
                        return pg_bad_in(ld, "sched", "tasks",
                                         "must be sorted by comm, each comm once");
                if (t->delay_max_ns > t->delay_total_ns)
                        return pg_bad_in(ld, "sched", "tasks",
                                         "has a delay_max_ns above its delay_total_ns");
        }
        return 0;
}

/* The optional "inlined" of an entry of "addresses" (docs/result-format.md):
 * an array of {"site", "function", "line", "samples"}, each line a key of
 * the entry's "lines" holding at least the samples the array gives it. */
static int pg_load_inlined(const struct pg_loader *ld, struct pg_fn_addrs *f, const cJSON *arr,
                           const char *key)
{
        const cJSON *eo;
        size_t n = 0;

        if (arr == NULL)
                return 0;
        if (!cJSON_IsArray(arr))
                return pg_bad_in(ld, key, "addresses", "inlined must be an array");
        cJSON_ArrayForEach(eo, arr) n++;
        f->inlined = pg_xcalloc(n ? n : 1, sizeof(*f->inlined));
        cJSON_ArrayForEach(eo, arr)
        {
                const cJSON *site = cJSON_GetObjectItemCaseSensitive(eo, "site");
                const cJSON *fn = cJSON_GetObjectItemCaseSensitive(eo, "function");
                const cJSON *line = cJSON_GetObjectItemCaseSensitive(eo, "line");
                const cJSON *c = cJSON_GetObjectItemCaseSensitive(eo, "samples");
                struct pg_inline_count *e = &f->inlined[f->ninlined];
                double v = cJSON_IsNumber(c) ? c->valuedouble : 0;

                if (!cJSON_IsString(site) || !*site->valuestring || !cJSON_IsString(fn) ||
                    !*fn->valuestring || !cJSON_IsString(line) || !*line->valuestring ||
                    !isfinite(v) || v < 1 || v != floor(v) || v > 9007199254740992.0)
                        return pg_bad_in(ld, key, "addresses",
                                         "each inlined entry needs a site, a function, a line "
                                         "and a positive integer count of samples");
                e->site = pg_dup_utf8(site->valuestring);
                e->function = pg_dup_utf8(fn->valuestring);
                e->line = pg_dup_utf8(line->valuestring);
                e->count = (uint64_t) v;
                f->ninlined++;
        }
        return 0;
}

/* Whether a line of @f (sorted) is given more samples by its inlined
 * entries than it has. */
static bool pg_inlined_overflows(const struct pg_fn_addrs *f)
{
        struct pg_line_count *v = pg_xcalloc(f->ninlined ? f->ninlined : 1, sizeof(*v));
        bool bad = false;

        for (size_t i = 0; i < f->ninlined; i++)
                v[i] = (struct pg_line_count){ f->inlined[i].line, f->inlined[i].count };
        if (f->ninlined > 1)
                qsort(v, f->ninlined, sizeof(*v), pg_line_count_cmp);
        for (size_t i = 0; i < f->ninlined && !bad;) {
                uint64_t sum = 0;
                size_t j = i;
                const struct pg_line_count *l;

                for (; j < f->ninlined && strcmp(v[j].where, v[i].where) == 0; j++)
                        sum += v[j].count;
                l = f->nlines
                        ? bsearch(&v[i], f->lines, f->nlines, sizeof(*f->lines), pg_line_count_cmp)
                        : NULL;
                bad = l == NULL || sum > l->count;
                i = j;
        }
        free(v);
        return bad;
}

/* The optional "addresses" of a profile (docs/result-format.md): an array of
 * {"function", "module", "build_id" (optional), "counts": {"hex address":
 * count}, "lines" (optional)}. */
static int pg_load_addrs(const struct pg_loader *ld, struct pg_profile *p, const cJSON *arr,
                         const char *key)
{
        const cJSON *fo;
        size_t n = 0;
        int error;

        if (arr == NULL)
                return 0;
        if (!cJSON_IsArray(arr))
                return pg_bad_in(ld, key, "addresses", "must be an array");
        cJSON_ArrayForEach(fo, arr) n++;
        p->addrs = pg_xcalloc(n ? n : 1, sizeof(*p->addrs));
        cJSON_ArrayForEach(fo, arr)
        {
                const cJSON *fn = cJSON_GetObjectItemCaseSensitive(fo, "function");
                const cJSON *mod = cJSON_GetObjectItemCaseSensitive(fo, "module");
                const cJSON *bid = cJSON_GetObjectItemCaseSensitive(fo, "build_id");
                const cJSON *co = cJSON_GetObjectItemCaseSensitive(fo, "counts"), *c;
                struct pg_fn_addrs *f = &p->addrs[p->naddrs];
                size_t m = 0;
                double sum = 0;

                if (!cJSON_IsString(fn) || !*fn->valuestring || !cJSON_IsString(mod) ||
                    !cJSON_IsObject(co))
                        return pg_bad_in(ld, key, "addresses",
                                         "each entry needs a function, a module and counts");
                f->function = pg_dup_utf8(fn->valuestring);
                f->module = pg_dup_utf8(mod->valuestring);
                p->naddrs++;
                if (bid != NULL) {
                        size_t len = cJSON_IsString(bid) ? strlen(bid->valuestring) : 0;

                        if (len < 2 || len > 128 || len % 2 ||
                            strspn(bid->valuestring, "0123456789abcdef") != len)
                                return pg_bad_in(ld, key, "addresses",
                                                 "build_id must be lower-case hex (2 to 128 "
                                                 "digits, an even number)");
                        f->build_id = pg_xstrdup(bid->valuestring);
                }
                cJSON_ArrayForEach(c, co) m++;
                f->addrs = pg_xcalloc(m ? m : 1, sizeof(*f->addrs));
                cJSON_ArrayForEach(c, co)
                {
                        double v = c->valuedouble;
                        char *end;
                        unsigned long long a;

                        errno = 0;
                        a = c->string ? strtoull(c->string, &end, 16) : 0;
                        if (!c->string || !*c->string || *end || errno || !cJSON_IsNumber(c) ||
                            !isfinite(v) || v < 1 || v != floor(v) || v > 9007199254740992.0)
                                return pg_bad_in(ld, key, "addresses",
                                                 "counts must map hex addresses to positive "
                                                 "integer counts");
                        f->addrs[f->n].addr = a;
                        f->addrs[f->n++].count = (uint64_t) v;
                        sum += v;
                }
                if (sum > 9007199254740992.0) /* 2^53: the sum of a function's counts */
                        return pg_bad_in(ld, key, "addresses",
                                         "counts of one function add up to more than 2^53");
                co = cJSON_GetObjectItemCaseSensitive(fo, "lines");
                if (co == NULL)
                        continue;
                m = 0;
                cJSON_ArrayForEach(c, co) m++;
                if (!cJSON_IsObject(co))
                        return pg_bad_in(ld, key, "addresses", "lines must be an object");
                f->lines = pg_xcalloc(m ? m : 1, sizeof(*f->lines));
                cJSON_ArrayForEach(c, co)
                {
                        double v = c->valuedouble;

                        if (!c->string || !*c->string || !cJSON_IsNumber(c) || !isfinite(v) ||
                            v < 1 || v != floor(v) || v > 9007199254740992.0)
                                return pg_bad_in(ld, key, "addresses",
                                                 "lines must map \"file:line\" to positive "
                                                 "integer counts");
                        f->lines[f->nlines].where = pg_dup_utf8(c->string);
                        f->lines[f->nlines++].count = (uint64_t) v;
                }
                if ((error = pg_load_inlined(ld, f, cJSON_GetObjectItemCaseSensitive(fo, "inlined"),
                                             key)) < 0)
                        return error;
        }
        pg_profile_sort_addrs(p);
        for (size_t i = 0; i < p->naddrs; i++)
                if (pg_inlined_overflows(&p->addrs[i]))
                        return pg_bad_in(ld, key, "addresses",
                                         "inlined gives a line more samples than its lines do "
                                         "(or a line they do not have)");
        return 0;
}

const char *pg_stack_key_problem(const char *key, size_t len)
{
        const char *p = key, *end = key + len;

        if (!len)
                return "is empty";
        if (memchr(key, '\0', len))
                return "holds a NUL byte";
        for (;;) {
                const char *e = memchr(p, ';', (size_t) (end - p));
                if (e == p || (!e && p == end))
                        return "has an empty frame";
                if (!e)
                        return NULL;
                p = e + 1;
        }
}

/* PG_EINPUT: the stack @frames of @key.stacks is not one (@why). */
static int pg_bad_stack(const struct pg_loader *ld, const char *key, const char *frames,
                        const char *why)
{
        size_t len = strlen(frames);
        return pg_bad_set("'%s': field '%s.stacks' has a stack that %s: '%.*s%s' (frames are "
                          "names joined by ';', root first; a frame perfgate cannot name is "
                          "'[unknown]'); correct or remove it",
                          ld->origin, key, why, (int) (len > 200 ? 200 : len), frames,
                          len > 200 ? "..." : "");
}

/* "@key_missing" of @root, why the run stored no profile @key
 * (docs/result-format.md): a string, into @p->missing; never beside @key
 * itself. */
static int pg_load_missing(const struct pg_loader *ld, const cJSON *root, struct pg_profile *p,
                           const char *key)
{
        char *name = pg_xasprintf("%s_missing", key);
        int error = 0;

        if (cJSON_GetObjectItemCaseSensitive(root, name)) {
                if (p->present)
                        error = pg_bad_set("'%s': fields '%s' and '%s' are both present: a "
                                           "result has a profile or says why it has none; "
                                           "remove one",
                                           ld->origin, key, name);
                else
                        error = pg_get_str(ld, root, name, false, &p->missing);
        }
        free(name);
        return error;
}

static int pg_load_profile(const struct pg_loader *ld, struct pg_profile *p, const cJSON *po,
                           const char *key)
{
        const cJSON *so, *c;
        int error = 0;
        size_t n = 0, i = 0;

        if (!cJSON_IsObject(po))
                return pg_bad(ld, key, "must be an object");
        p->present = true;
        if ((error = pg_get_str(ld, po, "event", true, &p->event)) < 0 ||
            (error = pg_get_str(ld, po, "call_graph", false, &p->call_graph)) < 0 ||
            (error = pg_get_u64(ld, po, "frequency_hz", false, &p->frequency_hz)) < 0 ||
            (error = pg_get_u64(ld, po, "samples", true, &p->samples)) < 0 ||
            (error = pg_get_u64(ld, po, "lost", false, &p->lost)) < 0 ||
            (error = pg_get_u64(ld, po, "throttled", false, &p->throttled)) < 0 ||
            (error = pg_get_u64(ld, po, "truncated", false, &p->truncated)) < 0 ||
            (error = pg_get_u64(ld, po, "frames", false, &p->frames)) < 0 ||
            (error = pg_get_u64(ld, po, "unresolved", false, &p->unresolved)) < 0 ||
            (error = pg_get_u64(ld, po, "runs", false, &p->runs)) < 0 ||
            (error = pg_get_bool(ld, po, "kernel", &p->kernel)) < 0 ||
            (error = pg_get_bool(ld, po, "inline_sites", &p->inline_sites)) < 0)
                return error;
        /* off-CPU times are per run (ns / runs): 0 runs would divide by 0 */
        if (strcmp(key, "offcpu") == 0 && p->runs == 0)
                return pg_bad_in(ld, key, "runs", "must be at least 1");
        so = cJSON_GetObjectItemCaseSensitive(po, "stacks");
        if (!so)
                return pg_check_samples(ld, p, key);
        if (!cJSON_IsObject(so))
                return pg_bad_in(ld, key, "stacks", "must be an object");
        if (ld->raw && strcmp(key, "profile") == 0) {
                /* read by pg_take_stacks(); the object left in the tree is blank */
                p->stacks = ld->raw->stacks;
                p->nstacks = ld->raw->n;
                p->frames_arena = ld->raw->arena;
                memset(ld->raw, 0, sizeof(*ld->raw));
        }
        cJSON_ArrayForEach(c, so) n++;
        if (!p->stacks)
                p->stacks = pg_xcalloc(n ? n : 1, sizeof(*p->stacks));
        cJSON_ArrayForEach(c, so)
        {
                double v = c->valuedouble;
                if (!cJSON_IsNumber(c) || !isfinite(v) || v < 1 || v != floor(v) ||
                    v > 9007199254740992.0 || !c->string) {
                        p->nstacks = i;
                        return pg_bad_in(ld, key, "stacks",
                                         "must map non-empty stacks to positive integer counts");
                }
                p->stacks[i].frames = pg_dup_utf8(c->string);
                p->stacks[i].count = (uint64_t) v;
                p->nstacks = ++i;
        }
        for (i = 0; i < p->nstacks; i++) {
                const char *f = p->stacks[i].frames;
                const char *why = pg_stack_key_problem(f, strlen(f));
                if (why)
                        return pg_bad_stack(ld, key, p->stacks[i].frames, why);
        }
        /* perfgate writes the stacks in this order: sort only when a stack
         * is out of it (one pass finds that, and finds duplicates) */
        for (i = 1; i < p->nstacks; i++)
                if (strcmp(p->stacks[i - 1].frames, p->stacks[i].frames) >= 0)
                        break;
        if (i < p->nstacks)
                pg_stacks_sort(p->stacks, p->nstacks);
        for (i = 1; i < p->nstacks; i++)
                if (strcmp(p->stacks[i - 1].frames, p->stacks[i].frames) == 0)
                        return pg_bad_in(ld, key, "stacks", "has a stack twice");
        /* compare/profile.h keeps stack indexes and key offsets in 32 bits */
        if (p->nstacks >= UINT32_MAX)
                return pg_bad_in(ld, key, "stacks", "has more than 4294967294 stacks");
        if ((error = pg_load_addrs(ld, p, cJSON_GetObjectItemCaseSensitive(po, "addresses"), key)) <
                0 ||
            (error = pg_check_samples(ld, p, key)) < 0)
                return error;
        return pg_load_runs(ld, p, po, key);
}

static int pg_strp_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Why the counter list is taken from the first item and every other item
 * must match it: a count that is absent is not 0 (DESIGN.md section 4), so
 * a function without one of the counters would be ambiguous. */
static int pg_load_functions(const struct pg_loader *ld, struct pg_functions *f, const cJSON *fo)
{
        const cJSON *io, *it, *c;
        size_t n = 0;
        int error = 0;

        if (!cJSON_IsObject(fo))
                return pg_bad(ld, "functions", "must be an object");
        f->present = true;
        if ((error = pg_get_str(ld, fo, "source", true, &f->source)) < 0)
                return error;
        it = cJSON_GetObjectItemCaseSensitive(fo, "min_share");
        if (it) {
                if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0 ||
                    it->valuedouble > 1)
                        return pg_bad(ld, "functions.min_share", "must be a number in [0, 1]");
                f->min_share = it->valuedouble;
        }
        io = cJSON_GetObjectItemCaseSensitive(fo, "items");
        if (!io)
                return pg_bad(ld, "functions.items", "is missing");
        if (!cJSON_IsObject(io))
                return pg_bad(ld, "functions.items", "must be an object of function names");
        cJSON_ArrayForEach(c, io) n++;
        f->items = pg_xcalloc(n ? n : 1, sizeof(*f->items));
        cJSON_ArrayForEach(c, io)
        {
                struct pg_function *fn;
                const cJSON *co, *k;
                size_t nk = 0;

                if (!c->string || !*c->string || !cJSON_IsObject(c))
                        return pg_bad(ld, "functions.items",
                                      "must map non-empty function names to objects");
                fn = &f->items[f->n++];
                fn->name = pg_dup_utf8(c->string);
                if ((error = pg_get_str(ld, c, "file", false, &fn->file)) < 0 ||
                    (error = pg_get_u64(ld, c, "line", false, &fn->line)) < 0)
                        return error;
                co = cJSON_GetObjectItemCaseSensitive(c, "counts");
                if (!cJSON_IsObject(co))
                        return pg_bad(ld, "functions.items.counts",
                                      "must be an object of counter names");
                cJSON_ArrayForEach(k, co) nk++;
                if (f->n == 1) {
                        f->counters = pg_xcalloc(nk ? nk : 1, sizeof(char *));
                        cJSON_ArrayForEach(k, co) f->counters[f->ncounters++] =
                            pg_dup_utf8(k->string ? k->string : "");
                        qsort(f->counters, f->ncounters, sizeof(char *), pg_strp_cmp);
                        for (size_t i = 1; i < f->ncounters; i++)
                                if (strcmp(f->counters[i - 1], f->counters[i]) == 0)
                                        return pg_bad(ld, "functions.items.counts",
                                                      "has a counter twice");
                }
                if (nk != f->ncounters)
                        return pg_bad(ld, "functions.items.counts",
                                      "must have the same counters for every function");
                fn->counts = pg_xcalloc(nk ? nk : 1, sizeof(uint64_t));
                for (size_t i = 0; i < f->ncounters; i++)
                        if ((error = pg_get_u64(ld, co, f->counters[i], true, &fn->counts[i])) < 0)
                                return error;
        }
        qsort(f->items, f->n, sizeof(*f->items), pg_function_cmp);
        for (size_t i = 1; i < f->n; i++)
                if (strcmp(f->items[i - 1].name, f->items[i].name) == 0)
                        return pg_bad(ld, "functions.items", "has a function twice");
        return 0;
}

static int pg_result_from_tree(struct pg_result *r, const cJSON *root, const struct pg_loader *ld)
{
        const cJSON *it, *c;
        char *schema = NULL;
        int error = 0;

        if (!cJSON_IsObject(root))
                return pg_error_set(PG_EINPUT, "'%s': a result must be a JSON object", ld->origin);
        if ((error = pg_get_str(ld, root, "schema", true, &schema)) < 0)
                return error;
        error = pg_parse_schema(ld, schema);
        free(schema);
        if (error < 0)
                return error;
        if ((error = pg_get_str(ld, root, "name", true, &r->name)) < 0)
                return error;
        if (!pg_result_name_valid(r->name))
                return pg_bad(ld, "name", "is not a valid benchmark name");
        it = cJSON_GetObjectItemCaseSensitive(root, "command");
        if (it) {
                if (!cJSON_IsArray(it))
                        return pg_bad(ld, "command", "must be an array of strings");
                r->command = pg_xcalloc((size_t) cJSON_GetArraySize(it) + 1, sizeof(char *));
                cJSON_ArrayForEach(c, it)
                {
                        if (!cJSON_IsString(c))
                                return pg_bad(ld, "command", "must be an array of strings");
                        r->command[r->ncommand++] = pg_dup_utf8(c->valuestring);
                }
        }
        if ((error = pg_get_str(ld, root, "created", false, &r->created)) < 0 ||
            (error = pg_get_str(ld, root, "machine", false, &r->machine)) < 0 ||
            (error = pg_get_str(ld, root, "counters", false, &r->counters)) < 0 ||
            (error = pg_get_u64(ld, root, "repeat", false, &r->repeat)) < 0 ||
            (error = pg_get_u64(ld, root, "warmup", false, &r->warmup)) < 0)
                return error;
        if (!r->machine)
                r->machine = pg_xstrdup("default");
        it = cJSON_GetObjectItemCaseSensitive(root, "git");
        if (it) {
                struct pg_loader in = pg_loader_at(ld, "git");

                if (!cJSON_IsObject(it))
                        return pg_bad(ld, "git", "must be an object");
                r->has_git = true;
                if ((error = pg_get_str(&in, it, "commit", true, &r->git_commit)) < 0 ||
                    (error = pg_get_bool(&in, it, "dirty", &r->git_dirty)) < 0)
                        return error;
        }
        it = cJSON_GetObjectItemCaseSensitive(root, "host");
        if (it) {
                struct pg_loader in = pg_loader_at(ld, "host");
                uint64_t cpus = 0, paranoid_abs = 0;
                const cJSON *pmu, *par;
                if (!cJSON_IsObject(it))
                        return pg_bad(ld, "host", "must be an object");
                if ((error = pg_get_str(&in, it, "cpu", false, &r->host.cpu)) < 0 ||
                    (error = pg_get_str(&in, it, "kernel", false, &r->host.kernel)) < 0 ||
                    (error = pg_get_str(&in, it, "arch", false, &r->host.arch)) < 0 ||
                    (error = pg_get_u64(&in, it, "cpus", false, &cpus)) < 0 ||
                    (error = pg_get_bool(&in, it, "virtualized", &r->host.virtualized)) < 0 ||
                    (error = pg_get_bool(&in, it, "exclude_kernel", &r->host.exclude_kernel)) < 0)
                        return error;
                (void) paranoid_abs;
                r->host.cpus = cpus;
                par = cJSON_GetObjectItemCaseSensitive(it, "perf_event_paranoid");
                if (par) {
                        if (!cJSON_IsNumber(par) || par->valuedouble != floor(par->valuedouble) ||
                            fabs(par->valuedouble) > 1000)
                                return pg_bad(ld, "host.perf_event_paranoid", "must be an integer");
                        r->host.perf_event_paranoid = (int) par->valuedouble;
                }
                pmu = cJSON_GetObjectItemCaseSensitive(it, "pmu");
                if (pmu) {
                        if (!cJSON_IsArray(pmu))
                                return pg_bad(ld, "host.pmu", "must be an array of strings");
                        r->host.pmu =
                            pg_xcalloc((size_t) cJSON_GetArraySize(pmu) + 1, sizeof(char *));
                        cJSON_ArrayForEach(c, pmu)
                        {
                                if (!cJSON_IsString(c))
                                        return pg_bad(ld, "host.pmu",
                                                      "must be an array of strings");
                                r->host.pmu[r->host.npmu++] = pg_dup_utf8(c->valuestring);
                        }
                }
        }
        it = cJSON_GetObjectItemCaseSensitive(root, "metrics");
        if (it) {
                if (!cJSON_IsObject(it))
                        return pg_bad(ld, "metrics", "must be an object");
                cJSON_ArrayForEach(c, it)
                {
                        if ((error = pg_load_metric(ld, r, c)) < 0)
                                return error;
                }
        }
        it = cJSON_GetObjectItemCaseSensitive(root, "profile");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_profile(ld, &r->profile, it, "profile")) < 0)
                        return error;
        it = cJSON_GetObjectItemCaseSensitive(root, "offcpu");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_profile(ld, &r->offcpu, it, "offcpu")) < 0)
                        return error;
        if ((error = pg_load_missing(ld, root, &r->profile, "profile")) < 0 ||
            (error = pg_load_missing(ld, root, &r->offcpu, "offcpu")) < 0)
                return error;
        it = cJSON_GetObjectItemCaseSensitive(root, "sched");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_sched(ld, &r->sched, it)) < 0)
                        return error;
        it = cJSON_GetObjectItemCaseSensitive(root, "functions");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_functions(ld, &r->functions, it)) < 0)
                        return error;
        it = cJSON_GetObjectItemCaseSensitive(root, "noise");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_noise(ld, &r->noise, it)) < 0)
                        return error;
        it = cJSON_GetObjectItemCaseSensitive(root, "recording");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_recording(ld, &r->recording, it)) < 0)
                        return error;
        it = cJSON_GetObjectItemCaseSensitive(root, "leftovers");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_leftovers(ld, &r->leftovers, it, r->warmup, r->repeat)) < 0)
                        return error;
        it = cJSON_GetObjectItemCaseSensitive(root, "load");
        if (it && !cJSON_IsNull(it))
                if ((error = pg_load_load(ld, &r->load, it)) < 0)
                        return error;
        return 0;
}

/* ---- profile.stacks without a cJSON tree ------------------------------- */

/* A result with a million stacks made cJSON build a million nodes and key
 * copies only for the loader to copy the keys out again. pg_take_stacks()
 * reads the first top-level "profile"'s first "stacks" straight from the
 * text when it has the plain shape perfgate writes (keys without escapes or
 * control characters, counts of 1 to 15 digits) and blanks the object to
 * "{}" in place, keeping every newline and byte offset, so cJSON parses the
 * rest and reports any error at the same line, column and byte. Anything
 * else (an escape, "1.0", a count of 0, a syntax error) leaves the text
 * untouched and the whole file goes through cJSON as before. */

static const char *pg_raw_ws(const char *p, const char *end)
{
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
        return p;
}

/* The end of the string starting at @p ('"'), or NULL. @plain: the string
 * holds no backslash. */
static const char *pg_raw_string(const char *p, const char *end, bool *plain)
{
        *plain = true;
        for (p++; p < end; p++) {
                if (*p == '\\') {
                        *plain = false;
                        p++;
                } else if (*p == '"') {
                        return p + 1;
                }
        }
        return NULL;
}

/* The end of the JSON value at @p, or NULL when it is not one this scan
 * knows (then the caller gives up; cJSON judges the text). */
static const char *pg_raw_skip(const char *p, const char *end)
{
        size_t depth = 0;
        bool plain;

        do {
                p = pg_raw_ws(p, end);
                if (p == end)
                        return NULL;
                if (*p == '"') {
                        if (!(p = pg_raw_string(p, end, &plain)))
                                return NULL;
                } else if (*p == '{' || *p == '[') {
                        depth++;
                        p++;
                } else if (*p == '}' || *p == ']') {
                        if (depth == 0)
                                return NULL;
                        depth--;
                        p++;
                } else if (*p == ',' || *p == ':') {
                        if (depth == 0)
                                return NULL;
                        p++;
                } else {
                        const char *s = p;
                        while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
                                           *p == '-' || *p == '+' || *p == '.' || *p == 'E'))
                                p++;
                        if (p == s)
                                return NULL;
                }
        } while (depth > 0);
        return p;
}

/* In the object at @p ('{'), the value of the first member named @name (a
 * plain key), or NULL. */
static const char *pg_raw_member(const char *p, const char *end, const char *name)
{
        size_t nl = strlen(name);

        p = pg_raw_ws(p + 1, end);
        if (p < end && *p == '}')
                return NULL;
        for (;;) {
                const char *k, *ke;
                bool plain;

                if (p == end || *p != '"' || !(ke = pg_raw_string(p, end, &plain)) || !plain)
                        return NULL;
                k = p + 1;
                p = pg_raw_ws(ke, end);
                if (p == end || *p != ':')
                        return NULL;
                p = pg_raw_ws(p + 1, end);
                /* cJSON compares keys as C strings: a NUL in one would match */
                for (const char *q = k; q < ke - 1; q++)
                        if ((unsigned char) *q < 0x20)
                                return NULL;
                if ((size_t) (ke - 1 - k) == nl && memcmp(k, name, nl) == 0)
                        return p;
                if (!(p = pg_raw_skip(p, end)))
                        return NULL;
                p = pg_raw_ws(p, end);
                if (p == end || *p != ',')
                        return NULL;
                p = pg_raw_ws(p + 1, end);
        }
}

static void pg_raw_free(struct pg_raw_stacks *rs)
{
        free(rs->stacks);
        free(rs->arena);
        memset(rs, 0, sizeof(*rs));
}

/* One member "key": count of a plain stacks object at *@p (just after '{'
 * or ','), leaving *@p at the ',' or '}' after it; false when it is not
 * of the plain shape. @ascii: the key is 7-bit (kept as it is). */
static bool pg_raw_stack(const char **pp, const char *end, const char **key, size_t *klen,
                         uint64_t *count, bool *ascii)
{
        const char *p = pg_raw_ws(*pp, end), *k;
        size_t digits = 0;
        uint64_t v = 0;

        *ascii = true;
        if (p == end || *p != '"')
                return false;
        for (k = ++p; p < end && *p != '"'; p++) {
                unsigned char ch = (unsigned char) *p;
                if (ch < 0x20 || ch == '\\')
                        return false;
                *ascii &= ch < 0x80;
        }
        if (p == end || p == k)
                return false;
        *key = k;
        *klen = (size_t) (p - k);
        p = pg_raw_ws(p + 1, end);
        if (p == end || *p != ':')
                return false;
        p = pg_raw_ws(p + 1, end);
        if (p == end || *p < '1' || *p > '9')
                return false;
        for (; p < end && *p >= '0' && *p <= '9' && digits < 16; p++, digits++)
                v = 10 * v + (uint64_t) (*p - '0');
        if (digits > 15)
                return false;
        p = pg_raw_ws(p, end);
        if (p == end || (*p != ',' && *p != '}'))
                return false;
        *count = v;
        *pp = p;
        return true;
}

/* Read profile.stacks of @text into @rs and blank it; false (nothing read,
 * nothing changed) when the text is not of the plain shape, or when a key
 * would be changed or refused by the loader (bytes that are not UTF-8, an
 * empty frame): cJSON and pg_load_profile() then read the whole file and
 * report the first bad key in the file's order. The keys are read in place
 * (each cut by a NUL over its closing quote), sorted (pg_stacks_sort()) and
 * copied once, in that order, into one arena of their size: every later
 * pass (the duplicate check, the hotspot scan, the flame tree) walks the
 * stacks in that order and reads memory one key after the other instead of
 * one cache miss a key. Copying them in file order first and then again
 * sorted cost a million-stack compare 8% of its CPU time (perf record,
 * bench/large-result.sh). */
static bool pg_take_stacks(char *text, size_t len, struct pg_raw_stacks *rs)
{
        const char *end = text + len, *p = pg_raw_ws(text, end), *open;
        struct pg_buf tmp = PG_BUF_INIT;
        size_t cap = 0, size = 0, at = 0;
        const char *key;
        size_t klen, i;
        uint64_t count;
        bool ascii, plain = true;

        memset(rs, 0, sizeof(*rs));
        if (p == end || *p != '{' || !(p = pg_raw_member(p, end, "profile")) || p == end ||
            *p != '{' || !(p = pg_raw_member(p, end, "stacks")) || p == end || *p != '{')
                return false;
        open = p;
        if (pg_raw_ws(p + 1, end) < end && *pg_raw_ws(p + 1, end) == '}')
                return false; /* no stacks: nothing to save */
        for (p++;; p++) {
                if (!pg_raw_stack(&p, end, &key, &klen, &count, &ascii)) {
                        plain = false;
                        break;
                }
                if (!ascii) { /* sanitising changes a key only by lengthening it */
                        pg_buf_reset(&tmp);
                        pg_utf8_sanitize(&tmp, key, klen);
                        plain = tmp.len == klen;
                }
                if (!plain || pg_stack_key_problem(key, klen)) {
                        plain = false;
                        break;
                }
                if (rs->n == cap) {
                        cap = cap ? 2 * cap : 1024;
                        rs->stacks = pg_xreallocarray(rs->stacks, cap, sizeof(*rs->stacks));
                }
                text[(key - text) + klen] = '\0'; /* over the closing quote */
                rs->stacks[rs->n].frames = text + (key - text);
                rs->stacks[rs->n++].count = count;
                size += klen + 1;
                if (*p == '}')
                        break;
        }
        pg_buf_release(&tmp);
        if (!plain) {
                for (i = 0; i < rs->n; i++) /* put the quotes back */
                        rs->stacks[i].frames[strlen(rs->stacks[i].frames)] = '"';
                pg_raw_free(rs);
                return false;
        }
        /* perfgate writes the stacks in this order: sort only when a stack
         * is out of it */
        for (i = 1; i < rs->n; i++)
                if (strcmp(rs->stacks[i - 1].frames, rs->stacks[i].frames) >= 0)
                        break;
        if (i < rs->n)
                pg_stacks_sort(rs->stacks, rs->n);
        rs->arena = pg_xmalloc(size);
        for (i = 0; i < rs->n; i++) {
                size_t n = strlen(rs->stacks[i].frames) + 1;
                memcpy(rs->arena + at, rs->stacks[i].frames, n);
                rs->stacks[i].frames = rs->arena + at;
                at += n;
        }
        /* "{" ... "}" -> "{" spaces and newlines "}" */
        for (char *q = text + (open - text) + 1; q < text + (p - text); q++)
                if (*q != '\n')
                        *q = ' ';
        return true;
}

/* pg_result_from_json(); @mutable_text: @text may be changed (blanked). */
static int pg_result_from_text(struct pg_result *r, const char *text, char *mutable_text,
                               size_t len, const char *origin)
{
        struct pg_raw_stacks raw = { NULL, 0, NULL };
        struct pg_loader ld = { origin, NULL, NULL };
        cJSON *root = NULL;
        int error;

        if (mutable_text && pg_take_stacks(mutable_text, len, &raw))
                ld.raw = &raw;
        /* profile.stacks: pg_load_profile() finds a stack twice itself */
        if ((error = pg_json_parse_except(text, len, origin, 0, "profile.stacks", &root)) == 0) {
                error = pg_result_from_tree(r, root, &ld);
                cJSON_Delete(root);
        }
        pg_raw_free(&raw);
        if (error < 0)
                pg_result_release(r);
        return error;
}

int pg_result_from_json(struct pg_result *r, const char *text, size_t len, const char *origin)
{
        return pg_result_from_text(r, text, NULL, len, origin);
}

int pg_result_from_json_buf(struct pg_result *r, char *text, size_t len, const char *origin)
{
        return pg_result_from_text(r, text, text, len, origin);
}

/* Refuse the regular file @path before reading it whole when it is larger
 * than PG_RESULT_MAX_BYTES, or when its first byte other than JSON
 * whitespace (within the first 4 KiB) is no '{': a result is a JSON
 * object, and junk (a file of NULs, a binary) is then refused at the byte
 * that makes it so, not after gigabytes were read. 0 when the file may be
 * read (or is no regular file: pg_read_input() judges those). */
static int pg_result_precheck(const char *path)
{
        char head[4096];
        struct stat st;
        ssize_t got;
        size_t line = 1, col = 1;
        int fd;

        if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                return 0;
        if (st.st_size > PG_RESULT_MAX_BYTES)
                return pg_error_set(PG_EINPUT,
                                    "'%s' is %lld MiB, over the %d MiB a result file may hold "
                                    "(docs/limits.md); it is not read",
                                    path, (long long) (st.st_size >> 20),
                                    PG_RESULT_MAX_BYTES >> 20);
        if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
                return 0; /* pg_read_input() says why */
        got = read(fd, head, sizeof(head));
        close(fd);
        for (ssize_t i = 0; i < got; i++) {
                if (head[i] == ' ' || head[i] == '\t' || head[i] == '\r') {
                        col++;
                } else if (head[i] == '\n') {
                        line++;
                        col = 1;
                } else if (head[i] == '{') {
                        return 0;
                } else {
                        return pg_error_set(PG_EINPUT,
                                            "'%s': invalid JSON at line %zu, column %zu (byte "
                                            "%zd): a result file is a JSON object, '{' first",
                                            path, line, col, i);
                }
        }
        return 0;
}

int pg_result_load(struct pg_result *r, const char *path)
{
        struct pg_buf b = PG_BUF_INIT;
        int error;

        if ((error = pg_result_precheck(path)) < 0)
                return error;

        /* a device never ends (/dev/zero grew to gigabytes); a FIFO or a
         * process substitution (<(...)) is read as a pipe is, with a bound */
        if ((error = pg_read_input(path, "result file", &b)) == 0)
                error = pg_result_from_json_buf(r, b.ptr, b.len, path);
        pg_buf_release(&b);
        return error;
}

/* ---- sets ------------------------------------------------------------- */

void pg_result_set_init(struct pg_result_set *s)
{
        s->n = 0;
        s->items = NULL;
}

void pg_result_set_release(struct pg_result_set *s)
{
        for (size_t i = 0; i < s->n; i++)
                pg_result_release(&s->items[i]);
        free(s->items);
        pg_result_set_init(s);
}

int pg_result_set_add(struct pg_result_set *s, struct pg_result *r)
{
        size_t pos = 0;

        while (pos < s->n && strcmp(s->items[pos].name, r->name) < 0)
                pos++;
        if (pos < s->n && strcmp(s->items[pos].name, r->name) == 0)
                return pg_error_set(PG_EINPUT, "two results for benchmark '%s'", r->name);
        s->items = pg_xreallocarray(s->items, s->n + 1, sizeof(*s->items));
        memmove(&s->items[pos + 1], &s->items[pos], (s->n - pos) * sizeof(*s->items));
        s->items[pos] = *r;
        s->n++;
        pg_result_init(r);
        return 0;
}

const struct pg_result *pg_result_set_find(const struct pg_result_set *s, const char *name)
{
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->items[i].name, name) == 0)
                        return &s->items[i];
        return NULL;
}

static int pg_name_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int pg_run_marker_write(const char *dir, const char *const *names, size_t n)
{
        struct pg_buf b = PG_BUF_INIT;
        char *path = pg_path_join(dir, PG_RUN_MARKER);
        int error;

        pg_buf_printf(&b, "perfgate run\npid %ld\nbenchmarks %zu\n", (long) getpid(), n);
        for (size_t i = 0; i < n; i++)
                pg_buf_printf(&b, "%s\n", names[i]);
        error = pg_write_file_own(path, b.ptr, b.len);
        pg_buf_release(&b);
        free(path);
        return error;
}

int pg_run_marker_remove(const char *dir)
{
        char *path = pg_path_join(dir, PG_RUN_MARKER);
        int error = 0;

        if (unlink(path) < 0 && errno != ENOENT)
                error = pg_error_set(PG_EIO, "cannot remove '%s': %s", path, strerror(errno));
        free(path);
        return error;
}

/* The most of a PG_RUN_MARKER read: a line of at most PG_RESULT_NAME_MAX
 * bytes a benchmark; a longer marker is not one perfgate wrote. */
#define PG_RUN_MARKER_MAX_BYTES (4u << 20)

/* Refuse @dir (open as @dirfd, its shared lock held: no run is live) when a
 * run's PG_RUN_MARKER is there: the run did not complete, so the results
 * are a half-done set. The marker's benchmark list counts those that
 * finished (their <name>.json is there: the run moved every old one aside
 * before it started). Returns 0 when there is no marker. */
static int pg_run_marker_check(int dirfd, const char *dir)
{
        struct stat st;
        char *text = NULL, *line, *nl;
        long pid = 0;
        size_t total = 0, done = 0, len = 0;
        bool known = false;
        int fd, error;

        if (fstatat(dirfd, PG_RUN_MARKER, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0
                                       : pg_error_set(PG_EIO, "cannot look at '%s/%s': %s", dir,
                                                      PG_RUN_MARKER, strerror(errno));
        /* the content only words the message: a marker that is no regular
         * file, or is too large to be ours, still refuses the directory */
        fd = openat(dirfd, PG_RUN_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            (uint64_t) st.st_size <= PG_RUN_MARKER_MAX_BYTES) {
                ssize_t got;
                text = pg_xmalloc((size_t) st.st_size + 1);
                while (len < (size_t) st.st_size &&
                       (got = read(fd, text + len, (size_t) st.st_size - len)) > 0)
                        len += (size_t) got;
                text[len] = '\0';
        }
        if (fd >= 0)
                close(fd);
        if (text && sscanf(text, "perfgate run\npid %ld\nbenchmarks %zu\n", &pid, &total) == 2 &&
            (line = strstr(text, "\nbenchmarks ")) && (line = strchr(line + 1, '\n'))) {
                known = true;
                for (line++; *line; line = nl + 1) {
                        if (!(nl = strchr(line, '\n')))
                                break;
                        *nl = '\0';
                        char *leaf = pg_xasprintf("%s.json", line);
                        if (pg_result_name_valid(line) && fstatat(dirfd, leaf, &st, 0) == 0)
                                done++;
                        free(leaf);
                }
        }
        free(text);
        if (known)
                error = pg_error_set(PG_EINPUT,
                                     "the last perfgate run into '%s' (pid %ld) stopped after %zu "
                                     "of %zu benchmarks (interrupted, killed or failed), so its "
                                     "results are a half-done set; run it again (perfgate run "
                                     "--out '%s'), or remove '%s/%s' to use the %zu finished "
                                     "results as they are",
                                     dir, pid, done, total, dir, dir, PG_RUN_MARKER, done);
        else
                error = pg_error_set(PG_EINPUT,
                                     "the last perfgate run into '%s' did not complete ('%s/%s' "
                                     "is there), so its results are a half-done set; run it "
                                     "again (perfgate run --out '%s'), or remove '%s/%s' to use "
                                     "the results as they are",
                                     dir, dir, PG_RUN_MARKER, dir, dir, PG_RUN_MARKER);
        return error;
}

int pg_result_set_load_dir(struct pg_result_set *s, const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char **names = NULL;
        size_t n = 0;
        int error = 0;

        if (!d)
                return pg_error_set(errno == ENOENT ? PG_ENOTFOUND : PG_EIO,
                                    "cannot open results directory '%s': %s", dir, strerror(errno));
        /* a run writing here has renamed the old results of its benchmarks
         * aside and not yet written all the new ones: refuse its half-done
         * set, without waiting, and the one a run left when it was
         * interrupted or killed (its marker); the lock is held until
         * closedir(), after the loads */
        if ((error = pg_dir_lock_shared(dirfd(d), dir)) < 0 ||
            (error = pg_run_marker_check(dirfd(d), dir)) < 0) {
                closedir(d);
                return error;
        }
        while ((de = readdir(d)) != NULL) {
                size_t len = strlen(de->d_name);
                if (len <= 5 || de->d_name[0] == '.' || strcmp(de->d_name + len - 5, ".json") != 0)
                        continue;
                names = pg_xreallocarray(names, n + 1, sizeof(*names));
                names[n++] = pg_xstrdup(de->d_name);
        }
        if (n) /* qsort(NULL, 0, ...) is undefined behaviour */
                qsort(names, n, sizeof(*names), pg_name_cmp);
        for (size_t i = 0; i < n && !error; i++) {
                struct pg_result r;
                char *path = pg_path_join(dir, names[i]);
                struct stat st;
                pg_result_init(&r);
                /* a FIFO found by a scan would block the open for ever; a
                 * result file named on the command line may be one (<(...)) */
                if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
                    !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
                        error = pg_error_set(PG_EINPUT, "'%s' is a %s, not a result file", path,
                                             S_ISFIFO(st.st_mode) ? "FIFO" : "socket");
                else if ((error = pg_result_load(&r, path)) == 0 &&
                         (error = pg_result_set_add(s, &r)) < 0)
                        pg_error_prefix(error, "'%s'", path);
                pg_result_release(&r);
                free(path);
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        closedir(d); /* releases the shared lock */
        return error;
}
