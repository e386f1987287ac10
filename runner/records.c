/*
 * records.c - bounds-checked decoding of perf records and the per-run record
 * log (see records.h). Every read goes through pg_rd, which checks the
 * remaining length first; a record's declared size is clamped to what the
 * buffer holds, and a record claiming more than that is malformed.
 */
#include "runner/records.h"

#include <linux/perf_event.h>
#include <stdlib.h>

#include "common/buf.h"

struct pg_rd {
        const unsigned char *p;
        size_t left;
};

static int pg_rd_u64(struct pg_rd *r, uint64_t *v)
{
        if (r->left < 8)
                return -1;
        memcpy(v, r->p, 8);
        r->p += 8;
        r->left -= 8;
        return 0;
}

static int pg_rd_u32x2(struct pg_rd *r, uint32_t *a, uint32_t *b)
{
        if (r->left < 8)
                return -1;
        memcpy(a, r->p, 4);
        memcpy(b, r->p + 4, 4);
        r->p += 8;
        r->left -= 8;
        return 0;
}

static int pg_rd_skip(struct pg_rd *r, uint64_t n)
{
        if (r->left < n)
                return -1;
        r->p += n;
        r->left -= (size_t) n;
        return 0;
}

static size_t pg_trailer_bytes(const struct pg_perf_format *fmt)
{
        static const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
                                         PERF_SAMPLE_ID,  PERF_SAMPLE_STREAM_ID,
                                         PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
        size_t n = 0;

        if (!fmt->sample_id_all)
                return 0;
        for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
                if (fmt->sample_type & bits[i])
                        n += 8;
        return n;
}

/* The sample_id trailer: the last pg_trailer_bytes() bytes of the record. */
static int pg_decode_trailer(const unsigned char *rec, size_t size,
                             const struct pg_perf_format *fmt, struct pg_perf_id *sid)
{
        size_t tb = pg_trailer_bytes(fmt);
        struct pg_rd r;
        uint64_t v, st = fmt->sample_type;
        uint32_t res;

        if (tb == 0)
                return 0;
        if (size < 8 + tb)
                return -1;
        r = (struct pg_rd){ rec + size - tb, tb };
        if ((st & PERF_SAMPLE_TID) && pg_rd_u32x2(&r, &sid->pid, &sid->tid) < 0)
                return -1;
        if ((st & PERF_SAMPLE_TIME) && pg_rd_u64(&r, &sid->time) < 0)
                return -1;
        if ((st & PERF_SAMPLE_ID) && pg_rd_u64(&r, &sid->id) < 0)
                return -1;
        if ((st & PERF_SAMPLE_STREAM_ID) && pg_rd_u64(&r, &v) < 0)
                return -1;
        if ((st & PERF_SAMPLE_CPU) && pg_rd_u32x2(&r, &sid->cpu, &res) < 0)
                return -1;
        if ((st & PERF_SAMPLE_IDENTIFIER) && pg_rd_u64(&r, &sid->id) < 0)
                return -1;
        return 0;
}

static int pg_decode_sample(struct pg_rd *r, const struct pg_perf_format *fmt,
                            struct pg_perf_record *out)
{
        struct pg_perf_sample *s = &out->u.sample;
        uint64_t st = fmt->sample_type, v;
        uint32_t res;

