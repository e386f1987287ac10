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
        const char *machine;   /* NULL: "default" (pg_store_save: the results' own machine) */
};

/** What pg_store_save() did. Strings are owned; free with pg_store_save_info_release(). */
struct pg_store_save_info {
        char *commit;        /* the new commit on the data branch (hex) */
        char *head;          /* the HEAD commit the baseline is filed under (hex) */
        char *branch;        /* the data branch name */
        bool replaced;       /* files for this commit and machine existed and were replaced */
        bool created_branch; /* the branch was created as an orphan */
        bool from_remote;    /* built on origin/<branch> because it was ahead */
        bool no_local;       /* ... or because there was no local branch (a fresh clone) */
        unsigned retries;    /* compare-and-swap retries after a concurrent update */
        size_t saved;        /* result files written */
        size_t nreplaced;    /* of those, how many replaced a file already stored */
        bool merged_local;   /* the local branch had diverged from origin/<branch>; its
                                baselines were carried into the new commit (two parents) */
        char *machine;       /* the machine the results were filed under */
};

void pg_store_save_info_release(struct pg_store_save_info *info);

/**
 * Record @results as the baseline of HEAD: one commit on the data branch
 * upserting `<machine>/<HEAD>/<name>.json` for each result, each blob the
 * exact bytes of pg_result_to_json(). The work tree, index and HEAD are not
 * touched; objects are written before the ref moves. The commit is built on
 * the local branch, on origin/<branch> when that is ahead (or the only one),
 * on origin/<branch> with the local tip as second parent when they diverged,
 * or as an orphan when neither exists. The ref moves compare-and-swap and the
 * commit is rebuilt on the new tip when another writer moved it (up to 64
 * attempts). Other files of `<machine>/<HEAD>/` stay.
 * Machine: o->machine, else the results' `machine` (they must agree), else
 * "default". Author: git config user.name/email, else perfgate
 * <perfgate@localhost>.
 * @force: accept results whose git commit is not HEAD, that record no git
 * commit, or that were measured on a dirty tree.
 * @info: filled on success; on error it is left empty (nothing to release).
 * Errors: PG_ENOTFOUND (not a git repository), PG_EINPUT (empty set,
 * results from another commit / a dirty tree / without git information and
 * no @force, machines that disagree, invalid machine or branch name, unborn
 * HEAD, HEAD on the data branch), PG_EIO (libgit2 could not write),
 * PG_ECONFLICT (still losing the race after every retry).
 */
int pg_store_save(const struct pg_store_opts *o, const struct pg_result_set *results, bool force,
                  struct pg_store_save_info *info);

/**
 * Where a baseline was found. Strings owned; pg_store_lookup_release()
 * (which may be called again; after an error everything is already freed).
 */
struct pg_store_lookup {
        bool found;
        char *base_commit;    /* BASE resolved (hex) */
        char *merge_base;     /* merge-base of HEAD and BASE (hex) */
        char *used_commit;    /* commit whose baseline was used (hex), when found */
        unsigned distance;    /* first-parent steps from merge_base to used_commit */
        char *source_ref;     /* "perfgate-baselines" or "origin/perfgate-baselines" */
        char *warnings;       /* NULL, or one line per stored file that was skipped (a symbolic
                              link, another benchmark's result) or says another machine or
                              commit than its path, none, or a dirty tree: print each */
        char *other_machines; /* when not found: NULL, or the other machines (", "-separated)
                                 with a baseline at one of the searched commits */
};

void pg_store_lookup_release(struct pg_store_lookup *l);

/**
 * Load the baseline for revision @rev into @out (initialised by the caller;
 * left empty unless found). Resolves @rev (anything git rev-parse takes),
 * takes the merge-base with HEAD, looks for `<machine>/<merge-base>/` and
 * walks first parents up to @max_walk commits (0: the merge-base only).
 * Machine: o->machine, else "default" (pass the current results' machine).
 * The data branch is read from the local branch, or from origin/<branch>
 * when there is no local one or origin is ahead of it (info->source_ref).
 * Not finding one is not an error: info->found = false (also with no data
 * branch at all: then info->source_ref is NULL), and info->other_machines
 * names the machines that have a baseline at one of the searched commits.
 * Errors: PG_ENOTFOUND (not a repository, unknown revision: message suggests
 * `git fetch origin <rev>`), PG_EINPUT (shallow clone without the merge-base
 * or cut before a baseline was found, with the exact fetch to run; HEAD and
 * @rev unrelated; @rev not a commit; unborn HEAD; a corrupt baseline blob
 * named "branch:path" with the JSON error's line, column and byte offset; a
 * newer schema; bad machine or branch name), PG_EIO.
 */
int pg_store_find_baseline(const struct pg_store_opts *o, const char *rev, unsigned max_walk,
                           struct pg_result_set *out, struct pg_store_lookup *info);

/**
 * Load the baseline recorded for exactly the commit @rev names (no
 * merge-base, no walk): what `perfgate baseline show REV` prints. @rev is
 * anything git rev-parse takes, or a hex prefix (at least 4 digits) of a
 * commit stored on the data branch but absent from this clone.
 * info->found is false when that commit has no baseline for o->machine;
 * info->base_commit/used_commit hold the commit, info->source_ref the ref read.
 * Errors: as pg_store_find_baseline() (PG_ENOTFOUND, PG_EINPUT), plus
 * PG_EINPUT for an ambiguous hex prefix.
 */
