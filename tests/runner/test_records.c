/*
 * test_records.c - the perf record decoder on hand-built buffers: every
 * record kind perfgate uses, the sample_id trailer, REGS_USER/STACK_USER
 * layout, wrapped sizes, and malformed input (truncated, lying sizes,
 * garbage) that must give an error without reading out of bounds (run it
 * under ASan), plus the record log's time ordering.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "runner/records.h"
#include "tests/util/perfrec.h"

static const struct pg_perf_format fp_fmt = { PG_REC_FP_TYPE, 0, true };

/* trailer for PG_REC_FP_TYPE: TID, TIME, CPU, IDENTIFIER */
static void trailer(struct pg_rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
        pg_rec_put32x2(r, pid, tid);
        pg_rec_put64(r, time);
        pg_rec_put32x2(r, 1, 0);
        pg_rec_put64(r, 77);
}

static void build_sample(struct pg_rec *r, uint64_t nr)
{
        pg_rec_begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
        pg_rec_put64(r, 77);         /* identifier */
        pg_rec_put64(r, 0x401000);   /* ip */
        pg_rec_put32x2(r, 100, 101); /* pid tid */
        pg_rec_put64(r, 5000);       /* time */
        pg_rec_put32x2(r, 1, 0);     /* cpu */
        pg_rec_put64(r, 1001001);    /* period */
        pg_rec_put64(r, nr);         /* callchain */
        pg_rec_put64(r, PERF_CONTEXT_USER);
        for (uint64_t i = 1; i < nr; i++)
                pg_rec_put64(r, 0x401000 + i * 16);
        pg_rec_finish(r);
}

static void test_sample_fp(void **state)
{
        struct pg_rec r;
        struct pg_perf_record rec;

        (void) state;
        build_sample(&r, 4);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), 0);
        assert_int_equal(rec.type, PERF_RECORD_SAMPLE);
        assert_int_equal(rec.sid.id, 77);
        assert_int_equal(rec.u.sample.ip, 0x401000);
        assert_int_equal(rec.sid.pid, 100);
        assert_int_equal(rec.sid.tid, 101);
        assert_int_equal(rec.sid.time, 5000);
        assert_int_equal(rec.sid.cpu, 1);
        assert_int_equal(rec.u.sample.period, 1001001);
        assert_int_equal(rec.u.sample.nr, 4);
        assert_true(pg_perf_chain_ip(&rec.u.sample, 0) == (uint64_t) PERF_CONTEXT_USER);
        assert_int_equal(pg_perf_chain_ip(&rec.u.sample, 3), 0x401030);
        assert_int_equal(pg_perf_record_time(r.b, r.n, &fp_fmt), 5000);
        /* unaligned input decodes the same */
        {
                unsigned char *u = malloc(r.n + 1);

                memcpy(u + 1, r.b, r.n);
                assert_int_equal(pg_perf_record_decode(u + 1, r.n, &fp_fmt, &rec), 0);
                assert_int_equal(pg_perf_chain_ip(&rec.u.sample, 2), 0x401020);
                free(u);
        }
}

static void test_sample_dwarf(void **state)
{
        struct pg_perf_format f = { PG_REC_FP_TYPE | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
                                    0x1c0, true };
        struct pg_rec r;
        struct pg_perf_record rec;

        (void) state;
        pg_rec_begin(&r, PERF_RECORD_SAMPLE, 0);
        pg_rec_put64(&r, 1);
        pg_rec_put64(&r, 0x1234);
        pg_rec_put32x2(&r, 5, 6);
        pg_rec_put64(&r, 99);
        pg_rec_put32x2(&r, 0, 0);
        pg_rec_put64(&r, 10);
        pg_rec_put64(&r, 0);      /* empty callchain */
        pg_rec_put64(&r, 2);      /* abi 64 */
        pg_rec_put64(&r, 0xb0);   /* BP */
        pg_rec_put64(&r, 0x5000); /* SP */
        pg_rec_put64(&r, 0x1234); /* IP */
        pg_rec_put64(&r, 16);     /* stack size */
        pg_rec_put64(&r, 0xaaaa);
        pg_rec_put64(&r, 0xbbbb);
        pg_rec_put64(&r, 8); /* dyn size */
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &f, &rec), 0);
        assert_int_equal(rec.u.sample.nregs, 3);
        assert_int_equal(pg_perf_reg(&rec.u.sample, 1), 0x5000);
        assert_int_equal(rec.u.sample.stack_size, 16);
        assert_int_equal(rec.u.sample.stack_dyn_size, 8);
        /* dyn_size larger than the copy: malformed */
        memcpy(r.b + r.n - 8, &(uint64_t){ 17 }, 8);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &f, &rec), -1);
        /* registers with an empty mask cannot be sized */
        f.regs_user_mask = 0;
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &f, &rec), -1);
}