        /* layouts this decoder cannot size without more of the attr */
        if (st & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK))
                return -1;
        if ((st & PERF_SAMPLE_IDENTIFIER) && pg_rd_u64(r, &out->sid.id) < 0)
                return -1;
        if ((st & PERF_SAMPLE_IP) && pg_rd_u64(r, &s->ip) < 0)
                return -1;
        if ((st & PERF_SAMPLE_TID) && pg_rd_u32x2(r, &out->sid.pid, &out->sid.tid) < 0)
                return -1;
        if ((st & PERF_SAMPLE_TIME) && pg_rd_u64(r, &out->sid.time) < 0)
                return -1;
        if ((st & PERF_SAMPLE_ADDR) && pg_rd_u64(r, &v) < 0)
                return -1;
        if ((st & PERF_SAMPLE_ID) && pg_rd_u64(r, &out->sid.id) < 0)
                return -1;
        if ((st & PERF_SAMPLE_STREAM_ID) && pg_rd_u64(r, &v) < 0)
                return -1;
        if ((st & PERF_SAMPLE_CPU) && pg_rd_u32x2(r, &out->sid.cpu, &res) < 0)
                return -1;
        if ((st & PERF_SAMPLE_PERIOD) && pg_rd_u64(r, &s->period) < 0)
                return -1;
        if (st & PERF_SAMPLE_CALLCHAIN) {
                if (pg_rd_u64(r, &s->nr) < 0 || s->nr > r->left / 8)
                        return -1;
                s->ips = r->p;
                if (pg_rd_skip(r, s->nr * 8) < 0)
                        return -1;
        }
        if (st & PERF_SAMPLE_RAW) {
                uint32_t size;

                if (r->left < 4)
                        return -1;
                memcpy(&size, r->p, 4);
                if (size > r->left - 4)
                        return -1;
                s->raw = r->p + 4;
                s->raw_size = size;
                /* u32 size + data, padded to 8 bytes by the kernel */
                if (pg_rd_skip(r, ((uint64_t) size + 4 + 7) & ~(uint64_t) 7) < 0)
                        return -1;
        }
        if (st & PERF_SAMPLE_REGS_USER) {
                if (pg_rd_u64(r, &s->abi) < 0)
                        return -1;
                if (s->abi != 0) {
                        s->nregs = (uint32_t) __builtin_popcountll(fmt->regs_user_mask);
                        if (s->nregs == 0)
                                return -1;
                        s->regs = r->p;
                        if (pg_rd_skip(r, (uint64_t) s->nregs * 8) < 0)
                                return -1;
                }
        }
        if (st & PERF_SAMPLE_STACK_USER) {
                if (pg_rd_u64(r, &s->stack_size) < 0 || s->stack_size > r->left)
                        return -1;
                s->stack = r->p;
                if (pg_rd_skip(r, s->stack_size) < 0)
                        return -1;
                if (s->stack_size != 0) {
                        if (pg_rd_u64(r, &s->stack_dyn_size) < 0 ||
                            s->stack_dyn_size > s->stack_size)
                                return -1;
                }
        }
        return 0;
}

/* A NUL-terminated string field running to the trailer. */
static int pg_decode_string(struct pg_rd *r, size_t trailer, const char **s, size_t *len)
{
        const unsigned char *nul;
        size_t avail;

        if (r->left < trailer)
                return -1;
        avail = r->left - trailer;
        nul = memchr(r->p, '\0', avail);
        *s = (const char *) r->p;
        *len = nul ? (size_t) (nul - r->p) : avail;
        return 0;
}

int pg_perf_record_decode(const void *buf, size_t len, const struct pg_perf_format *fmt,
                          struct pg_perf_record *out)
{
        const unsigned char *rec = buf;
        struct perf_event_header h;
        struct pg_rd r;
        size_t trailer = pg_trailer_bytes(fmt);

