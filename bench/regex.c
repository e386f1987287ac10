/*
 * regex.c - benchmark: glibc's POSIX regular expressions (regcomp/regexec)
 * on real text. Each round scans every line of the license corpus with a
 * handful of extended regular expressions of the kinds log and licence
 * scanners use (copyright lines, URLs, quoted terms, warranty wording,
 * numbered sections, case-insensitive verbs), counting every match on every
 * line, and prints the counts at the end.
 *
 * usage: regex [-n ROUNDS] [-d CORPUS_DIR]   (default 60 rounds, ~0.4 s)
 * Exit 0 on success, 1 on failure, 2 on bad usage.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

struct pattern {
        const char *name;
        const char *re;
        int flags;
        regex_t compiled;
        uint64_t matches;
};

static struct pattern patterns[] = {
        { "copyright",
          "copyright[[:space:]]*(\\(c\\)|©)?[[:space:]]*[0-9]{4}",
          REG_ICASE,
          { 0 },
          0 },
        { "url", "(https?|ftp)://[^[:space:]<>\")]+", 0, { 0 }, 0 },
        { "quoted", "\"[^\"]{2,60}\"", 0, { 0 }, 0 },
        { "warranty",
          "(warrant(y|ies)|merchantab(le|ility)|fitness for a particular)",
          REG_ICASE,
          { 0 },
          0 },
        { "section", "^[[:space:]]*([0-9]+|[a-z])[.)][[:space:]]", 0, { 0 }, 0 },
        { "verbs", "\\b(distribut|modif|convey|sublicens)[[:alpha:]]*", REG_ICASE, { 0 }, 0 },
};

#define NPATTERNS (sizeof(patterns) / sizeof(patterns[0]))

/* Count every non-overlapping match of @p in the NUL-terminated @line. */
static __attribute__((noinline)) uint64_t count_matches(const regex_t *p, const char *line)
{
        regmatch_t m;
        uint64_t n = 0;
        int eflags = 0;

        while (*line && regexec(p, line, 1, &m, eflags) == 0) {
                n++;
                line += m.rm_eo > m.rm_so ? m.rm_eo : m.rm_so + 1;
                eflags = REG_NOTBOL;
        }
        return n;
}

static __attribute__((noinline)) void scan_corpus(char *text, size_t len)
{
        char *line = text, *end = text + len;

        while (line < end) {
                char *nl = memchr(line, '\n', (size_t) (end - line));
                char saved = 0;

                if (nl) {
                        saved = *nl;
                        *nl = '\0';
                }
                for (size_t i = 0; i < NPATTERNS; i++)
                        patterns[i].matches += count_matches(&patterns[i].compiled, line);
                if (!nl)
                        break;
                *nl = saved;
                line = nl + 1;
        }
}

int main(int argc, char **argv)
{
        struct bench_corpus c;
        const char *dir;
        unsigned rounds = 60;

        bench_parse_args(argc, argv, &rounds, &dir);
        bench_corpus_load(&c, dir);
        for (size_t i = 0; i < NPATTERNS; i++) {
                int rc = regcomp(&patterns[i].compiled, patterns[i].re,
                                 REG_EXTENDED | patterns[i].flags);
                if (rc != 0) {
                        char msg[256];
                        regerror(rc, &patterns[i].compiled, msg, sizeof(msg));
                        bench_die("cannot compile pattern '%s': %s", patterns[i].name, msg);
                }
        }
        for (unsigned r = 0; r < rounds; r++)
                scan_corpus(c.text, c.len);
        printf("regex: %zu files, %zu bytes, %u rounds:", c.nfiles, c.len, rounds);
        for (size_t i = 0; i < NPATTERNS; i++) {
                printf(" %s=%llu", patterns[i].name,
                       (unsigned long long) (patterns[i].matches / rounds));
                regfree(&patterns[i].compiled);
        }
        printf("\n");
        bench_corpus_free(&c);
        return 0;
}
