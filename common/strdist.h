/*
 * strdist.h - how far apart two names are, for "did you mean" messages.
 */
#ifndef PG_COMMON_STRDIST_H
#define PG_COMMON_STRDIST_H

#include <stddef.h>

/**
 * The Levenshtein distance of NUL-terminated @a and @b (insertions,
 * deletions and substitutions of bytes, each costing 1; V. I. Levenshtein,
 * "Binary codes capable of correcting deletions, insertions, and
 * reversals", 1966), or @cap + 1 when it is above @cap (the computation stops
 * early then). Memory: one row of strlen(@b) + 1 entries; allocation
 * failure aborts.
 */
size_t pg_edit_distance(const char *a, const char *b, size_t cap);

#endif
