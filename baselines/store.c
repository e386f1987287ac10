/*
 * store.c - placeholder until the baseline-store issue lands.
 */
#include "baselines/store.h"

#include <stdlib.h>

#include "common/error.h"

void pg_store_save_info_release(struct pg_store_save_info *info)
{
        free(info->commit);
        free(info->head);
        free(info->branch);
}

void pg_store_lookup_release(struct pg_store_lookup *l)
{
        free(l->base_commit);
        free(l->merge_base);
        free(l->used_commit);
        free(l->source_ref);
}

int pg_store_save(const struct pg_store_opts *o, const struct pg_result_set *results, bool force,
                  struct pg_store_save_info *info)
{
        (void) o;
        (void) results;
        (void) force;
        (void) info;
        return pg_error_set(PG_ERROR, "the git baseline store is not built into this perfgate yet");
}

int pg_store_find_baseline(const struct pg_store_opts *o, const char *rev, unsigned max_walk,
                           struct pg_result_set *out, struct pg_store_lookup *info)
{
        (void) o;
        (void) rev;
        (void) max_walk;
        (void) out;
        (void) info;
        return pg_error_set(PG_ERROR, "the git baseline store is not built into this perfgate yet");
}