int pg_store_load_commit(const struct pg_store_opts *o, const char *rev, struct pg_result_set *out,
                         struct pg_store_lookup *info);

/** One `<machine>/<commit>/` directory of the data branch. */
struct pg_store_entry {
        char *machine;
        char *commit;     /* 40 hex digits */
        long long time_s; /* committer time of that commit (s since the epoch); 0 when the
                                 commit is not in this clone */
        char *summary;    /* its subject line, NULL when not in this clone */
        size_t nbenchmarks;
        char **benchmarks; /* benchmark names (file names less ".json"), sorted */
};

/** Everything on the data branch, newest first. Owned; pg_store_list_release(). */
struct pg_store_list {
        char *source_ref; /* ref read ("perfgate-baselines" or "origin/..."), NULL: no branch */
        char *tip;        /* its commit (hex), NULL: no branch */
        size_t n;
        struct pg_store_entry *items; /* newest commit first (time_s, then commit hex) */
};

/**
 * List the baselines on the data branch (local branch, or origin/<branch>
 * when that is ahead or the only one), commits x machines x benchmarks,
 * newest first. o->machine NULL lists every machine, else only that one.
 * No data branch is not an error: l->n == 0 and l->source_ref == NULL.
 * Errors: PG_ENOTFOUND (not a git repository), PG_EINPUT (bad branch name).
 */
int pg_store_list_load(const struct pg_store_opts *o, struct pg_store_list *l);

void pg_store_list_release(struct pg_store_list *l);

/* ---- assets: files published for PR/MR comments ------------------------- */

#define PG_ASSETS_DEFAULT_BRANCH "perfgate-assets"

struct pg_assets_opts {
        const char *repo_path; /* NULL: discover the repository from the cwd */
        const char *branch;    /* NULL: PG_ASSETS_DEFAULT_BRANCH */
        size_t max_history;    /* > 0: when the branch already has this many commits, the
                                  new commit is a root commit holding the whole tree (the
                                  history is squashed, so it never grows without bound) */
};

/** What pg_assets_publish() / pg_assets_prune() did. Owned; pg_assets_info_release(). */
struct pg_assets_info {
        char *commit;        /* the new commit (hex); NULL: nothing to do (prune) */
        bool created_branch; /* the branch was created as an orphan */
        bool from_remote;    /* built on origin/<branch> (ahead, or the local one diverged:
                                then the local tip is dropped) */
        bool squashed;       /* the new commit has no parent (o->max_history reached) */
        size_t files;        /* files written (publish) */
        unsigned retries;    /* compare-and-swap retries after a concurrent update */
};

void pg_assets_info_release(struct pg_assets_info *info);

/**
 * Commit every regular file directly in @dir (not symlinks, not
 * subdirectories, not names starting with '.') as `<prefix>/<name>` on the
 * assets branch, in one commit, with the same machinery as pg_store_save():
 * objects first, the ref moved compare-and-swap on the tip it was built on
 * (retried on a concurrent update), never the work tree, index or HEAD;
 * built on origin/<branch> when that is ahead or the local branch diverged.
 * Files already under @prefix with other names stay.
 * @prefix: a relative path of '/'-separated components of [A-Za-z0-9._-],
 * none empty, "." or "..", e.g. "pr-12/<head-sha>".
 * Errors: PG_ENOTFOUND (not a git repository, @dir missing), PG_EINPUT (bad
 * prefix or branch name, no file in @dir), PG_EIO (reading a file, libgit2
 * writing), PG_ECONFLICT (losing the race after every retry).
 */
int pg_assets_publish(const struct pg_assets_opts *o, const char *dir, const char *prefix,
                      struct pg_assets_info *info);

/**
 * Remove @prefix (a file or a whole directory, e.g. "pr-12") from the assets
 * branch in one commit, as pg_assets_publish() commits. No branch or no such
 * path: nothing to do, info->commit is NULL and 0 is returned.
 * Errors: PG_ENOTFOUND (not a git repository), PG_EINPUT (bad prefix or
 * branch name), PG_EIO, PG_ECONFLICT.
 */
int pg_assets_prune(const struct pg_assets_opts *o, const char *prefix,
                    struct pg_assets_info *info);

/**
 * Whether @machine can name the machine directory of the data branch: the
 * benchmark-name rule (pg_result_name_valid()) and not ".git" in any case
 * (git refuses such a tree entry). `run --machine` and `baseline save`
 * apply this one rule. Errors: PG_EINPUT "'NAME' is not a valid machine
 * name (...)".
 */
int pg_store_check_machine(const char *machine);

/**
 * Whether @rev names a commit in the repository of @o (NULL: the one
 * holding the cwd), as pg_store_find_baseline() would resolve it (a bare
 * branch name also as origin/<name>). False, with no error kept, when there
 * is no repository or @rev resolves to nothing.
 */
bool pg_store_is_revision(const struct pg_store_opts *o, const char *rev);

#endif
