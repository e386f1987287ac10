/*
 * worktree.c - check out and build any commit into the build cache
 * (worktree.h). A build runs in its final directory (`<tree>-<key>`:
 * builds that record absolute paths, such as CMake's, keep working), and
 * the entry counts only once its stamp `<tree>-<key>.done` exists, written
 * by rename(2) after the build succeeded. Builds hold an flock(2) on the
 * cache directory, so two perfgates never build into one entry; a failed
 * build's directory is removed, and one left by a killed perfgate (no
 * stamp) is removed before the next build.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/libgit2.h"

#include "baselines/store_git.h"
#include "baselines/worktree.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

static int pg_wt_open(git_repository **repo, const char *path)
{
        int rc;

        struct pg_store_opts so = { path, NULL, NULL };

        if ((rc = pg_git_init()) < 0)
                return rc;
        /* the store's opening: the same words for another owner's repository
         * (safe.directory) and a SHA-256 one */
        rc = pg_store_open(repo, &so);
        if (rc == PG_ENOTFOUND)
                return pg_error_set(PG_ENOTFOUND,
                                    "not a git repository: '%s' (or any of its parents); "
                                    "building a commit needs the project's clone",
                                    path ? path : ".");
        if (rc < 0)
                return rc;
        if (git_repository_is_bare(*repo)) {
                git_repository_free(*repo);
                *repo = NULL;
                return pg_error_set(PG_EINPUT, "the repository at '%s' is bare (no work tree)",
                                    path ? path : ".");
        }
        return 0;
}

/* The work tree's top without the trailing '/' libgit2 keeps. */
static char *pg_wt_top(git_repository *repo)
{
        char *top = pg_xstrdup(git_repository_workdir(repo));
        size_t n = strlen(top);
        while (n > 1 && top[n - 1] == '/')
                top[--n] = '\0';
        return top;
}

void pg_repo_state_release(struct pg_repo_state *s)
{
        free(s->top);
        free(s->head);
        free(s->changed);
        memset(s, 0, sizeof(*s));
}

int pg_repo_state_get(const char *path, struct pg_repo_state *out)
{
        git_repository *repo = NULL;
        git_status_list *st = NULL;
        git_status_options so;
        git_oid head;
        struct pg_buf changed = PG_BUF_INIT;
        size_t n;
        int error;

        if ((error = pg_repo_state_fast(path, out)) != 0)
                return error < 0 ? error : 0;
        if ((error = pg_wt_open(&repo, path)) < 0)
                return error;
        git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
        out->top = pg_wt_top(repo);
        out->shallow = git_repository_is_shallow(repo) == 1;
        if (git_reference_name_to_id(&head, repo, "HEAD") == 0) {
                char hex[GIT_OID_HEXSZ + 1];
                git_oid_tostr(hex, sizeof(hex), &head);
                out->head = pg_xstrdup(hex);
        }
        so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
        so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
        if (git_status_list_new(&st, repo, &so) < 0) {
                error = pg_git_err(PG_EIO, "cannot read the status of '%s'", out->top);
                goto done;
        }
        n = git_status_list_entrycount(st);
        for (size_t i = 0; i < n; i++) {
                const git_status_entry *e = git_status_byindex(st, i);
                const git_diff_delta *d = e->head_to_index ? e->head_to_index : e->index_to_workdir;
                if (e->status == GIT_STATUS_CURRENT || (e->status & GIT_STATUS_IGNORED))
                        continue;
                out->dirty = true;
                if (i < 3 && d)
                        pg_buf_printf(&changed, "%s%s", changed.len ? ", " : "",
                                      d->new_file.path ? d->new_file.path : d->old_file.path);
                else if (i == 3)
                        pg_buf_puts(&changed, ", ...");
        }
        if (out->dirty)
                out->changed = pg_buf_detach(&changed, NULL);
done:
        pg_buf_release(&changed);
        git_status_list_free(st);
        git_repository_free(repo);
        if (error < 0)
                pg_repo_state_release(out);
        return error;
}

void pg_built_release(struct pg_built *b)
{
        free(b->commit);
        free(b->tree);
        free(b->dir);
        free(b->top);
        memset(b, 0, sizeof(*b));
}

static int pg_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
        (void) sb;
        (void) ftw;
        if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT) {
                pg_error_set(PG_EIO, "cannot remove '%s': %s", path, strerror(errno));
                return 1;
        }
        return 0;
}

