/*
 * hashmap.c - hash tables keyed by byte strings or 64-bit integers (hashmap.h).
 *
 * pg_strmap keeps the slots small (an index and 32 bits of the hash, 8 bytes)
 * so a probe sequence stays in few cache lines; the full key is compared only
 * when the tags match. The tag also picks the first slot, so growing the
 * table reads only the slots, not the keys. Key bytes live in chunks of an
 * arena, never moved, so the pointers handed out stay valid until
 * pg_strmap_release().
 */
#include "common/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define PG_STRMAP_CHUNK_MIN (4u << 10)
#define PG_STRMAP_CHUNK_MAX (1u << 20)

struct pg_strmap_chunk {
        struct pg_strmap_chunk *next;
        size_t used, cap;
        char data[];
};

uint64_t pg_hash_u64(uint64_t x)
{
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ULL;
        x ^= x >> 33;
        return x;
}

uint64_t pg_hash_bytes(const void *p, size_t n)
{
        const unsigned char *s = p;
        uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
        uint64_t h2 = 0xc2b2ae3d27d4eb4fULL ^ n;
        size_t i = 0;

        /* two independent multiply chains over 16-byte steps: a key costs
         * about half the multiply latency of one chain (frame lines and
         * stacks are tens to hundreds of bytes) */
        for (; i + 16 <= n; i += 16) {
                uint64_t w, w2;
                memcpy(&w, s + i, 8);
                memcpy(&w2, s + i + 8, 8);
                h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
                h2 = (h2 ^ w2) * 0x94d049bb133111ebULL;
                h ^= h >> 29;
                h2 ^= h2 >> 31;
        }
        if (i + 8 <= n) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
                h ^= h >> 29;
                i += 8;
        }
        if (i < n) {
                /* the last 8 bytes (overlapping the words above) when there
                 * are 8, so no variable-length copy runs per key */
                uint64_t w = 0;
                if (n >= 8) {
                        memcpy(&w, s + n - 8, 8);
                } else {
                        for (size_t j = i; j < n; j++)
                                w |= (uint64_t) s[j] << (8 * (j - i));
                }
                h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
        }
        return pg_hash_u64(h ^ (h2 * 0xff51afd7ed558ccdULL));
}

/* ---- pg_strmap ----------------------------------------------------------- */

static const char *pg_strmap_copy(struct pg_strmap *m, const void *s, size_t n)
{
        struct pg_strmap_chunk *c = m->arena;
        char *dst;

        if (!c || c->cap - c->used < n + 1) {
                size_t cap = c ? c->cap * 2 : PG_STRMAP_CHUNK_MIN;
                if (cap > PG_STRMAP_CHUNK_MAX)
                        cap = PG_STRMAP_CHUNK_MAX;
                if (cap < n + 1)
                        cap = n + 1;
                c = pg_xmalloc(sizeof(*c) + cap);
                c->next = m->arena;
                c->used = 0;
                c->cap = cap;
                m->arena = c;
        }
        dst = c->data + c->used;
        memcpy(dst, s, n);
        dst[n] = '\0';
        c->used += n + 1;
        return dst;
}

static void pg_strmap_grow(struct pg_strmap *m)
{
        size_t ncap = m->cap ? m->cap * 2 : 256;
        struct pg_strmap_slot *ns = pg_xcalloc(ncap, sizeof(*ns));

        for (size_t i = 0; i < m->cap; i++) {
                size_t j;
                if (!m->slots[i].idx)
                        continue;
                for (j = m->slots[i].tag & (ncap - 1); ns[j].idx; j = (j + 1) & (ncap - 1))
                        ;
                ns[j] = m->slots[i];
        }
        free(m->slots);
        m->slots = ns;
        m->cap = ncap;
}

/* A key's tag: the high half of its hash. It is also where the key's probe
 * starts (tag & mask; beyond 2^32 slots the upper bits are 0: only the
 * spread suffers), in lookups, growth and prefetches alike. */
static uint32_t pg_strmap_tag(uint64_t h)
{
        return (uint32_t) (h >> 32);
}

/* The slot holding @key, or the empty slot where it would go. */
static size_t pg_strmap_probe(const struct pg_strmap *m, const void *key, size_t len, uint64_t h)
{
        size_t mask = m->cap - 1, i;
        uint32_t tag = pg_strmap_tag(h);

        for (i = (size_t) tag & mask; m->slots[i].idx; i = (i + 1) & mask) {
                const struct pg_strmap_key *k = &m->keys[m->slots[i].idx - 1];
                if (m->slots[i].tag == tag && k->len == len && memcmp(k->ptr, key, len) == 0)
                        break;
        }
        return i;
}

