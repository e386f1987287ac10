/*
 * worktree.h - the commit a measurement was taken at: HEAD of the git
 * repository containing a directory, and whether its work tree differs from
 * it. Read with libgit2 (baselines/ is the only layer that links it).
 *
 * libgit2's global initialization is not free (with the mbedTLS backend it
 * parses the whole system CA bundle, git_libgit2_init(3)), so callers ask for
 * this only when a result is about to be written, never before a benchmark.
 */
#ifndef PG_BASELINES_WORKTREE_H
#define PG_BASELINES_WORKTREE_H

#include <stdbool.h>

/** Bytes of a commit id as hex digits plus the terminating NUL. */
#define PG_GIT_HEX_SIZE 41

/**
 * The state of the repository containing @dir (searched upwards, as git
 * does). On return @commit holds HEAD's commit as 40 lower-case hex digits and
 * @dirty whether any tracked file differs from HEAD (index or work tree;
 * untracked files do not count: results and build outputs usually are
 * untracked and do not change what was measured; submodules are ignored).
 * Returns true when @dir is in a repository with a HEAD commit, false
 * otherwise (no repository, unborn HEAD, unreadable: @commit is then "" and
 * @dirty false). Never fails; libgit2 is initialized and shut down inside.
 */
bool pg_git_worktree_state(const char *dir, char commit[PG_GIT_HEX_SIZE], bool *dirty);

#endif
