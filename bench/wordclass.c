/*
 * wordclass.c - benchmark: branch prediction on real text. Each round splits
 * the license corpus into words, groups them by length class with a
 * counting sort (table-driven, no data-dependent branches) and then
 * classifies every word (classify_words() calling classify_word()), whose
 * four paths are chosen by the word's length. Walking the words grouped by
 * class makes that choice predictable; the checksum printed at the end is
 * the same for every run on the same corpus.
 *
 * usage: wordclass [-n ROUNDS] [-d CORPUS_DIR]   (default 60 rounds, ~0.05 s)
 *        wordclass --variant   says whether the injected regression is compiled in
 *
 * The injected regression (bench/regression.h, PERFGATE_INJECT_BRANCH_REGRESSION,
 * or -DWORDCLASS_VARIANT=1): classify_words() walks the words in text order
 * instead of the grouped copy -- the kind of refactoring slip that passes
 * review. Every instruction stays the same (the grouping is still done), but
 * the length of English words is unpredictable, so the branch predictor
 * misses: branch-miss-rate goes up, instructions do not, and the misses are
 * in classify_word().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "regression.h"

#ifdef WORDCLASS_VARIANT
#define WORDCLASS_REGRESSED WORDCLASS_VARIANT
#else
#define WORDCLASS_REGRESSED PERFGATE_INJECT_BRANCH_REGRESSION
#endif

#define WORDCLASS_NCLASSES 4

struct word {
        const unsigned char *s;
        uint32_t len;
};

/* Length -> class: 1-2, 3-4, 5-7, 8+. A table, so grouping has no branches. */
static const uint8_t class_of_len[16] = { 0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3 };

static uint8_t word_class(uint32_t len)
{
        return class_of_len[len < 16 ? len : 15];
}

/* Split @text at bytes that are not letters; @out has room for len/2+1 words. */
static size_t split_words(const unsigned char *text, size_t len, struct word *out)
{
        static uint8_t is_letter[256];
        size_t n = 0, i = 0;

        for (int c = 'a'; c <= 'z'; c++)
                is_letter[c] = is_letter[c - 'a' + 'A'] = 1;
        while (i < len) {
                size_t start;
                while (i < len && !is_letter[text[i]])
                        i++;
                start = i;
                while (i < len && is_letter[text[i]])
                        i++;
                if (i > start) {
                        out[n].s = text + start;
                        out[n].len = (uint32_t) (i - start);
                        n++;
                }
        }
        return n;
}

/*
 * One word's score; which path runs depends on the word's length class.
 * noinline: the branch misses are attributed to this function by name.
 */
static __attribute__((noinline)) uint64_t classify_word(const struct word *w)
{
        const unsigned char *s = w->s;
        uint32_t n = w->len;

        if (n <= 2)
                return (uint64_t) s[0] * 3u + n;
        if (n <= 4)
                return ((uint64_t) s[0] << 8 ^ s[n - 1]) * 5u;
        if (n <= 7)
                return ((uint64_t) s[1] + s[n / 2]) * 7u + s[n - 2];
        return (uint64_t) s[n - 1] * 11u + s[2] * 13u + n;
}

static __attribute__((noinline)) uint64_t classify_words(const struct word *words, size_t n)
{
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++)
                sum += classify_word(&words[i]);
        return sum;
}

/* Counting sort of @in by length class into @out (stable). */
static void group_by_class(const struct word *in, size_t n, struct word *out)
{
        size_t count[WORDCLASS_NCLASSES] = { 0 }, pos[WORDCLASS_NCLASSES];

        for (size_t i = 0; i < n; i++)
                count[word_class(in[i].len)]++;
        pos[0] = 0;
        for (size_t c = 1; c < WORDCLASS_NCLASSES; c++)
                pos[c] = pos[c - 1] + count[c - 1];
        for (size_t i = 0; i < n; i++)
                out[pos[word_class(in[i].len)]++] = in[i];
}

int main(int argc, char **argv)
{
        struct bench_corpus corpus;
        unsigned rounds = 60;
        const char *dir = NULL;
        struct word *words, *grouped;
        uint64_t check = 0;
        size_t n = 0;

        if (argc == 2 && strcmp(argv[1], "--variant") == 0) {
                printf("wordclass: injected regression %s\n", WORDCLASS_REGRESSED ? "on" : "off");
                return 0;
        }
        bench_parse_args(argc, argv, &rounds, &dir);
        bench_corpus_load(&corpus, dir);
        words = malloc((corpus.len / 2 + 1) * sizeof(*words));
        grouped = malloc((corpus.len / 2 + 1) * sizeof(*grouped));
        if (!words || !grouped)
                bench_die("out of memory");
        for (unsigned r = 0; r < rounds; r++) {
                n = split_words((const unsigned char *) corpus.text, corpus.len, words);
                group_by_class(words, n, grouped);
#if WORDCLASS_REGRESSED
                check += classify_words(words, n);
#else
                check += classify_words(grouped, n);
#endif
        }
        /* a sum: the same whatever order the words are classified in */
        printf("wordclass: %zu files, %zu bytes, %u rounds, %zu words, checksum %016llx\n",
               corpus.nfiles, corpus.len, rounds, n, (unsigned long long) check);
        free(words);
        free(grouped);
        bench_corpus_free(&corpus);
        return 0;
}
