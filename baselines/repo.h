/*
 * repo.h - the git repository perfgate runs in, read with libgit2 (the only
 * layer that uses it is baselines/): its HEAD commit and whether the work
 * tree has changes, stored in every result.
 */
#ifndef PG_BASELINES_REPO_H
#define PG_BASELINES_REPO_H

#include <stdbool.h>

#define PG_REPO_OID_HEX 40 /* hex digits of a SHA-1 commit id */

/**
 * Whether @dir (or a parent of it) is in a git repository with a HEAD
 * commit. If so, write its id (PG_REPO_OID_HEX hex digits and a NUL) to
 * @commit and set *dirty when tracked files differ from HEAD in the index
 * or the work tree (untracked files do not count: results directories and
 * build outputs usually are untracked and do not change what was measured;
 * submodules are not looked at; a bare repository is never dirty).
 * Never fails: anything git cannot tell is "no repository".
 */
bool pg_repo_head(const char *dir, char commit[PG_REPO_OID_HEX + 1], bool *dirty);

#endif
