/*
 * wordfreq.c - benchmark: word frequencies of real text, reported as JSON
 * with cJSON. Each round splits the license corpus into words
 * (word_split()), counts them case-insensitively in an open-addressing hash
 * table (count_words()), sorts them by frequency with qsort and renders,
 * re-parses and checks a JSON report with cJSON (report_json()). The
 * checksum printed at the end is the same for every run on the same corpus.
 *
 * usage: wordfreq [-n ROUNDS] [-d CORPUS_DIR]   (default 100 rounds, ~0.4 s)
 *        wordfreq --variant   says whether the injected regression is compiled in
 * The separator set comes from $WORDFREQ_SEPARATORS (default below).
 *
 * The injected regression (for perfgate's demo and tests): when
 * PERFGATE_INJECT_REGRESSION is 1 in bench/regression.h, or the CMake option
 * PERFGATE_INJECT_REGRESSION is ON, word_split() stops using the 256-entry
 * separator table built once per run and instead walks the separator string
 * for every byte of text -- the kind of "simplification" that passes review
 * and costs 20-50% of this benchmark's CPU time, all of it inside
 * word_split() itself (self time), which is a direct child of main().
 * Output is identical either way.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "corpus.h"
#include "regression.h"

#ifndef PERFGATE_INJECT_REGRESSION_CMAKE
#define PERFGATE_INJECT_REGRESSION_CMAKE 0
#endif
#ifdef WORDFREQ_VARIANT /* the tests build both variants, whatever the switches say */
#define WORDFREQ_REGRESSED WORDFREQ_VARIANT
#else
#define WORDFREQ_REGRESSED (PERFGATE_INJECT_REGRESSION || PERFGATE_INJECT_REGRESSION_CMAKE)
#endif

/* Rounds between two JSON reports: keeps the time spent in libc (malloc,
 * qsort), whose frames break frame-pointer call chains, a small share. */
#define WORDFREQ_REPORT_EVERY 10

#define WORDFREQ_DEFAULT_SEPARATORS " \t\n.,;:!?\"()/[]"

struct span {
        uint32_t off; /* byte offset of the word in the corpus */
        uint32_t len; /* bytes */
};

struct tokenizer {
        const char *separators; /* the configured separator bytes */
        bool is_sep[256];       /* lookup table built from them once */
};

struct entry {
        uint32_t off, len; /* first occurrence in the corpus */
        uint32_t hash;     /* 0: empty slot */
        uint32_t count;
};

struct wordtab {
        struct entry *slots;
        size_t cap; /* power of two */
        size_t n;
};

static unsigned char fold[256]; /* ASCII lower-casing table */

static void tokenizer_init(struct tokenizer *t, const char *separators)
{
        memset(t, 0, sizeof(*t));
        t->separators = separators;
        for (const unsigned char *p = (const unsigned char *) separators; *p; p++)
                t->is_sep[*p] = true;
        t->is_sep[0] = true;
}

/* A macro rather than an inline function, so that no DWARF inlined frame
 * takes the cost: the injected regression is self time of word_split(). */
#if WORDFREQ_REGRESSED
/* walks the separator string for every byte of text */
#define TOKENIZER_IS_SEP(t, c) wordfreq_scan_seps((t)->separators, (c))
#define wordfreq_scan_seps(seps, c)                                                                \
        __extension__({                                                                            \
                unsigned char c_ = (c);                                                            \
                bool hit_ = c_ == 0;                                                               \
                for (const char *p_ = (seps); !hit_ && *p_; p_++)                                  \
                        hit_ = (unsigned char) *p_ == c_;                                          \
                hit_;                                                                              \
        })
#else
#define TOKENIZER_IS_SEP(t, c) ((t)->is_sep[(c)])
#endif

struct spans {
        struct span *v;
        size_t n, cap;
};

/* Double the room in @s (amortised O(1) appends). */
static __attribute__((noinline)) void spans_grow(struct spans *s)
{
        size_t cap = s->cap ? s->cap * 2 : 4096;
        struct span *v = realloc(s->v, cap * sizeof(*v));

        if (!v)
                bench_die("out of memory");
        s->v = v;
        s->cap = cap;
}

/*
 * Split @text into maximal runs of non-separator bytes and store their spans
 * in @out (emptied first, grown as needed; its memory is reused across
 * rounds). noinline: the demo looks for this frame by name, and calling
 * spans_grow() keeps it a non-leaf function, so GCC gives it a frame pointer
 * and frame-pointer call chains through it are complete.
 */
