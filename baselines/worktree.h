/*
 * worktree.h - building any commit of the project without touching the
 * user's work tree: the commit's tree is checked out (libgit2, with
 * target_directory and without updating the index) into a fresh directory
 * under the build cache, the caller's build step runs there, and only a
 * build that succeeded is renamed to its cache entry
 * `<cache>/<tree-id>-<key>`, where <key> is a short hash of the build command.
 * rename(2) of a directory is atomic, so the cache holds complete builds
 * or nothing: a failed checkout (full disk), a failed or stopped build
 * removes its directory; an entry that exists is reused as is.
 *
 * Builds must be relocatable: the checkout is built at a temporary path and
 * used after the rename (the benchmarks are found at the same relative paths
 * under the entry).
 *
 * Also the state of the repository that matters for building commits: the
 * top of its work tree, whether tracked files have uncommitted changes, and
 * whether it is a shallow clone.
 *
 * This module owns libgit2 for these tasks and never runs the build itself:
 * the build step is the caller's callback (runner/build.h runs a command).
 */
#ifndef PG_BASELINES_WORKTREE_H
#define PG_BASELINES_WORKTREE_H

#include <stdbool.h>

/** Default cache directory, relative to the top of the work tree. */
#define PG_BUILD_CACHE_DIR ".perfgate/builds"

/** State of the repository around @path. Strings owned; pg_repo_state_release(). */
struct pg_repo_state {
        char *top;     /* absolute path of the work tree's top, no trailing '/' */
        char *head;    /* HEAD's commit (40 hex), NULL on an unborn branch */
        bool dirty;    /* tracked files differ from HEAD (index or work tree) */
        bool shallow;  /* a shallow clone (.git/shallow exists) */
        char *changed; /* dirty: up to a few changed paths, ", "-separated */
};

void pg_repo_state_release(struct pg_repo_state *s);

/**
 * Describe the repository containing @path (NULL: the cwd) into @out.
 * Untracked files (build outputs) do not make it dirty.
 * Errors: PG_ENOTFOUND (not a git repository), PG_EINPUT (a bare
 * repository: no work tree), PG_EIO (libgit2 failures, with its message).
 */
int pg_repo_state_get(const char *path, struct pg_repo_state *out);

/**
 * The part of pg_repo_state_get() that needs no libgit2 (baselines/repostate.c):
 * reads .git's files directly and answers only when the answer is certain,
 * i.e. @path (NULL: the cwd) is in no repository, or in a plain clone (a
 * .git directory) or a linked work tree of one (`git worktree add`: a .git
 * file, gitrepository-layout(5)) whose HEAD's commit is found (loose, or
 * whole in a pack)
 * and whose index matches HEAD's tree (its cache tree) and the work tree
 * (every entry's stat data, none as new as the index).
 * Returns 1 with @out filled (clean: dirty false, changed NULL),
 * PG_ENOTFOUND (no repository; pg_repo_state_get's message), or 0 when it
 * cannot tell (@out empty): libgit2 must decide.
 */
int pg_repo_state_fast(const char *path, struct pg_repo_state *out);

/**
 * The build step: build the checkout at @dir (absolute). Returns 0, or a
 * negative PG_E* code with the message set (the checkout is then removed).
 */
typedef int (*pg_build_fn)(void *ctx, const char *dir);

struct pg_build_opts {
        const char *repo_path; /* NULL: the repository containing the cwd */
        const char *cache_dir; /* NULL: <top>/PG_BUILD_CACHE_DIR */
        const char *key;       /* what else the build depends on (the command); may be NULL */
};

/** One built commit. Strings owned; pg_built_release(). */
struct pg_built {
        char *commit; /* 40 hex */
        char *tree;   /* the commit's tree id, 40 hex */
        char *dir;    /* absolute path of the built checkout (the cache entry) */
        char *top;    /* absolute path of the user's work tree top */
        bool cached;  /* the entry existed: nothing was checked out or built */
};

void pg_built_release(struct pg_built *b);

/**
 * Check out commit @rev (anything git rev-parse takes) and build it with
 * @fn, or reuse the cache entry for its tree and @o->key. The user's work
 * tree, index and HEAD are never touched.
 * @out: filled on success (empty on error).
 * Errors: PG_ENOTFOUND (not a repository; unknown revision, with the fetch
 * command, which says `git fetch --unshallow` in a shallow clone);
 * PG_EIO (the cache directory cannot be made or locked, the checkout fails
 * - a full disk says "No space left on device" - or the stamp cannot be
 * written: nothing is left behind); whatever @fn returns (nothing is left
 * behind). The build runs in @out->dir itself (absolute paths it records
 * stay valid); the entry is complete once "<dir>.done" exists; concurrent
 * callers on one cache wait for each other (flock(2) on the cache
 * directory).
 * Source of the checkout semantics: libgit2's git_checkout_tree()
 * (include/git2/checkout.h, target_directory).
 */
int pg_build_commit(const struct pg_build_opts *o, const char *rev, pg_build_fn fn, void *ctx,
                    struct pg_built *out);

/**
 * Remove the directory tree at @path (like rm -rf, not following symlinks).
 * A missing @path is not an error. Errors: PG_EIO naming the first entry
 * that could not be removed.
 */
int pg_rmtree(const char *path);

#endif
