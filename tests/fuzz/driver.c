/*
 * driver.c - replays fuzz corpora without libFuzzer: calls the target's
 * LLVMFuzzerTestOneInput() on every file named on the command line (or found
 * directly in a directory named there), and on --mutations=N (default 40)
 * deterministic mutations of each (xorshift64 from a fixed seed, so a failure
 * reproduces). Used under CTest in the normal and sanitizer builds so every
 * corpus input, crash reproducers included, stays a test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fsutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t pg_rng(uint64_t *s)
{
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

/* Run one input from an exact-size heap copy, so sanitizers catch reads past it. */
static void pg_run_one(const char *data, size_t len)
{
        uint8_t *copy = pg_xmalloc(len ? len : 1);
        memcpy(copy, data, len);
        LLVMFuzzerTestOneInput(copy, len);
        free(copy);
}

static int pg_replay_file(const char *path, unsigned mutations, size_t *count)
{
        static const char *const inserts[] = { "\n",   " ",       "\t",  "(",         ")",
                                               ";",    ":",       "->",  "[unknown]", "+0x1f",
                                               "0 ",   "1.5: ",   "{",   "}",         "\"",
                                               ",",    "[",       "]",   "-1",        "1e999",
                                               "\xff", "\\u0000", "\r\n" };
        struct pg_buf in = PG_BUF_INIT, m = PG_BUF_INIT;
        uint64_t seed = 0x9e3779b97f4a7c15ull;

        if (pg_read_file(path, &in) < 0) {
                fprintf(stderr, "replay: cannot read %s\n", path);
                return 1;
        }
        pg_run_one(in.ptr, in.len);
        (*count)++;
        if (in.len > (64u << 10) && mutations > 4)
                mutations = 4; /* keep the replay of large inputs fast */
        for (unsigned k = 0; k < mutations && in.len > 0; k++) {
                size_t at = pg_rng(&seed) % in.len, cut = pg_rng(&seed) % 64;
                const char *ins = inserts[pg_rng(&seed) % (sizeof(inserts) / sizeof(inserts[0]))];
                pg_buf_reset(&m);
                pg_buf_add(&m, in.ptr, at);
                pg_buf_puts(&m, ins);
                if (at + cut < in.len)
                        pg_buf_add(&m, in.ptr + at + cut, in.len - at - cut);
                pg_run_one(m.ptr, m.len);
                (*count)++;
        }
        pg_buf_release(&in);
        pg_buf_release(&m);
        return 0;
}

int main(int argc, char **argv)
{
        size_t count = 0;
        unsigned mutations = 40;
        int failures = 0;

        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (strncmp(argv[i], "--mutations=", 12) == 0) {
                        mutations = (unsigned) strtoul(argv[i] + 12, NULL, 10);
                        continue;
                }
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "replay: no such corpus %s\n", argv[i]);
                        return 1;
                }
                if (S_ISDIR(st.st_mode)) {
                        DIR *d = opendir(argv[i]);
                        struct dirent *de;
                        while (d && (de = readdir(d)) != NULL) {
                                char *p;
                                if (de->d_name[0] == '.')
                                        continue;
                                p = pg_path_join(argv[i], de->d_name);
                                if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
                                        failures += pg_replay_file(p, mutations, &count);
                                free(p);
                        }
                        if (d)
                                closedir(d);
                } else {
                        failures += pg_replay_file(argv[i], mutations, &count);
                }
        }
        printf("replayed %zu inputs\n", count);
        if (!count) {
                fprintf(stderr, "replay: no inputs found\n");
                return 1;
        }
        return failures ? 1 : 0;
}