        memset(out, 0, sizeof(*out));
        if (buf == NULL || len < sizeof(h))
                return -1;
        memcpy(&h, rec, sizeof(h));
        if (h.size < sizeof(h) || h.size > len)
                return -1;
        out->type = h.type;
        out->misc = h.misc;
        out->size = h.size;
        r = (struct pg_rd){ rec + sizeof(h), (size_t) h.size - sizeof(h) };
        if (h.type == PERF_RECORD_SAMPLE)
                return pg_decode_sample(&r, fmt, out);
        if (pg_decode_trailer(rec, h.size, fmt, &out->sid) < 0)
                return -1;
        switch (h.type) {
        case PERF_RECORD_MMAP:
        case PERF_RECORD_MMAP2: {
                struct pg_perf_mmap *m = &out->u.mmap;

                if (pg_rd_u32x2(&r, &m->pid, &m->tid) < 0 || pg_rd_u64(&r, &m->addr) < 0 ||
                    pg_rd_u64(&r, &m->len) < 0 || pg_rd_u64(&r, &m->pgoff) < 0)
                        return -1;
                m->prot = 0x4; /* PROT_EXEC: MMAP records are executable maps */
                if (h.type == PERF_RECORD_MMAP2) {
                        if (r.left < 24 + 8)
                                return -1;
                        if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
                                m->has_build_id = true;
                                m->build_id_size = r.p[0];
                                if (m->build_id_size > 20)
                                        return -1;
                                memcpy(m->build_id, r.p + 4, 20);
                        }
                        r.p += 24;
                        r.left -= 24;
                        if (pg_rd_u32x2(&r, &m->prot, &m->flags) < 0)
                                return -1;
                }
                return pg_decode_string(&r, trailer, &m->filename, &m->filename_len);
        }
        case PERF_RECORD_COMM:
                if (pg_rd_u32x2(&r, &out->u.comm.pid, &out->u.comm.tid) < 0)
                        return -1;
                out->u.comm.exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
                return pg_decode_string(&r, trailer, &out->u.comm.comm, &out->u.comm.comm_len);
        case PERF_RECORD_FORK:
        case PERF_RECORD_EXIT:
                if (pg_rd_u32x2(&r, &out->u.task.pid, &out->u.task.ppid) < 0 ||
                    pg_rd_u32x2(&r, &out->u.task.tid, &out->u.task.ptid) < 0 ||
                    pg_rd_u64(&r, &out->u.task.time) < 0)
                        return -1;
                return 0;
        case PERF_RECORD_LOST: {
                uint64_t id;

                if (pg_rd_u64(&r, &id) < 0 || pg_rd_u64(&r, &out->u.lost) < 0)
                        return -1;
                return 0;
        }
        case PERF_RECORD_LOST_SAMPLES:
                return pg_rd_u64(&r, &out->u.lost);
        case PERF_RECORD_THROTTLE:
        case PERF_RECORD_UNTHROTTLE: {
                uint64_t t;

                if (pg_rd_u64(&r, &t) < 0)
                        return -1;
                if (out->sid.time == 0)
                        out->sid.time = t;
                return 0;
        }
        default:
                return 0;
        }
}

uint64_t pg_perf_record_time(const void *buf, size_t len, const struct pg_perf_format *fmt)
{
        const unsigned char *rec = buf;
        struct perf_event_header h;
        struct pg_perf_id sid = { 0 };
        uint64_t t = 0;
        size_t off = sizeof(h);

        if (!(fmt->sample_type & PERF_SAMPLE_TIME) || len < sizeof(h))
                return 0;
        memcpy(&h, rec, sizeof(h));
        if (h.size < sizeof(h) || h.size > len)
                return 0;
        if (h.type != PERF_RECORD_SAMPLE)
                return pg_decode_trailer(rec, h.size, fmt, &sid) < 0 ? 0 : sid.time;
        /* fast path: TIME sits after IDENTIFIER, IP and TID */
        off += 8 * (size_t) (((fmt->sample_type & PERF_SAMPLE_IDENTIFIER) != 0) +
                             ((fmt->sample_type & PERF_SAMPLE_IP) != 0) +
                             ((fmt->sample_type & PERF_SAMPLE_TID) != 0));
        if (off + 8 > h.size)
                return 0;
        memcpy(&t, rec + off, 8);
        return t;
}

void pg_record_log_init(struct pg_record_log *log)
{
        memset(log, 0, sizeof(*log));
}

void pg_record_log_release(struct pg_record_log *log)
{
        free(log->arena);
        free(log->refs);
        pg_record_log_init(log);
}

void pg_record_log_reset(struct pg_record_log *log)
{
        log->arena_len = 0;
        log->nrefs = 0;
        log->seq = 0;
}

