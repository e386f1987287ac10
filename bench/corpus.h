/*
 * corpus.h - the text the bundled benchmarks work on: every regular file of
 * a directory (default /usr/share/common-licenses, present on every Debian
 * system through base-files), read in bytewise name order and concatenated,
 * so every run of a benchmark sees exactly the same bytes. Symbolic links
 * are skipped (GPL -> GPL-3 would count a text twice).
 *
 * Benchmarks are programs, not library code: on failure these helpers print
 * "<prog>: error: ..." to stderr and exit 1, which perfgate reports as a
 * failed benchmark (exit 3).
 */
#ifndef PG_BENCH_CORPUS_H
#define PG_BENCH_CORPUS_H

#include <stddef.h>

#define BENCH_CORPUS_DIR "/usr/share/common-licenses"

struct bench_corpus {
        char *text;    /* all files concatenated, NUL-terminated; owned */
        size_t len;    /* bytes in text, excluding the NUL */
        size_t nfiles; /* files read */
};

/**
 * Read every regular file directly in @dir (NULL: $PERFGATE_BENCH_DATA, else
 * BENCH_CORPUS_DIR) into @c. Exits with a message naming the directory when
 * it cannot be read or holds fewer than 3 files or 64 KiB of text.
 * Release with bench_corpus_free().
 */
void bench_corpus_load(struct bench_corpus *c, const char *dir);

/** Free what bench_corpus_load() allocated. */
void bench_corpus_free(struct bench_corpus *c);

/**
 * Parse the common command line "[-n ROUNDS] [-d DIR]" into @rounds (left
 * unchanged when absent) and @dir (NULL when absent). Exits 2 with a usage
 * message on anything else.
 */
void bench_parse_args(int argc, char **argv, unsigned *rounds, const char **dir);

/** Print "<prog>: error: <msg>" to stderr and exit 1. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
