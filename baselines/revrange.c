/*
 * revrange.c - GOOD..BAD along the first-parent line and the refs of a
 * `git bisect` in progress (revrange.h), read with libgit2.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/libgit2.h"

#include "baselines/revrange.h"
#include "baselines/store_git.h"
#include "common/error.h"
#include "common/buf.h"

void pg_rev_range_release(struct pg_rev_range *r)
{
        for (size_t i = 0; i < r->n; i++) {
                free(r->commits[i]);
                free(r->subjects[i]);
        }
        free(r->commits);
        free(r->subjects);
        free(r->good);
        memset(r, 0, sizeof(*r));
}

static char *pg_subject(git_repository *repo, const git_oid *id)
{
        git_commit *c = NULL;
        const char *s;
        char *out;

        if (git_commit_lookup(&c, repo, id) < 0)
                return pg_xstrdup("");
        s = git_commit_summary(c);
        out = pg_xstrdup(s ? s : "");
        git_commit_free(c);
        return out;
}

int pg_rev_range_get(const char *repo_path, const char *good, const char *bad,
                     struct pg_rev_range *out)
{
        struct pg_store_opts so = { repo_path, NULL, NULL };
        git_repository *repo = NULL;
        git_revwalk *walk = NULL;
        git_oid g, b, id;
        size_t cap = 0;
        int error, rc;

        memset(out, 0, sizeof(*out));
        if ((error = pg_git_init()) < 0)
                return error;
        if ((error = pg_store_open(&repo, &so)) < 0)
                goto done;
        if ((error = pg_store_resolve(repo, good, &g)) < 0 ||
            (error = pg_store_resolve(repo, bad, &b)) < 0)
                goto done;
        if (git_oid_equal(&g, &b)) {
                error = pg_error_set(PG_EINPUT, "GOOD '%s' and BAD '%s' are the same commit", good,
                                     bad);
                goto done;
        }
        if (git_revwalk_new(&walk, repo) < 0 || git_revwalk_push(walk, &b) < 0 ||
            git_revwalk_hide(walk, &g) < 0 ||
            git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 ||
            git_revwalk_simplify_first_parent(walk) < 0) {
                error = pg_git_err(PG_EIO, "cannot walk the history from '%s'", bad);
                goto done;
        }
        while ((rc = git_revwalk_next(&id, walk)) == 0) {
                if (out->n == cap) {
                        cap = cap ? 2 * cap : 64;
                        out->commits = pg_xreallocarray(out->commits, cap, sizeof(char *));
                        out->subjects = pg_xreallocarray(out->subjects, cap, sizeof(char *));
                }
                out->commits[out->n] = pg_oid_hex(&id);
                out->subjects[out->n] = pg_subject(repo, &id);
                out->n++;
        }
        if (rc != GIT_ITEROVER) {
                error = pg_git_err(PG_EIO, "cannot walk the history from '%s'", bad);
                goto done;
        }
        /* GOOD must be on BAD's first-parent line: the first commit's parent */
        {
                git_commit *first = NULL;
                git_oid first_id;
                bool on_line = false;
                if (out->n && git_oid_fromstr(&first_id, out->commits[0]) == 0 &&
                    git_commit_lookup(&first, repo, &first_id) == 0) {
                        on_line = git_commit_parentcount(first) > 0 &&
                                  git_oid_equal(git_commit_parent_id(first, 0), &g);
                        git_commit_free(first);
                }
                if (!on_line) {
                        error = pg_error_set(PG_EINPUT,
                                             "GOOD '%s' is not an ancestor of BAD '%s' on its "
                                             "first-parent line (git log --first-parent %s); "
                                             "pick a GOOD commit from that line",
                                             good, bad, bad);
                        goto done;
                }
        }
        out->good = pg_oid_hex(&g);
done:
        if (error < 0)
                pg_rev_range_release(out);
        git_revwalk_free(walk);
        git_repository_free(repo);
        return error;
}

struct pg_good_scan {
        git_repository *repo;
        git_oid head;
        git_oid best;
        git_time_t best_time;
        bool found;
};