static __attribute__((noinline)) size_t word_split(const struct tokenizer *t, const char *text,
                                                   size_t len, struct spans *out)
{
        size_t i = 0;

        out->n = 0;
        while (i < len) {
                size_t start;

                while (i < len && TOKENIZER_IS_SEP(t, (unsigned char) text[i]))
                        i++;
                start = i;
                while (i < len && !TOKENIZER_IS_SEP(t, (unsigned char) text[i]))
                        i++;
                if (i > start) {
                        if (out->n == out->cap)
                                spans_grow(out);
                        out->v[out->n].off = (uint32_t) start;
                        out->v[out->n].len = (uint32_t) (i - start);
                        out->n++;
                }
        }
        return out->n;
}

/* FNV-1a over the lower-cased bytes; never 0 (0 marks an empty slot). */
static uint32_t word_hash(const char *s, uint32_t len)
{
        uint32_t h = 2166136261u;

        for (uint32_t i = 0; i < len; i++) {
                h ^= fold[(unsigned char) s[i]];
                h *= 16777619u;
        }
        return h ? h : 1;
}

static bool word_equal(const char *a, const char *b, uint32_t len)
{
        for (uint32_t i = 0; i < len; i++)
                if (fold[(unsigned char) a[i]] != fold[(unsigned char) b[i]])
                        return false;
        return true;
}

static void wordtab_grow(struct wordtab *w, const char *text)
{
        size_t cap = w->cap ? w->cap * 2 : 1024;
        struct entry *slots = calloc(cap, sizeof(*slots));

        (void) text;
        if (!slots)
                bench_die("out of memory");
        for (size_t i = 0; i < w->cap; i++) {
                const struct entry *e = &w->slots[i];
                size_t j;
                if (!e->hash)
                        continue;
                for (j = e->hash & (cap - 1); slots[j].hash; j = (j + 1) & (cap - 1))
                        ;
                slots[j] = *e;
        }
        free(w->slots);
        w->slots = slots;
        w->cap = cap;
}

/* Count each word of @spans in @w (keys point into @text). */
static __attribute__((noinline)) void count_words(struct wordtab *w, const char *text,
                                                  const struct span *spans, size_t n)
{
        for (size_t k = 0; k < n; k++) {
                const char *s = text + spans[k].off;
                uint32_t len = spans[k].len, h = word_hash(s, len);
                size_t j;

                if ((w->n + 1) * 4 > w->cap * 3)
                        wordtab_grow(w, text);
                for (j = h & (w->cap - 1); w->slots[j].hash; j = (j + 1) & (w->cap - 1)) {
                        struct entry *e = &w->slots[j];
                        if (e->hash == h && e->len == len && word_equal(text + e->off, s, len))
                                break;
                }
                if (!w->slots[j].hash) {
                        w->slots[j] = (struct entry){ spans[k].off, len, h, 0 };
                        w->n++;
                }
                w->slots[j].count++;
        }
}

/*
 * Count each pair of consecutive words of @spans ("general public") in @w,
 * keyed by the text from the first word's start to the second word's end,
 * which for the same separators between them is the same bigram.
 */
static __attribute__((noinline)) void count_pairs(struct wordtab *w, const char *text,
                                                  const struct span *spans, size_t n)
{
        for (size_t k = 1; k < n; k++) {
                struct span pair = { spans[k - 1].off,
                                     spans[k].off + spans[k].len - spans[k - 1].off };
                count_words(w, text, &pair, 1);
        }
}

static const char *sort_text; /* qsort has no context argument in C11 */

