/*
 * history.c - the baselines of one machine along a branch's first-parent
 * line (history.h). The repository helpers are the store's own
 * (store_git.h), so the data branch is chosen (local or origin/, whichever
 * is ahead) and each `<machine>/<commit>/` directory is loaded exactly as
 * `perfgate compare` and `baseline show` load it.
 *
 * The walk follows parent 0 only, as `git log --first-parent` does, so a
 * merged side branch's commits never interleave with the main line.
 */
#include "baselines/history.h"

#include "baselines/libgit2.h"
#include <stdlib.h>
#include <string.h>

#include "baselines/store_git.h"
#include "common/buf.h"
#include "common/error.h"

void pg_history_init(struct pg_history *h)
{
        memset(h, 0, sizeof(*h));
}

void pg_history_release(struct pg_history *h)
{
        for (size_t i = 0; i < h->n; i++) {
                free(h->points[i].commit);
                free(h->points[i].subject);
                pg_result_set_release(&h->points[i].results);
        }
        free(h->points);
        free(h->branch);
        free(h->tip);
        free(h->machine);
        free(h->source_ref);
        memset(h, 0, sizeof(*h));
}

/* Reverse h->points in place: the walk collects newest first. */
static void pg_history_reverse(struct pg_history *h)
{
        for (size_t i = 0, j = h->n; i + 1 < j; i++, j--) {
                struct pg_history_point t = h->points[i];
                h->points[i] = h->points[j - 1];
                h->points[j - 1] = t;
        }
}

int pg_history_load(const struct pg_store_opts *o, const char *branch, size_t max_commits,
                    struct pg_history *h)
{
        const char *data_branch = pg_store_branch(o);
        const char *machine = o && o->machine ? o->machine : "default";
        git_repository *repo = NULL;
        git_tree *data = NULL, *mtree = NULL;
        git_commit *c = NULL;
        git_oid cur;
        size_t cap = 0, stored = 0;
        int error;

        pg_history_init(h);
        if (!branch)
                branch = PG_HISTORY_DEFAULT_BRANCH;
        h->branch = pg_xstrdup(branch);
        h->machine = pg_xstrdup(machine);
        if ((error = pg_git_init()) < 0)
                return error;
        /* Reading 20,000 baselines, libgit2's check that each object's bytes
         * hash to its id is a tenth of the time; git itself does not check on
         * reads either (only fsck does). A corrupt blob still fails the JSON
         * parse. Restored below. */
        git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
        if ((error = pg_store_check_branch(data_branch)) < 0 ||
            (error = pg_store_check_machine(machine)) < 0 ||
            (error = pg_store_open(&repo, o)) < 0 ||
            (error = pg_store_resolve(repo, branch, &cur)) < 0)
                goto done;
        h->tip = pg_oid_hex(&cur);
        if ((error = pg_store_read_tree(repo, data_branch, &data, &h->source_ref, NULL)) < 0 ||
            !data)
                goto done;
        if ((error = pg_subtree(repo, data, machine, &mtree)) < 0 || !mtree)
                goto done;
        for (size_t i = 0; i < git_tree_entrycount(mtree); i++)
                if (git_tree_entry_type(git_tree_entry_byindex(mtree, i)) == GIT_OBJECT_TREE)
                        stored++;
        for (;;) {
                char hex[GIT_OID_HEXSZ + 1];
                git_tree *dir = NULL;

                if (max_commits && h->walked >= max_commits) {
                        h->limit_reached = true;
                        break;
                }
                git_commit_free(c);
                c = NULL;
                git_oid_tostr(hex, sizeof(hex), &cur);
                if (git_commit_lookup(&c, repo, &cur) < 0) {
                        if (git_repository_is_shallow(repo) == 1) {
                                /* the line is cut here: show what the clone has */
                                git_error_clear();
                                h->shallow_cut = true;
                                break;
                        }
                        error = pg_git_err(PG_EIO, "cannot read commit %s of '%s'", hex, branch);
                        goto done;
                }
                h->walked++;
                if ((error = pg_subtree(repo, mtree, hex, &dir)) < 0)
                        goto done;
                if (dir) {
                        struct pg_history_point *p;
                        char *prefix = pg_xasprintf("%s/%s", machine, hex);
                        if (h->n == cap) {
                                cap = cap ? 2 * cap : 64;
                                h->points = pg_xreallocarray(h->points, cap, sizeof(*h->points));
                        }
                        p = &h->points[h->n];
                        memset(p, 0, sizeof(*p));
                        pg_result_set_init(&p->results);
                        error =
                            pg_store_load_dir(repo, dir, h->source_ref, prefix, &p->results, NULL);
                        free(prefix);
                        git_tree_free(dir);
                        if (error < 0)
                                goto done;
                        p->commit = pg_xstrdup(hex);
                        p->subject = pg_xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
                        p->time_s = (long long) git_commit_time(c);
                        h->n++;
                }
                if (git_commit_parentcount(c) == 0)
                        break;
                git_oid_cpy(&cur, git_commit_parent_id(c, 0));
        }
        h->off_line = stored - h->n;
        pg_history_reverse(h);
done:
        if (error)
                pg_history_release(h);
        git_commit_free(c);
        git_tree_free(mtree);
        git_tree_free(data);
        git_repository_free(repo);
        git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
        git_libgit2_shutdown();
        return error;
}