void pg_record_log_add(struct pg_record_log *log, const void *rec, size_t len, uint64_t time)
{
        size_t padded = (len + 7) & ~(size_t) 7;

        if (log->arena_cap - log->arena_len < padded) {
                size_t cap = log->arena_cap ? log->arena_cap : 1 << 16;

                while (cap - log->arena_len < padded)
                        cap *= 2;
                log->arena = pg_xrealloc(log->arena, cap);
                log->arena_cap = cap;
        }
        if (log->nrefs == log->refs_cap) {
                log->refs_cap = log->refs_cap ? log->refs_cap * 2 : 1024;
                log->refs = pg_xreallocarray(log->refs, log->refs_cap, sizeof(*log->refs));
        }
        memcpy(log->arena + log->arena_len, rec, len);
        log->refs[log->nrefs++] = (struct pg_record_ref){
                .time = time, .seq = log->seq++, .offset = log->arena_len, .len = (uint32_t) len
        };
        log->arena_len += padded;
}

static int pg_ref_cmp(const void *a, const void *b)
{
        const struct pg_record_ref *x = a, *y = b;

        if (x->time != y->time)
                return x->time < y->time ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pg_record_log_sort(struct pg_record_log *log)
{
        if (log->nrefs > 1)
                qsort(log->refs, log->nrefs, sizeof(*log->refs), pg_ref_cmp);
}

/* The sample_id trailer of a synthesized record: pid/tid, the rest zero. */
static size_t pg_put_trailer(unsigned char *p, const struct pg_perf_format *fmt, uint32_t pid,
                             uint32_t tid)
{
        size_t n = pg_trailer_bytes(fmt);

        memset(p, 0, n);
        if (n && (fmt->sample_type & PERF_SAMPLE_TID)) {
                memcpy(p, &pid, 4);
                memcpy(p + 4, &tid, 4);
        }
        return n;
}

/* The header, fixed part, NUL-padded string (to 8 bytes) and trailer. */
static void pg_add_synth(struct pg_record_log *log, const struct pg_perf_format *fmt, uint32_t type,
                         uint16_t misc, const void *fixed, size_t fixed_len, const char *str,
                         uint32_t pid, uint32_t tid)
{
        size_t slen = strnlen(str, 4096), spad = (slen + 1 + 7) & ~(size_t) 7;
        size_t len = 8 + fixed_len + spad + pg_trailer_bytes(fmt);
        unsigned char *rec = pg_xcalloc(1, len);
        struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t) len };

        memcpy(rec, &h, sizeof(h));
        memcpy(rec + 8, fixed, fixed_len);
        memcpy(rec + 8 + fixed_len, str, slen);
        pg_put_trailer(rec + 8 + fixed_len + spad, fmt, pid, tid);
        pg_record_log_add(log, rec, len, 0);
        free(rec);
}

void pg_record_log_add_mmap2(struct pg_record_log *log, const struct pg_perf_format *fmt,
                             const struct pg_perf_mmap *m)
{
        unsigned char fixed[72] = { 0 };
        char name[4097];
        size_t n = m->filename_len < 4096 ? m->filename_len : 4096;

        memcpy(fixed, &m->pid, 4);
        memcpy(fixed + 4, &m->tid, 4);
        memcpy(fixed + 8, &m->addr, 8);
        memcpy(fixed + 16, &m->len, 8);
        memcpy(fixed + 24, &m->pgoff, 8);
        if (m->has_build_id) {
                fixed[32] = m->build_id_size;
                memcpy(fixed + 36, m->build_id, 20);
        }
        memcpy(fixed + 56, &m->prot, 4);
        memcpy(fixed + 60, &m->flags, 4);
        memcpy(name, m->filename, n);
        name[n] = '\0';
        pg_add_synth(log, fmt, PERF_RECORD_MMAP2,
                     PERF_RECORD_MISC_USER | (m->has_build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
                     fixed, 64, name, m->pid, m->tid);
}

void pg_record_log_add_comm(struct pg_record_log *log, const struct pg_perf_format *fmt,
                            uint32_t pid, uint32_t tid, const char *comm)
{
        unsigned char fixed[8];

        memcpy(fixed, &pid, 4);
        memcpy(fixed + 4, &tid, 4);
        pg_add_synth(log, fmt, PERF_RECORD_COMM, PERF_RECORD_MISC_USER, fixed, 8, comm, pid, tid);
}