size_t pg_strmap_intern(struct pg_strmap *m, const void *key, size_t len, bool *added)
{
        uint64_t h = pg_hash_bytes(key, len);
        size_t i;

        if ((m->n + 1) * 10 > m->cap * 7)
                pg_strmap_grow(m);
        i = pg_strmap_probe(m, key, len, h);
        if (m->slots[i].idx) {
                if (added)
                        *added = false;
                return m->slots[i].idx - 1;
        }
        if (m->n >= UINT32_MAX - 1)
                abort();
        if (m->n == m->capkeys) {
                m->capkeys = m->capkeys ? m->capkeys * 2 : 256;
                m->keys = pg_xreallocarray(m->keys, m->capkeys, sizeof(*m->keys));
        }
        m->keys[m->n].ptr = pg_strmap_copy(m, key, len);
        m->keys[m->n].len = len;
        m->slots[i].idx = (uint32_t) (m->n + 1);
        m->slots[i].tag = pg_strmap_tag(h);
        if (added)
                *added = true;
        return m->n++;
}

void pg_strmap_prefetch(const struct pg_strmap *m, const void *key, size_t len)
{
        if (m->cap)
                __builtin_prefetch(
                    &m->slots[pg_strmap_tag(pg_hash_bytes(key, len)) & (m->cap - 1)]);
}

bool pg_strmap_find(const struct pg_strmap *m, const void *key, size_t len, size_t *idx)
{
        size_t i;

        if (m->cap == 0)
                return false;
        i = pg_strmap_probe(m, key, len, pg_hash_bytes(key, len));
        if (!m->slots[i].idx)
                return false;
        *idx = m->slots[i].idx - 1;
        return true;
}

void pg_strmap_release(struct pg_strmap *m)
{
        while (m->arena) {
                struct pg_strmap_chunk *next = m->arena->next;
                free(m->arena);
                m->arena = next;
        }
        free(m->slots);
        free(m->keys);
        memset(m, 0, sizeof(*m));
}

/* ---- pg_u64map ----------------------------------------------------------- */

void pg_u64map_release(struct pg_u64map *m)
{
        free(m->keys);
        free(m->vals);
        memset(m, 0, sizeof(*m));
}

bool pg_u64map_get(const struct pg_u64map *m, uint64_t key, uint32_t *val)
{
        if (m->cap == 0)
                return false;
        for (size_t i = pg_hash_u64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
                if (m->keys[i] == key) {
                        *val = m->vals[i];
                        return true;
                }
                if (m->keys[i] == UINT64_MAX)
                        return false;
        }
}

void pg_u64map_put(struct pg_u64map *m, uint64_t key, uint32_t val)
{
        size_t i;

        if ((m->n + 1) * 2 > m->cap) {
                struct pg_u64map old = *m;

                m->cap = old.cap ? old.cap * 2 : 64;
                m->n = 0;
                m->keys = pg_xmalloc(m->cap * sizeof(*m->keys));
                m->vals = pg_xmalloc(m->cap * sizeof(*m->vals));
                memset(m->keys, 0xff, m->cap * sizeof(*m->keys));
                for (size_t j = 0; j < old.cap; j++)
                        if (old.keys[j] != UINT64_MAX)
                                pg_u64map_put(m, old.keys[j], old.vals[j]);
                pg_u64map_release(&old);
        }
        for (i = pg_hash_u64(key) & (m->cap - 1); m->keys[i] != UINT64_MAX && m->keys[i] != key;
             i = (i + 1) & (m->cap - 1))
                ;
        if (m->keys[i] == UINT64_MAX)
                m->n++;
        m->keys[i] = key;
        m->vals[i] = val;
}

size_t pg_strmap_top(const struct pg_strmap *m, const uint64_t *counts, size_t max, size_t *out)
{
        size_t n = 0;

        for (; n < max; n++) {
                size_t best = SIZE_MAX;

                for (size_t i = 0; i < m->n; i++) {
                        bool taken = false;

                        for (size_t j = 0; j < n && !taken; j++)
                                taken = out[j] == i;
                        if (!taken && counts[i] > 0 &&
                            (best == SIZE_MAX || counts[i] > counts[best] ||
                             (counts[i] == counts[best] &&
                              strcmp(m->keys[i].ptr, m->keys[best].ptr) < 0)))
                                best = i;
                }
                if (best == SIZE_MAX)
                        break;
                out[n] = best;
        }
        return n;
}