static void test_mmap2_comm_fork_lost(void **state)
{
        struct pg_rec r;
        struct pg_perf_record rec;
        static const char name[] = "/usr/lib/x86_64-linux-gnu/libc.so.6\0\0\0\0\0";

        (void) state;
        pg_rec_begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
        pg_rec_put32x2(&r, 100, 100);
        pg_rec_put64(&r, 0x7f0000001000);
        pg_rec_put64(&r, 0x2000);
        pg_rec_put64(&r, 0x1000);
        r.b[r.n] = 20; /* build_id_size */
        memset(r.b + r.n + 1, 0, 3);
        for (int i = 0; i < 20; i++)
                r.b[r.n + 4 + i] = (unsigned char) i;
        r.n += 24;
        pg_rec_put32x2(&r, 5, 2); /* prot r-x, flags */
        memcpy(r.b + r.n, name, 40);
        r.n += 40;
        trailer(&r, 100, 100, 42);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), 0);
        assert_int_equal(rec.u.mmap.addr, 0x7f0000001000);
        assert_int_equal(rec.u.mmap.pgoff, 0x1000);
        assert_true(rec.u.mmap.has_build_id);
        assert_int_equal(rec.u.mmap.build_id[19], 19);
        assert_int_equal(rec.u.mmap.prot, 5);
        assert_int_equal(rec.u.mmap.filename_len, strlen(name));
        assert_memory_equal(rec.u.mmap.filename, name, strlen(name));
        assert_int_equal(rec.sid.time, 42);
        assert_int_equal(pg_perf_record_time(r.b, r.n, &fp_fmt), 42);

        pg_rec_begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
        pg_rec_put32x2(&r, 7, 7);
        memcpy(r.b + r.n, "bench\0\0\0", 8);
        r.n += 8;
        trailer(&r, 7, 7, 43);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), 0);
        assert_true(rec.u.comm.exec);
        assert_int_equal(rec.u.comm.comm_len, 5);
        assert_memory_equal(rec.u.comm.comm, "bench", 5);

        pg_rec_begin(&r, PERF_RECORD_FORK, 0);
        pg_rec_put32x2(&r, 8, 7);
        pg_rec_put32x2(&r, 8, 7);
        pg_rec_put64(&r, 44);
        trailer(&r, 8, 8, 44);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), 0);
        assert_int_equal(rec.u.task.pid, 8);
        assert_int_equal(rec.u.task.ppid, 7);

        pg_rec_begin(&r, PERF_RECORD_LOST, 0);
        pg_rec_put64(&r, 77);
        pg_rec_put64(&r, 12);
        trailer(&r, 0, 0, 45);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), 0);
        assert_int_equal(rec.u.lost, 12);

        pg_rec_begin(&r, PERF_RECORD_THROTTLE, 0);
        pg_rec_put64(&r, 46);
        pg_rec_put64(&r, 77);
        pg_rec_put64(&r, 0);
        trailer(&r, 0, 0, 46);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), 0);
        assert_int_equal(rec.type, PERF_RECORD_THROTTLE);
        assert_int_equal(rec.sid.time, 46);
}

static void test_malformed(void **state)
{
        struct pg_rec r;
        struct pg_perf_record rec;

        (void) state;
        build_sample(&r, 4);
        /* every truncation of a valid record fails cleanly */
        for (size_t len = 0; len < r.n; len++) {
                unsigned char *cut = malloc(len ? len : 1);

                memcpy(cut, r.b, len);
                assert_int_equal(pg_perf_record_decode(cut, len, &fp_fmt, &rec), -1);
                free(cut);
        }
        /* header size smaller than a header */
        memcpy(r.b + 6, &(uint16_t){ 4 }, 2);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), -1);
        /* a callchain claiming more entries than the record holds */
        build_sample(&r, 4);
        memcpy(r.b + 8 + 6 * 8, &(uint64_t){ UINT64_MAX / 4 }, 8);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), -1);
        /* a record with a trailer but too short to hold it */
        pg_rec_begin(&r, PERF_RECORD_COMM, 0);
        pg_rec_put64(&r, 0);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), -1);
        /* an MMAP2 cut inside its fixed part */
        pg_rec_begin(&r, PERF_RECORD_MMAP2, 0);
        pg_rec_put32x2(&r, 1, 1);
        pg_rec_put64(&r, 0);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), -1);
        /* NULL and garbage */
        assert_int_equal(pg_perf_record_decode(NULL, 0, &fp_fmt, &rec), -1);
        srand(7);
        for (int k = 0; k < 20000; k++) {
                size_t len = (size_t) (rand() % 200);
                unsigned char *g = malloc(len ? len : 1);

                for (size_t i = 0; i < len; i++)
                        g[i] = (unsigned char) rand();
                if (len >= 8) { /* make the header plausible half of the time */
                        if (k & 1)
                                memcpy(g + 6, &(uint16_t){ (uint16_t) len }, 2);
                        g[0] = (unsigned char) (k % 14);
                        g[1] = g[2] = g[3] = 0;
                }
                (void) pg_perf_record_decode(g, len, &fp_fmt, &rec);
                (void) pg_perf_record_time(g, len, &fp_fmt);
                free(g);
        }
        /* unknown record types decode the header only */
        pg_rec_begin(&r, 200, 0);
        trailer(&r, 1, 1, 9);
        pg_rec_finish(&r);
        assert_int_equal(pg_perf_record_decode(r.b, r.n, &fp_fmt, &rec), 0);
        assert_int_equal(rec.type, 200);
}

static void test_log_sort(void **state)
{
        struct pg_record_log log;
        struct pg_rec r;

        (void) state;
        pg_record_log_init(&log);
        build_sample(&r, 2);
        pg_record_log_add(&log, r.b, r.n, 30);
        pg_record_log_add(&log, r.b, r.n, 10);
        pg_record_log_add(&log, r.b, 13, 20); /* odd length: arena stays aligned */
        pg_record_log_add(&log, r.b, r.n, 10);
        pg_record_log_sort(&log);
        assert_int_equal(log.nrefs, 4);
        assert_int_equal(log.refs[0].time, 10);
        assert_int_equal(log.refs[0].seq, 1);
        assert_int_equal(log.refs[1].seq, 3); /* equal times keep arrival order */
        assert_int_equal(log.refs[2].time, 20);
        assert_int_equal(log.refs[3].time, 30);
        for (size_t i = 0; i < log.nrefs; i++)
                assert_int_equal(log.refs[i].offset % 8, 0);
        pg_record_log_release(&log);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sample_fp),
                cmocka_unit_test(test_sample_dwarf),
                cmocka_unit_test(test_mmap2_comm_fork_lost),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_log_sort),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
