/*
 * offcpu.c - blocked time per switch-out sample (see offcpu.h).
 * Invariant: every sample's PERIOD ends up either 0 or the time from its
 * own timestamp to the next switch-in of its thread, both in perf clock ns.
 */
#include "runner/offcpu.h"

#include <linux/perf_event.h>
#include <string.h>

#include "common/hashmap.h"

#ifndef PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
#define PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#endif

/* Byte offset of PERIOD in a sample: the header, then the fields that
 * precede it in include/uapi/linux/perf_event.h ("PERF_RECORD_SAMPLE"). */
static size_t pg_period_offset(uint64_t st)
{
        static const uint64_t before[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,
                                           PERF_SAMPLE_TID,        PERF_SAMPLE_TIME,
                                           PERF_SAMPLE_ADDR,       PERF_SAMPLE_ID,
                                           PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU };
        size_t off = sizeof(struct perf_event_header);
        for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
                off += (st & before[i]) ? 8 : 0;
        return off;
}

void pg_offcpu_weigh(struct pg_record_log *log, const struct pg_perf_format *fmt,
                     struct pg_offcpu_stats *st)
{
        struct pg_offcpu_stats local = { 0 };
        struct pg_u64map pending = { 0 }; /* tid -> 1 + index of its open sample's ref */
        size_t off = pg_period_offset(fmt->sample_type);
        const uint64_t zero = 0;

        if (!(fmt->sample_type & PERF_SAMPLE_PERIOD) || !(fmt->sample_type & PERF_SAMPLE_TIME)) {
                if (st)
                        *st = local;
                return;
        }
        for (size_t i = 0; i < log->nrefs; i++) {
                const struct pg_record_ref *ref = &log->refs[i];
                unsigned char *p = log->arena + ref->offset;
                struct pg_perf_record r;
                uint32_t idx;

                if (pg_perf_record_decode(p, ref->len, fmt, &r) < 0)
                        continue;
                if (r.type == PERF_RECORD_SAMPLE) {
                        if (off + 8 > ref->len)
                                continue;
                        memcpy(p + off, &zero, 8);
                        local.switches++;
                        /* a thread has one open switch-out: a second one
                         * before any switch-in supersedes it */
                        pg_u64map_put(&pending, r.sid.tid, (uint32_t) i + 1);
                } else if (r.type == PERF_RECORD_SWITCH &&
                           pg_u64map_get(&pending, r.sid.tid, &idx) && idx) {
                        if (r.misc & PERF_RECORD_MISC_SWITCH_OUT) {
                                /* the switch-out that goes with the sample:
                                 * runnable still when preempted, not blocked */
                                if (r.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) {
                                        local.preempted++;
                                        pg_u64map_put(&pending, r.sid.tid, 0);
                                }
                                continue;
                        }
                        {
                                const struct pg_record_ref *sref = &log->refs[idx - 1];
                                uint64_t ns = r.sid.time > sref->time ? r.sid.time - sref->time : 0;
                                memcpy(log->arena + sref->offset + off, &ns, 8);
                                local.blocked++;
                                local.blocked_ns += ns;
                        }
                        pg_u64map_put(&pending, r.sid.tid, 0);
                }
        }
        pg_u64map_release(&pending);
        if (st)
                *st = local;
}
