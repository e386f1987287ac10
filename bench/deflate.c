/*
 * deflate.c - benchmark: zlib on real text. Each round compresses the
 * license corpus with deflate at level 1, 6 or 9 (in turn), inflates it
 * back, checks the bytes are identical and folds CRC-32 and Adler-32 of the
 * output into a checksum printed at the end (so the work cannot be optimised
 * away and every run can be checked for the same answer).
 *
 * usage: deflate [-n ROUNDS] [-d CORPUS_DIR]   (default 50 rounds, ~0.4 s)
 * Exit 0 on success, 1 when a round fails, 2 on bad usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "corpus.h"

/* noinline keeps each phase its own frame in profiles. */
static __attribute__((noinline)) size_t compress_corpus(const struct bench_corpus *c, int level,
                                                        unsigned char *out, size_t cap)
{
        z_stream z;
        int rc;

        memset(&z, 0, sizeof(z));
        if (deflateInit(&z, level) != Z_OK)
                bench_die("deflateInit(level %d) failed", level);
        z.next_in = (unsigned char *) c->text;
        z.avail_in = (uInt) c->len;
        z.next_out = out;
        z.avail_out = (uInt) cap;
        rc = deflate(&z, Z_FINISH);
        if (rc != Z_STREAM_END)
                bench_die("deflate(level %d) returned %d", level, rc);
        deflateEnd(&z);
        return z.total_out;
}

static __attribute__((noinline)) size_t inflate_corpus(const unsigned char *in, size_t len,
                                                       unsigned char *out, size_t cap)
{
        z_stream z;
        int rc;

        memset(&z, 0, sizeof(z));
        if (inflateInit(&z) != Z_OK)
                bench_die("inflateInit failed");
        z.next_in = (unsigned char *) in;
        z.avail_in = (uInt) len;
        z.next_out = out;
        z.avail_out = (uInt) cap;
        rc = inflate(&z, Z_FINISH);
        if (rc != Z_STREAM_END)
                bench_die("inflate returned %d", rc);
        inflateEnd(&z);
        return z.total_out;
}

int main(int argc, char **argv)
{
        static const int levels[] = { 1, 6, 9 };
        struct bench_corpus c;
        const char *dir;
        unsigned rounds = 50;
        unsigned char *packed, *unpacked;
        size_t cap, total_packed = 0;
        uint32_t sum = 0;

        bench_parse_args(argc, argv, &rounds, &dir);
        bench_corpus_load(&c, dir);
        cap = compressBound((uLong) c.len);
        packed = malloc(cap);
        unpacked = malloc(c.len + 1);
        if (!packed || !unpacked)
                bench_die("out of memory");
        for (unsigned r = 0; r < rounds; r++) {
                int level = levels[r % 3];
                size_t n = compress_corpus(&c, level, packed, cap);
                size_t m = inflate_corpus(packed, n, unpacked, c.len + 1);

                if (m != c.len || memcmp(unpacked, c.text, c.len) != 0)
                        bench_die("round %u (level %d): inflated text differs", r, level);
                sum = (uint32_t) crc32(sum, packed, (uInt) n);
                sum ^= (uint32_t) adler32(1, unpacked, (uInt) m);
                total_packed += n;
        }
        printf("deflate: %zu files, %zu bytes, %u rounds, %zu bytes compressed, checksum %08x\n",
               c.nfiles, c.len, rounds, total_packed, sum);
        free(packed);
        free(unpacked);
        bench_corpus_free(&c);
        return 0;
}
