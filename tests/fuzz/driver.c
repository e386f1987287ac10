/*
 * driver.c - replays fuzz corpora without libFuzzer: calls the target's
 * LLVMFuzzerTestOneInput() on every file named on the command line (or found
 * directly in a directory named there). Used under CTest in the normal gcc
 * build so every corpus input, crash reproducers included, stays a test.
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

static int pg_replay_file(const char *path, size_t *count)
{
        struct pg_buf b = PG_BUF_INIT;
        uint8_t *copy;

        if (pg_read_file(path, &b) < 0) {
                fprintf(stderr, "replay: cannot read %s\n", path);
                return 1;
        }
        /* an exact-size heap copy, so sanitizers catch reads past the input */
        copy = pg_xmalloc(b.len ? b.len : 1);
        memcpy(copy, b.ptr, b.len);
        LLVMFuzzerTestOneInput(copy, b.len);
        free(copy);
        pg_buf_release(&b);
        (*count)++;
        return 0;
}

int main(int argc, char **argv)
{
        size_t count = 0;
        int failures = 0;

        for (int i = 1; i < argc; i++) {
                struct stat st;
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
                                failures += pg_replay_file(p, &count);
                                free(p);
                        }
                        if (d)
                                closedir(d);
                } else {
                        failures += pg_replay_file(argv[i], &count);
                }
        }
        printf("replayed %zu inputs\n", count);
        if (!count) {
                fprintf(stderr, "replay: no inputs found\n");
                return 1;
        }
        return failures ? 1 : 0;
}
