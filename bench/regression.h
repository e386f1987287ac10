#define PERFGATE_INJECT_REGRESSION 0
/* bench/wordclass.c: classify_words() walks the words in text order instead of
 * grouped by length (more branch mispredictions, same instructions) */
#define PERFGATE_INJECT_BRANCH_REGRESSION 0
/* bench/gridscan.c: grid_scan() walks the grid column by column instead of
 * row by row (more cache misses, same instructions) */
#define PERFGATE_INJECT_CACHE_REGRESSION 0
