/*
 * store.h - baselines kept in the project's own git repository (DESIGN.md
 * section 5): `<machine>/<commit>/<benchmark>.json` on a data-only branch
 * (default "perfgate-baselines"), written through libgit2 without touching
 * the work tree, index or HEAD, and found for a revision by merge-base plus a
 * bounded first-parent walk.
 */
#ifndef PG_BASELINES_STORE_H
#define PG_BASELINES_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/result.h"

#define PG_STORE_DEFAULT_BRANCH   "perfgate-baselines"
#define PG_STORE_DEFAULT_MAX_WALK 50

struct pg_store_opts {
        const char *repo_path; /* NULL: discover the repository from the cwd */
        const char *branch;    /* NULL: PG_STORE_DEFAULT_BRANCH */
        const char *machine;   /* NULL: "default" */
};

/** What pg_store_save() did. Strings are owned; free with pg_store_save_info_release(). */
struct pg_store_save_info {
        char *commit;        /* the new commit on the data branch (hex) */
        char *head;          /* the HEAD commit the baseline is filed under (hex) */
        char *branch;        /* the data branch name */
        bool replaced;       /* files for this commit and machine existed and were replaced */
        bool created_branch; /* the branch was created as an orphan */
        bool from_remote;    /* built on origin/<branch> because it was ahead */
        unsigned retries;    /* compare-and-swap retries after a concurrent update */
};

void pg_store_save_info_release(struct pg_store_save_info *info);

/**
 * Record @results as the baseline of HEAD for o->machine: one commit on the
 * data branch adding `<machine>/<HEAD>/<name>.json` for each result.
 * @force: accept results whose git commit is not HEAD, or a dirty tree.
 * Errors: PG_ENOTFOUND (not a git repository), PG_EINPUT (results from
 * another commit or a dirty tree without @force, empty set), PG_EIO.
 */
int pg_store_save(const struct pg_store_opts *o, const struct pg_result_set *results, bool force,
                  struct pg_store_save_info *info);

/** Where a baseline was found. Strings owned; pg_store_lookup_release(). */
struct pg_store_lookup {
        bool found;
        char *base_commit; /* BASE resolved (hex) */
        char *merge_base;  /* merge-base of HEAD and BASE (hex) */
        char *used_commit; /* commit whose baseline was used (hex), when found */
        unsigned distance; /* first-parent steps from merge_base to used_commit */
        char *source_ref;  /* "perfgate-baselines" or "origin/perfgate-baselines" */
};

void pg_store_lookup_release(struct pg_store_lookup *l);

/**
 * Load the baseline for revision @rev into @out (initialised by the caller).
 * Resolves @rev (anything git rev-parse takes), takes the merge-base with
 * HEAD, looks for `<machine>/<merge-base>/` and walks first parents up to
 * @max_walk commits. Not finding one is not an error: info->found = false.
 * Errors: PG_ENOTFOUND (not a repository, unknown revision: message suggests
 * `git fetch origin <rev>`), PG_EINPUT (shallow clone without the merge-base,
 * with the fetch to run; a corrupt baseline blob named "branch:path" with the
 * JSON error offset; a newer schema).
 */
int pg_store_find_baseline(const struct pg_store_opts *o, const char *rev, unsigned max_walk,
                           struct pg_result_set *out, struct pg_store_lookup *info);

#endif