static int pg_good_cb(const char *name, void *payload)
{
        struct pg_good_scan *s = payload;
        git_oid id;
        git_commit *c = NULL;

        if (git_reference_name_to_id(&id, s->repo, name) < 0)
                return 0;
        if (!git_oid_equal(&id, &s->head) && git_graph_descendant_of(s->repo, &s->head, &id) != 1)
                return 0;
        if (git_commit_lookup(&c, s->repo, &id) < 0)
                return 0;
        if (!s->found || git_commit_time(c) > s->best_time) {
                s->best = id;
                s->best_time = git_commit_time(c);
                s->found = true;
        }
        git_commit_free(c);
        return 0;
}

int pg_rev_bisect_refs(const char *repo_path, const char *head, char **good, char **bad,
                       char **head_out)
{
        struct pg_store_opts so = { repo_path, NULL, NULL };
        struct pg_good_scan s;
        git_repository *repo = NULL;
        git_oid b;
        int error;

        *good = *bad = *head_out = NULL;
        memset(&s, 0, sizeof(s));
        if ((error = pg_git_init()) < 0)
                return error;
        if ((error = pg_store_open(&repo, &so)) < 0)
                goto done;
        if ((error = pg_store_resolve(repo, head ? head : "HEAD", &s.head)) < 0)
                goto done;
        if (git_reference_name_to_id(&b, repo, "refs/bisect/bad") < 0) {
                error = pg_error_set(PG_ENOTFOUND,
                                     "no bisection in progress (refs/bisect/bad does not exist); "
                                     "start one with `git bisect start BAD GOOD`, or give "
                                     "--good and --bad");
                goto done;
        }
        s.repo = repo;
        if (git_reference_foreach_glob(repo, "refs/bisect/good-*", pg_good_cb, &s) < 0) {
                error = pg_git_err(PG_EIO, "cannot read the refs/bisect/good-* refs");
                goto done;
        }
        if (!s.found) {
                error = pg_error_set(PG_ENOTFOUND,
                                     "no refs/bisect/good-* commit is an ancestor of '%s'; mark "
                                     "one with `git bisect good REV`, or give --good",
                                     head ? head : "HEAD");
                goto done;
        }
        *good = pg_oid_hex(&s.best);
        *bad = pg_oid_hex(&b);
        *head_out = pg_oid_hex(&s.head);
done:
        git_repository_free(repo);
        return error;
}

int pg_rev_read_file(const char *repo_path, const char *commit, const char *path, size_t max_bytes,
                     struct pg_buf *out)
{
        struct pg_store_opts so = { repo_path, NULL, NULL };
        git_repository *repo = NULL;
        git_commit *c = NULL;
        git_tree *tree = NULL;
        git_tree_entry *entry = NULL;
        git_blob *blob = NULL;
        git_oid id;
        int error;

        if ((error = pg_git_init()) < 0)
                return error;
        if ((error = pg_store_open(&repo, &so)) < 0 ||
            (error = pg_store_resolve(repo, commit, &id)) < 0)
                goto done;
        if (git_commit_lookup(&c, repo, &id) < 0 || git_commit_tree(&tree, c) < 0) {
                error = pg_git_err(PG_EIO, "cannot read the tree of '%s'", commit);
                goto done;
        }
        if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
            git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
                error = pg_error_set(PG_ENOTFOUND, "'%s' has no file '%s'", commit, path);
                goto done;
        }
        if (git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) < 0) {
                error = pg_git_err(PG_EIO, "cannot read '%s' at '%s'", path, commit);
                goto done;
        }
        if ((uint64_t) git_blob_rawsize(blob) > max_bytes) {
                error = pg_error_set(PG_EINPUT, "'%s' at '%s' is larger than %zu bytes", path,
                                     commit, max_bytes);
                goto done;
        }
        pg_buf_add(out, git_blob_rawcontent(blob), (size_t) git_blob_rawsize(blob));
done:
        git_blob_free(blob);
        git_tree_entry_free(entry);
        git_tree_free(tree);
        git_commit_free(c);
        git_repository_free(repo);
        return error;
}
