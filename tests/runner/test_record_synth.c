/*
 * test_record_synth.c - the MMAP2 and COMM records `perfgate record`
 * synthesizes for a process that ran before its events existed: each is
 * decoded back by the same decoder the ring buffers go through, field for
 * field, with the pid/tid in the sample_id trailer and time 0 (so they sort
 * before every real record), under both sample formats the sampler uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <string.h>

#include "runner/records.h"
#include "runner/ringbuf.h"

static const uint64_t base_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                  PERF_SAMPLE_CALLCHAIN;

static void check_mmap2(const struct pg_perf_format *fmt, bool build_id)
{
        struct pg_record_log log;
        struct pg_perf_mmap m = { .pid = 4242,
                                  .tid = 4242,
                                  .addr = 0x7f0000001000,
                                  .len = 0x23000,
                                  .pgoff = 0x1000,
                                  .prot = 0x5,
                                  .flags = 0x2,
                                  .filename = "/usr/lib/x86_64-linux-gnu/libc.so.6 tail",
                                  .filename_len = 35 };
        struct pg_perf_record r;

        if (build_id) {
                m.has_build_id = true;
                m.build_id_size = 20;
                for (int i = 0; i < 20; i++)
                        m.build_id[i] = (uint8_t) (i * 7 + 1);
        }
        pg_record_log_init(&log);
        pg_record_log_add_mmap2(&log, fmt, &m);
        assert_int_equal(log.nrefs, 1);
        assert_int_equal(log.refs[0].time, 0);
        assert_int_equal(log.refs[0].len % 8, 0);
        assert_int_equal(
            pg_perf_record_decode(log.arena + log.refs[0].offset, log.refs[0].len, fmt, &r), 0);
        assert_int_equal(r.type, PERF_RECORD_MMAP2);
        assert_int_equal(r.u.mmap.pid, 4242);
        assert_int_equal(r.u.mmap.tid, 4242);
        assert_int_equal(r.u.mmap.addr, 0x7f0000001000);
        assert_int_equal(r.u.mmap.len, 0x23000);
        assert_int_equal(r.u.mmap.pgoff, 0x1000);
        assert_int_equal(r.u.mmap.prot, 0x5);
        assert_int_equal(r.u.mmap.flags, 0x2);
        assert_int_equal(r.u.mmap.filename_len, 35);
        assert_memory_equal(r.u.mmap.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6", 35);
        assert_int_equal(r.u.mmap.has_build_id, build_id);
        if (build_id) {
                assert_int_equal(r.u.mmap.build_id_size, 20);
                assert_memory_equal(r.u.mmap.build_id, m.build_id, 20);
        }
        assert_int_equal(r.sid.pid, 4242);
        assert_int_equal(r.sid.tid, 4242);
        assert_int_equal(r.sid.time, 0);
        pg_record_log_release(&log);
}

static void test_mmap2_fp(void **state)
{
        struct pg_perf_format fmt = { base_type | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
                                      PG_SAMPLE_REGS_LEAF_MASK, true };
        (void) state;
        check_mmap2(&fmt, false);
        check_mmap2(&fmt, true);
}

static void test_mmap2_dwarf(void **state)
{
        struct pg_perf_format fmt = { base_type | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
                                      PG_SAMPLE_REGS_USER_MASK, true };
        (void) state;
        check_mmap2(&fmt, true);
}

static void test_comm_sorts_first(void **state)
{
        struct pg_perf_format fmt = { base_type, 0, true };
        struct pg_record_log log;
        struct pg_perf_record r;
        unsigned char real[64] = { 0 };
        struct perf_event_header h = { PERF_RECORD_COMM, 0, 56 }; /* + trailer: TID TIME CPU ID */
        uint64_t t = 5000;

        (void) state;
        pg_record_log_init(&log);
        /* a real COMM record (time 5000) arrives first, then a synthesized one */
        memcpy(real, &h, sizeof(h));
        memcpy(real + 16, "x\0\0\0\0\0\0\0", 8);
        memcpy(real + 32, &t, 8);
        pg_record_log_add(&log, real, 56, pg_perf_record_time(real, 56, &fmt));
        pg_record_log_add_comm(&log, &fmt, 77, 78, "worker-with-a-long-name");
        pg_record_log_sort(&log);
        assert_int_equal(
            pg_perf_record_decode(log.arena + log.refs[0].offset, log.refs[0].len, &fmt, &r), 0);
        assert_int_equal(r.type, PERF_RECORD_COMM);
        assert_false(r.u.comm.exec);
        assert_int_equal(r.u.comm.pid, 77);
        assert_int_equal(r.u.comm.tid, 78);
        assert_int_equal(r.u.comm.comm_len, strlen("worker-with-a-long-name"));
        assert_memory_equal(r.u.comm.comm, "worker-with-a-long-name", r.u.comm.comm_len);
        assert_int_equal(r.sid.pid, 77);
        assert_int_equal(r.sid.tid, 78);
        assert_int_equal(log.refs[1].time, 5000);
        pg_record_log_release(&log);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mmap2_fp),
                cmocka_unit_test(test_mmap2_dwarf),
                cmocka_unit_test(test_comm_sorts_first),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
