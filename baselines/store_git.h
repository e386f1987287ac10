/*
 * store_git.h - the libgit2 helpers of the baseline store (store.c) that the
 * history reader (history.c) shares: opening the repository, resolving a
 * revision, choosing the data-branch tree to read, and loading one
 * `<machine>/<commit>/` directory. Internal to baselines/ (the only layer
 * that links libgit2); errors are PG_E* codes with the message set, as in
 * store.h.
 */
#ifndef PG_BASELINES_STORE_GIT_H
#define PG_BASELINES_STORE_GIT_H

#include "baselines/libgit2.h"

#include "baselines/result.h"
#include "baselines/store.h"
#include "common/buf.h"

/** Set a perfgate error @code from a libgit2 failure: the message, then libgit2's detail. */
int pg_git_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** @id as 40 hex digits (owned). */
char *pg_oid_hex(const git_oid *id);

/** The data branch of @o (PG_STORE_DEFAULT_BRANCH when unset); borrowed. */
const char *pg_store_branch(const struct pg_store_opts *o);

/** PG_EINPUT unless refs/heads/@branch is a valid ref name. */
int pg_store_check_branch(const char *branch);

/**
 * Open the repository containing o->repo_path (or the cwd), searching
 * upwards. Errors: PG_ENOTFOUND (not a repository), PG_EINPUT (owned by
 * another user, not in safe.directory), PG_EIO.
 */
int pg_store_open(git_repository **out, const struct pg_store_opts *o);

/**
 * Resolve @rev (anything git rev-parse takes; a bare branch name also as
 * origin/<name>) to a commit. Errors: PG_ENOTFOUND with the fetch to run,
 * PG_EINPUT (not a commit).
 */
int pg_store_resolve(git_repository *repo, const char *rev, git_oid *out);

/**
 * The data-branch tree to read: the local branch, or origin/<branch> when
 * that is ahead or the only one. *tree is NULL (no error) when neither
 * exists; *source_ref (and *tip when @tip is not NULL) are set, owned.
 */
int pg_store_read_tree(git_repository *repo, const char *branch, git_tree **tree, char **source_ref,
                       char **tip);

/** The subtree @name of @tree, or *out NULL (no error) when absent or a blob. */
int pg_subtree(git_repository *repo, const git_tree *tree, const char *name, git_tree **out);

/**
 * Load every `<name>.json` blob of @dir (the tree `<machine>/<commit>`, named
 * @prefix) into @out; errors name "source_ref:prefix/name.json". Symbolic
 * links and files whose result names another benchmark are skipped, and a
 * result that names another machine or commit than its path, none, or a
 * dirty tree is kept; each of these adds one line to @warn (NULL: not
 * reported). On error @out is emptied. Errors: PG_EINPUT (corrupt, newer
 * schema, a blob over PG_STORE_MAX_BLOB bytes), PG_EIO.
 */
int pg_store_load_dir(git_repository *repo, const git_tree *dir, const char *source_ref,
                      const char *prefix, struct pg_result_set *out, struct pg_buf *warn);

#endif
