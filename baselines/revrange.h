/*
 * revrange.h - the commits a bisection searches: GOOD..BAD along BAD's
 * first-parent line (`git rev-list --first-parent GOOD..BAD`, oldest
 * first), and the refs `git bisect` keeps while it runs (refs/bisect/bad,
 * refs/bisect/good-*; git-bisect(1)). Read with libgit2 from the object
 * database; nothing is checked out.
 *
 * Ownership: struct pg_rev_range owns its strings; pg_rev_range_release().
 */
#ifndef PG_BASELINES_REVRANGE_H
#define PG_BASELINES_REVRANGE_H

#include <stddef.h>

struct pg_rev_range {
        char *good;      /* GOOD's commit, 40 hex */
        size_t n;        /* commits after GOOD, >= 1 */
        char **commits;  /* n commits, 40 hex, oldest first; commits[n - 1] is BAD */
        char **subjects; /* n first lines of their messages (may be "") */
};

/** Free what @r owns and make it empty (NULL-safe fields). */
void pg_rev_range_release(struct pg_rev_range *r);

/**
 * The commits reachable from @bad and not from @good along @bad's
 * first-parent line, oldest first, into @out (empty on error).
 * @repo_path: NULL for the repository containing the cwd.
 * @good, @bad: anything git rev-parse takes.
 * Errors: PG_ENOTFOUND (not a repository, unknown revision: the message
 * says which fetch to run in a shallow clone); PG_EINPUT (@good is not an
 * ancestor of @bad on its first-parent line, or they are the same
 * commit); PG_EIO (libgit2 failures, with its message).
 * Source: git-rev-list(1), --first-parent; libgit2 git_revwalk_hide(),
 * git_revwalk_simplify_first_parent().
 */
int pg_rev_range_get(const char *repo_path, const char *good, const char *bad,
                     struct pg_rev_range *out);

/**
 * The refs of a `git bisect` in progress, for a step of `git bisect run`:
 * *bad = refs/bisect/bad, *good = the refs/bisect/good-* commit that is an
 * ancestor of @head (HEAD when NULL) with the latest committer time (the
 * nearest known-good point), *head = @head's commit; 40 hex each, owned.
 * Errors: PG_ENOTFOUND (no bisection in progress: refs/bisect/bad missing,
 * or no good ref below @head), PG_EIO.
 */
int pg_rev_bisect_refs(const char *repo_path, const char *head, char **good, char **bad,
                       char **head_out);

struct pg_buf;

/**
 * Append the file @path (relative to the top of the tree, '/'-separated) as
 * committed in @commit (anything git rev-parse takes) to @out, when it is a
 * blob of at most @max_bytes: read from the object database, nothing is
 * checked out. @repo_path: NULL for the repository containing the cwd.
 * Errors: PG_ENOTFOUND (no such revision, or no such file in it: also a
 * directory or submodule there); PG_EINPUT (larger than @max_bytes);
 * PG_EIO (libgit2 failures).
 */
int pg_rev_read_file(const char *repo_path, const char *commit, const char *path, size_t max_bytes,
                     struct pg_buf *out);

#endif
