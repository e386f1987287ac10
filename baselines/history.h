/*
 * history.h - every baseline of one machine on the data branch, ordered
 * along the first-parent history of a code branch (default "main"): the
 * series `perfgate history` charts and searches for change points.
 *
 * Read with libgit2 from the object database only (no checkout, no work
 * tree): the code branch's first parents are walked from its tip to the
 * root (or to where a shallow clone is cut), and each commit that has a
 * `<machine>/<commit>/` directory on the data branch contributes one point.
 * Baselines of commits that are not on that line (side branches, rewritten
 * history) are counted but not used.
 *
 * Ownership: struct pg_history owns everything; pg_history_release().
 */
#ifndef PG_BASELINES_HISTORY_H
#define PG_BASELINES_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/result.h"
#include "baselines/store.h"

#define PG_HISTORY_DEFAULT_BRANCH "main"

/** One commit of the line that has a baseline. */
struct pg_history_point {
        char *commit;                 /* 40 hex digits */
        char *subject;                /* the commit's subject line (summary) */
        long long time_s;             /* committer time, seconds since the epoch */
        struct pg_result_set results; /* the baselines filed under it, sorted by name */
};

struct pg_history {
        char *branch;     /* the code branch as given ("main") */
        char *tip;        /* its tip commit (hex) */
        char *machine;    /* the machine read */
        char *source_ref; /* data branch read ("perfgate-baselines" or "origin/..."); NULL: none */
        size_t n;
        struct pg_history_point *points; /* oldest first, along the first-parent line */
        size_t walked;                   /* commits of the line visited */
        size_t off_line;                 /* baselines of this machine for commits not on the line */
        bool shallow_cut;   /* the walk stopped at a commit missing from a shallow clone */
        bool limit_reached; /* the walk stopped at max_commits */
};

/** Make @h empty. */
void pg_history_init(struct pg_history *h);

/** Free everything @h owns and make it empty again. */
void pg_history_release(struct pg_history *h);

/**
 * Load the history of @branch (anything git rev-parse takes; a bare name
 * also as origin/<name>; NULL: "main") for machine o->machine (NULL:
 * "default") from data branch o->branch into @h (initialised by the caller;
 * left empty on error). @max_commits bounds the first-parent walk from the
 * tip (0: the whole line). No data branch, or no baseline for the machine,
 * is not an error: h->n == 0 (h->source_ref tells which).
 * Errors: PG_ENOTFOUND (not a git repository, unknown @branch, with the
 * fetch to run), PG_EINPUT (invalid machine or data-branch name, @branch
 * not a commit, a corrupt or newer baseline named "ref:machine/commit/
 * name.json"), PG_EIO (libgit2 could not read an object).
 */
int pg_history_load(const struct pg_store_opts *o, const char *branch, size_t max_commits,
                    struct pg_history *h);

#endif
