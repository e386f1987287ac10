/*
 * fuzz_ringrec.c - fuzz target: the ring-buffer record path of sampling on
 * arbitrary bytes. The input becomes a perf mmap ring buffer in memory (a
 * fake struct perf_event_mmap_page and a power-of-two data area, so records
 * wrap around its end) with data_tail/data_head taken from the input
 * (possibly lying); pg_ringbuf_drain() hands every record to the decoder
 * (pg_perf_record_decode, pg_perf_record_time) under a sample_type and
 * REGS_USER mask also taken from the input, every decoded pointer is read
 * through its whole length (so a sanitizer sees any read outside the
 * record), and the records go through a pg_record_log and its sort.
 *
 * Input layout: [0,8) sample_type, [8,16) regs_user_mask, [16] flags (bit 0:
 * sample_id_all), [17] log2 of the data area (6..12), [18,20) data_tail,
 * [20,24) data_head - data_tail, then the data area's bytes (repeated).
 * (The sampling branch's tests/fixtures/sample/fuzz_records.c covers the
 * symbolizer; this one covers the drain and the decoder alone, and is
 * replayed under CTest.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "runner/records.h"
#include "runner/ringbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct pg_fuzz_ctx {
        struct pg_perf_format fmt;
        struct pg_record_log log;
        uint64_t sink;
};

static void pg_touch(struct pg_fuzz_ctx *c, const void *p, size_t n)
{
        const unsigned char *b = p;
        for (size_t i = 0; i < n; i++)
                c->sink += b[i];
}

static void pg_on_record(void *ctx, const void *rec, size_t len)
{
        struct pg_fuzz_ctx *c = ctx;
        struct pg_perf_record r;
        uint64_t t = pg_perf_record_time(rec, len, &c->fmt);

        if (pg_perf_record_decode(rec, len, &c->fmt, &r) == 0) {
                if (r.size > len)
                        abort();
                switch (r.type) {
                case PERF_RECORD_SAMPLE:
                        for (uint64_t i = 0; i < r.u.sample.nr; i++)
                                c->sink += pg_perf_chain_ip(&r.u.sample, i);
                        if (r.u.sample.abi)
                                for (uint32_t i = 0; i < r.u.sample.nregs; i++)
                                        c->sink += pg_perf_reg(&r.u.sample, i);
                        if (r.u.sample.stack_dyn_size > r.u.sample.stack_size)
                                abort();
                        if (r.u.sample.stack_size)
                                pg_touch(c, r.u.sample.stack, (size_t) r.u.sample.stack_size);
                        break;
                case PERF_RECORD_MMAP:
                case PERF_RECORD_MMAP2:
                        pg_touch(c, r.u.mmap.filename, r.u.mmap.filename_len);
                        break;
                case PERF_RECORD_COMM:
                        pg_touch(c, r.u.comm.comm, r.u.comm.comm_len);
                        break;
                default:
                        break;
                }
        }
        pg_record_log_add(&c->log, rec, len, t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct perf_event_mmap_page *page;
        struct pg_ringbuf rb;
        struct pg_fuzz_ctx c;
        uint64_t data_size;
        uint16_t tail16;
        uint32_t span;
        unsigned lg;

        if (size < 24)
                return 0;
        memset(&c, 0, sizeof(c));
        memcpy(&c.fmt.sample_type, data, 8);
        memcpy(&c.fmt.regs_user_mask, data + 8, 8);
        c.fmt.sample_id_all = data[16] & 1;
        lg = 6 + data[17] % 7;
        data_size = 1ull << lg;
        memcpy(&tail16, data + 18, 2);
        memcpy(&span, data + 20, 4);

        page = calloc(1, sizeof(*page));
        memset(&rb, 0, sizeof(rb));
        rb.fd = -1;
        rb.base = page;
        rb.data_size = data_size;
        rb.data = malloc(data_size);
        rb.scratch = malloc(data_size);
        for (uint64_t i = 0; i < data_size; i++)
                rb.data[i] = size > 24 ? data[24 + i % (size - 24)] : 0;
        /* the kernel keeps head - tail <= data_size; a lying head may not */
        page->data_tail = (uint64_t) tail16 * 8;
        page->data_head = page->data_tail + span % (4 * data_size + 1);
        pg_record_log_init(&c.log);
        (void) pg_ringbuf_drain(&rb, pg_on_record, &c);
        if (page->data_tail != page->data_head)
                abort(); /* a drain always publishes the head it consumed to */
        pg_record_log_sort(&c.log);
        for (size_t i = 1; i < c.log.nrefs; i++)
                if (c.log.refs[i - 1].time > c.log.refs[i].time)
                        abort();
        pg_record_log_release(&c.log);
        free(rb.data);
        free(rb.scratch);
        free(page);
        return (int) (c.sink & 0);
}
