/*
 * corpus.c - loading the benchmarks' text corpus (corpus.h). Deterministic:
 * files are read in bytewise name order; nothing depends on the clock or on
 * the environment except the directory chosen.
 */
#include "corpus.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *bench_prog = "bench";

void bench_die(const char *fmt, ...)
{
        va_list ap;

        fprintf(stderr, "%s: error: ", bench_prog);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        exit(1);
}

static int bench_name_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void bench_read_into(struct bench_corpus *c, const char *path, size_t size)
{
        FILE *f = fopen(path, "rb");
        size_t got;

        if (!f)
                bench_die("cannot open '%s': %s", path, strerror(errno));
        c->text = realloc(c->text, c->len + size + 1);
        if (!c->text)
                bench_die("out of memory reading '%s'", path);
        got = fread(c->text + c->len, 1, size, f);
        if (got != size || ferror(f))
                bench_die("short read on '%s'", path);
        fclose(f);
        c->len += got;
        c->text[c->len] = '\0';
        c->nfiles++;
}

void bench_corpus_load(struct bench_corpus *c, const char *dir)
{
        DIR *d;
        struct dirent *de;
        char **names = NULL;
        size_t n = 0;

        if (!dir)
                dir = getenv("PERFGATE_BENCH_DATA");
        if (!dir || !*dir)
                dir = BENCH_CORPUS_DIR;
        memset(c, 0, sizeof(*c));
        d = opendir(dir);
        if (!d)
                bench_die("cannot open corpus directory '%s': %s", dir, strerror(errno));
        while ((de = readdir(d)) != NULL) {
                if (de->d_name[0] == '.')
                        continue;
                names = realloc(names, (n + 1) * sizeof(*names));
                if (!names || !(names[n] = strdup(de->d_name)))
                        bench_die("out of memory listing '%s'", dir);
                n++;
        }
        closedir(d);
        qsort(names, n, sizeof(*names), bench_name_cmp);
        for (size_t i = 0; i < n; i++) {
                char path[4096];
                struct stat st;

                snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
                if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
                        bench_read_into(c, path, (size_t) st.st_size);
                free(names[i]);
        }
        free(names);
        if (c->nfiles < 3 || c->len < 64 * 1024)
                bench_die("corpus directory '%s' holds too little text (%zu files, %zu bytes); "
                          "point PERFGATE_BENCH_DATA or -d at a directory of text files",
                          dir, c->nfiles, c->len);
}

void bench_corpus_free(struct bench_corpus *c)
{
        free(c->text);
        memset(c, 0, sizeof(*c));
}

void bench_parse_args(int argc, char **argv, unsigned *rounds, const char **dir)
{
        int opt;

        bench_prog = argv[0] && strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        *dir = NULL;
        while ((opt = getopt(argc, argv, "n:d:")) != -1) {
                char *end;
                unsigned long v;

                switch (opt) {
                case 'n':
                        errno = 0;
                        v = strtoul(optarg, &end, 10);
                        if (errno || *end || end == optarg || v == 0 || v > 1000000) {
                                fprintf(stderr, "%s: error: -n wants a count in 1..1000000\n",
                                        bench_prog);
                                exit(2);
                        }
                        *rounds = (unsigned) v;
                        break;
                case 'd':
                        *dir = optarg;
                        break;
                default:
                        fprintf(stderr, "usage: %s [-n ROUNDS] [-d CORPUS_DIR]\n", bench_prog);
                        exit(2);
                }
        }
        if (optind != argc) {
                fprintf(stderr, "usage: %s [-n ROUNDS] [-d CORPUS_DIR]\n", bench_prog);
                exit(2);
        }
}