int pg_rmtree(const char *path)
{
        struct stat st;
        int rc;

        if (lstat(path, &st) < 0)
                return errno == ENOENT
                           ? 0
                           : pg_error_set(PG_EIO, "cannot remove '%s': %s", path, strerror(errno));
        rc = nftw(path, pg_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        if (rc < 0)
                return pg_error_set(PG_EIO, "cannot remove '%s': %s", path, strerror(errno));
        return rc ? PG_EIO : 0;
}

/* Resolve @rev to a commit (the store's resolver: the same fetch advice,
 * shallow clones included). */
static int pg_wt_resolve(git_repository *repo, const char *rev, git_commit **out)
{
        git_oid id;
        int error;

        if ((error = pg_store_resolve(repo, rev, &id)) < 0)
                return error;
        if (git_commit_lookup(out, repo, &id) < 0) {
                if (git_repository_is_shallow(repo) == 1)
                        return pg_error_set(PG_ENOTFOUND,
                                            "commit '%s' is not in this clone (a shallow clone); "
                                            "fetch the history with `git fetch --unshallow "
                                            "origin` (GitHub Actions: actions/checkout with "
                                            "`fetch-depth: 0`; GitLab: GIT_DEPTH: 0)",
                                            rev);
                return pg_git_err(PG_ENOTFOUND, "commit '%s' cannot be read", rev);
        }
        return 0;
}

/* @entry is a complete build: the directory and its stamp @done exist */
static bool pg_build_done(const char *entry, const char *done)
{
        struct stat st;
        return lstat(entry, &st) == 0 && S_ISDIR(st.st_mode) && lstat(done, &st) == 0 &&
               S_ISREG(st.st_mode);
}

int pg_build_commit(const struct pg_build_opts *o, const char *rev, pg_build_fn fn, void *ctx,
                    struct pg_built *out)
{
        git_repository *repo = NULL;
        git_commit *commit = NULL;
        git_tree *tree = NULL;
        git_checkout_options co;
        git_oid key_id;
        char chex[GIT_OID_HEXSZ + 1], thex[GIT_OID_HEXSZ + 1], khex[GIT_OID_HEXSZ + 1];
        char *cache = NULL, *entry = NULL, *work = NULL, *done_path = NULL;
        const char *key = o && o->key ? o->key : "";
        int error, lock = -1;

        memset(out, 0, sizeof(*out));
        if ((error = pg_wt_open(&repo, o ? o->repo_path : NULL)) < 0)
                return error;
        git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
        out->top = pg_wt_top(repo);
        if ((error = pg_wt_resolve(repo, rev, &commit)) < 0)
                goto done;
        if (git_commit_tree(&tree, commit) < 0) {
                error = pg_git_err(PG_EIO, "cannot read the tree of '%s'", rev);
                goto done;
        }
        git_oid_tostr(chex, sizeof(chex), git_commit_id(commit));
        git_oid_tostr(thex, sizeof(thex), git_tree_id(tree));
        git_odb_hash(&key_id, key, strlen(key), GIT_OBJECT_BLOB);
        git_oid_tostr(khex, sizeof(khex), &key_id);
        out->commit = pg_xstrdup(chex);
        out->tree = pg_xstrdup(thex);
        cache = o && o->cache_dir ? pg_xstrdup(o->cache_dir)
                                  : pg_path_join(out->top, PG_BUILD_CACHE_DIR);
        entry = pg_xasprintf("%s/%s-%.8s", cache, thex, khex);
        done_path = pg_xasprintf("%s.done", entry);
        /* the default cache is perfgate's own name under the checkout: a
         * link there (committed by the project) is refused, not followed */
        if (!(o && o->cache_dir) &&
            (error = pg_path_check_no_links(out->top, PG_BUILD_CACHE_DIR)) < 0)
                goto done;
        if (pg_build_done(entry, done_path))
                goto cached;
        if ((error = pg_mkdir_p(cache)) < 0) {
                error = pg_error_prefix(error, "cannot make the build cache");
                goto done;
        }
        /* one build at a time in this cache: another perfgate building the
         * same entry finishes first, and its build is then used */
        lock = open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lock < 0 || flock(lock, LOCK_EX) < 0) {
                error = pg_error_set(PG_EIO, "cannot lock the build cache '%s': %s", cache,
                                     strerror(errno));
                goto done;
        }
        if (pg_build_done(entry, done_path))
                goto cached;
        /* what a killed perfgate left: a directory without its stamp */
        if ((error = pg_rmtree(entry)) < 0)
                goto done;
        if (mkdir(entry, 0755) < 0) {
                error = pg_error_set(PG_EIO, "cannot make the build directory '%s': %s", entry,
                                     strerror(errno));
                goto done;
        }
        work = realpath(entry, NULL);
        if (!work) {
                error = pg_error_set(PG_EIO, "cannot resolve '%s': %s", entry, strerror(errno));
                work = pg_xstrdup(entry);
                goto done;
        }
        /* the user's index is never written: target_directory alone still
         * updates it (libgit2 checkout.c), hence DONT_UPDATE_INDEX */
        co.checkout_strategy =
            GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX | GIT_CHECKOUT_RECREATE_MISSING;
        co.target_directory = work;
        if (git_checkout_tree(repo, (const git_object *) tree, &co) < 0) {
                error = pg_git_err(PG_EIO, "cannot check out %.12s into '%s'", chex, work);
                goto done;
        }
        if (fn && (error = fn(ctx, work)) < 0)
                goto done;
        if ((error = pg_write_file_own(done_path, out->commit, strlen(out->commit))) < 0) {
                error = pg_error_prefix(error, "cannot mark the build of %.12s complete", chex);
                goto done;
        }
        out->dir = work;
        work = NULL;
        goto done;
cached:
        out->dir = realpath(entry, NULL);
        out->cached = out->dir != NULL;
        if (!out->dir)
                error = pg_error_set(PG_EIO, "cannot resolve '%s': %s", entry, strerror(errno));
done:
        if (work) {
                /* removing the half-made build must not replace the reason it failed */
                char *msg = pg_xstrdup(pg_error_last());
                if (pg_rmtree(work) < 0 && error == 0)
                        error = PG_EIO;
                else if (error < 0)
                        pg_error_set(error, "%s", msg);
                free(msg);
                free(work);
        }
        if (lock >= 0)
                close(lock); /* releases the flock */
        free(done_path);
        free(entry);
        free(cache);
        git_tree_free(tree);
        git_commit_free(commit);
        git_repository_free(repo);
        if (error < 0)
                pg_built_release(out);
        return error;
}
