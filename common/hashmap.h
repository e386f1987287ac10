/*
 * hashmap.h - perfgate's hash tables: byte-string keys interned to dense
 * indexes (pg_strmap) and 64-bit keys mapped to 32-bit values (pg_u64map).
 *
 * Both use open addressing with linear probing over a power-of-two number of
 * slots, grown by doubling (Knuth, TAOCP vol. 3, section 6.4, algorithm L).
 *
 * pg_strmap gives each distinct key an index 0, 1, 2, ... in the order keys
 * were first added, and keeps one NUL-terminated copy of the key's bytes in
 * an arena it owns. Callers keep their values in an array of their own,
 * indexed by it; walking 0 .. n-1 visits the keys in insertion order, which
 * does not depend on the hash function.
 */
#ifndef PG_COMMON_HASHMAP_H
#define PG_COMMON_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Hash @n bytes at @p, a word at a time: every byte reaches the result, so
 * long keys that share prefixes (folded stacks) still spread.
 */
uint64_t pg_hash_bytes(const void *p, size_t n);

/** Mix the bits of @x (the finaliser of MurmurHash3's fmix64). */
uint64_t pg_hash_u64(uint64_t x);

/** One interned key: its bytes (NUL-terminated, owned by the map), length and hash. */
struct pg_strmap_key {
        const char *ptr;
        size_t len;
};

struct pg_strmap_slot {
        uint32_t idx; /* index + 1; 0 marks an empty slot */
        uint32_t tag; /* high half of the key's hash */
};

struct pg_strmap_chunk;

/** A byte-string -> dense index map; zero-initialised (PG_STRMAP_INIT) is empty. */
struct pg_strmap {
        struct pg_strmap_slot *slots; /* cap slots */
        size_t cap;
        struct pg_strmap_key *keys; /* n keys in insertion order */
        size_t n, capkeys;
        struct pg_strmap_chunk *arena; /* the key bytes */
};

#define PG_STRMAP_INIT                                                                             \
        {                                                                                          \
                NULL, 0, NULL, 0, 0, NULL                                                          \
        }

/**
 * The index of the @len bytes at @key, adding a copy of them when absent.
 * @added: set to true when the key was new, false otherwise; may be NULL.
 * Returns an index < m->n (the new key's index is the old m->n). Allocation
 * failure, or more than UINT32_MAX - 1 keys, aborts (common/buf.h).
 */
size_t pg_strmap_intern(struct pg_strmap *m, const void *key, size_t len, bool *added);

/**
 * A hint that the @len bytes at @key are about to be interned or looked up
 * in @m: the memory of its first slot is loaded into the cache ahead, so a
 * caller walking many keys can overlap that wait with other work (issued a
 * few keys ahead). Changes nothing; a map that grows before the lookup only
 * loses the hint.
 */
void pg_strmap_prefetch(const struct pg_strmap *m, const void *key, size_t len);

/** Whether @m holds the @len bytes at @key; if so, store their index in @idx. */
bool pg_strmap_find(const struct pg_strmap *m, const void *key, size_t len, size_t *idx);

/**
 * Store in @out the indexes of the (at most @max) keys of @m with the
 * largest @counts (an array indexed like the keys), largest first, equal
 * counts by key (bytewise, as strcmp); keys of count 0 are never chosen.
 * Returns how many were stored. O(@max x keys): meant for a handful.
 */
size_t pg_strmap_top(const struct pg_strmap *m, const uint64_t *counts, size_t max, size_t *out);

/** Free everything @m owns (key pointers die with it) and leave it empty. */
void pg_strmap_release(struct pg_strmap *m);

/** A uint64_t -> uint32_t map; zero-initialised is empty. UINT64_MAX cannot be a key. */
struct pg_u64map {
        uint64_t *keys; /* UINT64_MAX = empty */
        uint32_t *vals;
        size_t cap, n; /* cap is a power of two */
};

/** Whether @m maps @key; if so, store its value in @val. */
bool pg_u64map_get(const struct pg_u64map *m, uint64_t key, uint32_t *val);

/** Map @key (not UINT64_MAX) to @val, replacing any earlier value. Aborts on allocation failure. */
void pg_u64map_put(struct pg_u64map *m, uint64_t key, uint32_t val);

/** Free @m's memory and leave it empty. */
void pg_u64map_release(struct pg_u64map *m);

#endif