static int entry_cmp(const void *a, const void *b)
{
        const struct entry *x = a, *y = b;
        uint32_t n = x->len < y->len ? x->len : y->len;

        if (x->count != y->count)
                return x->count > y->count ? -1 : 1;
        for (uint32_t i = 0; i < n; i++) {
                unsigned char cx = fold[(unsigned char) sort_text[x->off + i]];
                unsigned char cy = fold[(unsigned char) sort_text[y->off + i]];
                if (cx != cy)
                        return cx < cy ? -1 : 1;
        }
        return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * Sort @w's words by frequency and render them as a JSON report with cJSON,
 * parse it back and check it. Returns a checksum of the rendered text.
 */
static __attribute__((noinline)) uint32_t report_json(const struct wordtab *w, const char *text,
                                                      size_t nfiles, size_t nwords)
{
        struct entry *v = malloc((w->n ? w->n : 1) * sizeof(*v));
        cJSON *root = cJSON_CreateObject(), *arr, *back;
        char *json, word[256];
        size_t k = 0;
        uint32_t sum = 0;
        double total = 0;

        if (!v || !root)
                bench_die("out of memory");
        for (size_t i = 0; i < w->cap; i++)
                if (w->slots[i].hash)
                        v[k++] = w->slots[i];
        sort_text = text;
        qsort(v, k, sizeof(*v), entry_cmp);
        cJSON_AddNumberToObject(root, "files", (double) nfiles);
        cJSON_AddNumberToObject(root, "words", (double) nwords);
        cJSON_AddNumberToObject(root, "distinct", (double) k);
        arr = cJSON_AddArrayToObject(root, "frequencies");
        for (size_t i = 0; i < k; i++) {
                cJSON *o = cJSON_CreateObject();
                uint32_t len = v[i].len < sizeof(word) - 1 ? v[i].len : sizeof(word) - 1;
                for (uint32_t j = 0; j < len; j++)
                        word[j] = (char) fold[(unsigned char) text[v[i].off + j]];
                word[len] = '\0';
                cJSON_AddStringToObject(o, "word", word);
                cJSON_AddNumberToObject(o, "count", v[i].count);
                cJSON_AddItemToArray(arr, o);
        }
        json = cJSON_PrintUnformatted(root);
        back = json ? cJSON_Parse(json) : NULL;
        if (!back)
                bench_die("cJSON could not render or re-read the report");
        arr = cJSON_GetObjectItemCaseSensitive(back, "frequencies");
        for (cJSON *o = arr ? arr->child : NULL; o; o = o->next)
                total += cJSON_GetObjectItemCaseSensitive(o, "count")->valuedouble;
        if (total != (double) nwords)
                bench_die("report counts %.0f words, expected %zu", total, nwords);
        for (const char *p = json; *p; p++)
                sum = sum * 31u + (unsigned char) *p;
        cJSON_free(json);
        cJSON_Delete(back);
        cJSON_Delete(root);
        free(v);
        return sum;
}

int main(int argc, char **argv)
{
        struct bench_corpus c;
        struct tokenizer t;
        const char *dir, *seps = getenv("WORDFREQ_SEPARATORS");
        unsigned rounds = 100;
        struct spans spans = { NULL, 0, 0 };
        size_t nwords = 0, distinct = 0, distinct_pairs = 0;
        uint32_t sum = 0;

        if (argc == 2 && strcmp(argv[1], "--variant") == 0) {
                /* which word_split() this binary has: for the tests and the demo */
                puts(WORDFREQ_REGRESSED ? "word_split: separator scan per byte (injected "
                                          "regression)"
                                        : "word_split: separator table");
                return 0;
        }
        bench_parse_args(argc, argv, &rounds, &dir);
        bench_corpus_load(&c, dir);
        for (int i = 0; i < 256; i++)
                fold[i] = (unsigned char) (i >= 'A' && i <= 'Z' ? i - 'A' + 'a' : i);
        tokenizer_init(&t, seps && *seps ? seps : WORDFREQ_DEFAULT_SEPARATORS);
        for (unsigned r = 0; r < rounds; r++) {
                struct wordtab w = { NULL, 0, 0 }, pairs = { NULL, 0, 0 };

                wordtab_grow(&w, c.text);
                wordtab_grow(&pairs, c.text);
                nwords = word_split(&t, c.text, c.len, &spans);
                count_words(&w, c.text, spans.v, nwords);
                count_pairs(&pairs, c.text, spans.v, nwords);
                if (r % WORDFREQ_REPORT_EVERY == 0 || r + 1 == rounds) {
                        sum = sum * 33u ^ report_json(&w, c.text, c.nfiles, nwords);
                        sum = sum * 33u ^
                              report_json(&pairs, c.text, c.nfiles, nwords ? nwords - 1 : 0);
                }
                distinct = w.n;
                distinct_pairs = pairs.n;
                free(w.slots);
                free(pairs.slots);
        }
        printf("wordfreq: %zu files, %zu bytes, %u rounds, %zu words, %zu distinct, %zu pairs, "
               "checksum %08x\n",
               c.nfiles, c.len, rounds, nwords, distinct, distinct_pairs, sum);
        free(spans.v);
        bench_corpus_free(&c);
        return 0;
}
