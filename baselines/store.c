/*
 * store.c - the git baseline store (store.h, DESIGN.md section 5).
 *
 * Layout: the data branch (default "perfgate-baselines") holds only
 * `<machine>/<commit>/<benchmark>.json`, each blob the exact bytes of
 * pg_result_to_json(). Saving never touches the work tree, the index or HEAD:
 * blobs, trees and the commit are written to the object database first and
 * the branch ref is moved last, compare-and-swap on the tip it was built on
 * (git_reference_create_matching); a concurrent writer makes the swap fail
 * and the save is rebuilt on the new tip. Paths are unique per commit and
 * machine, so a rebuild never conflicts. An interrupted save leaves the
 * branch at its old or its new commit, never between.
 *
 * Reading prefers the local branch unless origin/<branch> is strictly ahead
 * of it (or the only one). Lookup follows git: merge-base of HEAD and BASE,
 * then first parents only (the main line, never a merged side branch).
 */
#include "baselines/store.h"
#include "baselines/store_git.h"

#include <dirent.h>
#include <errno.h>
#include "baselines/libgit2.h"
#include "baselines/safedir.h"
#include <sys/stat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "common/fsutil.h"

#define PG_STORE_MAX_RETRIES 64

/* The largest blob read as a stored result: the data branch is shared, so a
 * pusher must not make every compare load gigabytes (docs/limits.md). */
#define PG_STORE_MAX_BLOB PG_RESULT_MAX_BYTES

void pg_store_save_info_release(struct pg_store_save_info *info)
{
        free(info->commit);
        free(info->head);
        free(info->branch);
        free(info->machine);
        memset(info, 0, sizeof(*info));
}

void pg_store_lookup_release(struct pg_store_lookup *l)
{
        free(l->base_commit);
        free(l->merge_base);
        free(l->used_commit);
        free(l->source_ref);
        free(l->warnings);
        free(l->other_machines);
        memset(l, 0, sizeof(*l));
}

/* ---- helpers ------------------------------------------------------------ */

/* Set a perfgate error from a libgit2 failure: our message, then libgit2's
 * own detail (git_error_last() may be NULL in 1.5). */
int pg_git_err(int code, const char *fmt, ...)
{
        struct pg_buf b = PG_BUF_INIT;
        const git_error *e = pg_libgit2.error_last ? git_error_last() : NULL;
        va_list ap;

        va_start(ap, fmt);
        pg_buf_vprintf(&b, fmt, ap);
        va_end(ap);
        if (e && e->message && *e->message) {
                /* libgit2 ends some messages with ": " and an empty
                 * strerror (a lock file that exists): never end on ": " */
                size_t n = strlen(e->message);
                while (n && (e->message[n - 1] == ' ' || e->message[n - 1] == ':' ||
                             e->message[n - 1] == '\n'))
                        n--;
                if (n)
                        pg_buf_printf(&b, ": %.*s", (int) n, e->message);
        }
        pg_error_set(code, "%s", b.ptr);
        pg_buf_release(&b);
        return code;
}

char *pg_oid_hex(const git_oid *id)
{
        char hex[GIT_OID_HEXSZ + 1];
        git_oid_tostr(hex, sizeof(hex), id);
        return pg_xstrdup(hex);
}

const char *pg_store_branch(const struct pg_store_opts *o)
{
        return o && o->branch && *o->branch ? o->branch : PG_STORE_DEFAULT_BRANCH;
}

int pg_store_check_branch(const char *branch)
{
        char *ref = pg_xasprintf("refs/heads/%s", branch);
        int valid = 0, bvalid = 0;

        /* git's branch rule (git_branch_name_is_valid(): refs/heads/NAME is a
         * valid ref, not "HEAD", no leading '-'), plus the names `git branch`
         * also refuses or that read as another ref: "@" (HEAD), "refs/..."
         * and "origin/..." (the remote-tracking branch perfgate reads) */
        git_reference_name_is_valid(&valid, ref);
        git_branch_name_is_valid(&bvalid, branch);
        free(ref);
        git_error_clear();
        if (!valid || !bvalid || strcmp(branch, "@") == 0 || strncmp(branch, "refs/", 5) == 0 ||
            strncmp(branch, "origin/", 7) == 0)
                return pg_error_set(PG_EINPUT,
                                    "'%s' is not a valid branch name (git check-ref-format "
                                    "--branch refuses it, or it reads as another ref: not 'HEAD', "
                                    "'@', a leading '-', 'refs/' or 'origin/')",
                                    branch);
        return 0;
}

int pg_store_check_machine(const char *machine)
{
        const char *why = pg_machine_name_why(machine);
        if (why)
                return pg_error_set(PG_EINPUT,
                                    "'%s' is not a valid machine name: it %s; a machine name "
                                    "becomes a directory of the data branch (1 to 200 bytes of "
                                    "UTF-8, no '/' or control characters, none of the names git "
                                    "refuses in a tree: see docs/limits.md)",
                                    machine, why);
        return 0;
}

/* Open the repository containing @o->repo_path (or the cwd), searching
 * upwards as git does. */
int pg_store_open(git_repository **out, const struct pg_store_opts *o)
{
        const char *path = o && o->repo_path ? o->repo_path : ".";
        int rc = git_repository_open_ext(out, path, 0, NULL);
        char *where = NULL; /* the directory safe.directory must name */

        /* libgit2 1.5.1 reports a repository owned by another user as not found,
         * with the detail "config value 'safe.directory' was not found" */
        if (rc == GIT_ENOTFOUND && git_error_last() && git_error_last()->message &&
            (strstr(git_error_last()->message, "safe.directory") ||
             strstr(git_error_last()->message, "not owned")))
                rc = GIT_EOWNER;
        if (rc == 0) {
                /* git's rules: ownership, then safe.directory (safedir.h) */
                int ok = pg_git_owner_ok(*out, path, &where);
                if (ok <= 0) {
                        git_repository_free(*out);
                        *out = NULL;
                }
                if (ok < 0) {
                        free(where);
                        return ok;
                }
                if (ok == 0)
                        rc = GIT_EOWNER;
                else {
                        free(where);
                        where = NULL;
                }
        }
        if (rc == GIT_ENOTFOUND) {
                char *abs = realpath(path, NULL);
                pg_error_set(PG_ENOTFOUND,
                             "not a git repository: '%s' (or any of its parents); run perfgate "
                             "inside the project's clone, or compare against a results directory",
                             abs ? abs : path);
                free(abs);
                return PG_ENOTFOUND;
        }
        if (rc == GIT_EOWNER) {
                char *abs = where ? NULL : realpath(path, NULL);
                const char *top = where ? where : abs ? abs : path;
                pg_error_set(PG_EINPUT,
                             "the git repository at '%s' is owned by another user and git "
                             "config safe.directory does not list it; if you trust it, run "
                             "`git config --global --add safe.directory %s%s%s`",
                             top, where ? "'" : "", where ? where : "<its top directory>",
                             where ? "'" : "");
                free(abs);
                free(where);
                return PG_EINPUT;
        }
        if (rc < 0 && git_error_last() && git_error_last()->message &&
            strstr(git_error_last()->message, "objectformat")) {
                /* libgit2 1.5 (Debian 12) is built without SHA-256 object support */
                char *abs = realpath(path, NULL);
                pg_error_set(PG_EINPUT,
                             "the git repository at '%s' uses SHA-256 object names "
                             "(extensions.objectformat), which the libgit2 this perfgate uses "
                             "cannot read; baselines need a SHA-1 repository (compare against a "
                             "results directory instead: `perfgate compare ./BASEDIR`)",
                             abs ? abs : path);
                free(abs);
                return PG_EINPUT;
        }
        if (rc < 0)
                return pg_git_err(PG_EIO, "cannot open the git repository at '%s'", path);
        return 0;
}

/* HEAD's commit; PG_EINPUT on an unborn branch. */
static int pg_store_head(git_repository *repo, git_oid *head)
{
        int rc = git_repository_head_unborn(repo);
        if (rc == 1)
                return pg_error_set(PG_EINPUT, "HEAD has no commit yet; commit something first");
        if (rc < 0 || git_reference_name_to_id(head, repo, "HEAD") < 0)
                return pg_git_err(PG_EIO, "cannot resolve 'HEAD'");
        return 0;
}

/* The tips of refs/heads/<branch> and refs/remotes/origin/<branch>. */
struct pg_tips {
        bool has_local, has_remote;
        git_oid local, remote;
};

static int pg_store_tips(git_repository *repo, const char *branch, struct pg_tips *t)
{
        char *lref = pg_xasprintf("refs/heads/%s", branch);
        char *rref = pg_xasprintf("refs/remotes/origin/%s", branch);
        int rc, error = 0;

        memset(t, 0, sizeof(*t));
        rc = git_reference_name_to_id(&t->local, repo, lref);
        if (rc == 0)
                t->has_local = true;
        else if (rc != GIT_ENOTFOUND) {
                error = pg_git_err(PG_EIO, "cannot read ref '%s'", lref);
                goto done;
        }
        rc = git_reference_name_to_id(&t->remote, repo, rref);
        if (rc == 0)
                t->has_remote = true;
        else if (rc != GIT_ENOTFOUND)
                error = pg_git_err(PG_EIO, "cannot read ref '%s'", rref);
done:
        free(lref);
        free(rref);
        return error;
}

/* Whether origin/<branch> is strictly ahead of (a descendant of) the local
 * branch: then it holds everything local has and more. */
static bool pg_remote_ahead(git_repository *repo, const struct pg_tips *t)
{
        if (!t->has_remote)
                return false;
        if (!t->has_local)
                return true;
        if (git_oid_equal(&t->local, &t->remote))
                return false;
        return git_graph_descendant_of(repo, &t->remote, &t->local) == 1;
}

/* The data-branch tree to read: local, or origin/ when it is ahead. Sets
 * *tree NULL (no error) when neither exists. */
int pg_store_read_tree(git_repository *repo, const char *branch, git_tree **tree, char **source_ref,
                       char **tip)
{
        struct pg_tips t;
        git_commit *c = NULL;
        const git_oid *id;
        int error;

        *tree = NULL;
        if ((error = pg_store_tips(repo, branch, &t)) < 0)
                return error;
        if (!t.has_local && !t.has_remote)
                return 0;
        if (pg_remote_ahead(repo, &t)) {
                id = &t.remote;
                *source_ref = pg_xasprintf("origin/%s", branch);
        } else {
                id = &t.local;
                *source_ref = pg_xstrdup(branch);
        }
        if (tip)
                *tip = pg_oid_hex(id);
        if (git_commit_lookup(&c, repo, id) < 0 || git_commit_tree(tree, c) < 0)
                error = pg_git_err(PG_EIO, "cannot read the tip of '%s'", *source_ref);
        git_commit_free(c);
        return error;
}

/* The branch FETCH_HEAD names: its first line (the commit FETCH_HEAD
 * resolves to) reads "<id>\t[not-for-merge]\tbranch 'NAME' of URL" (git's
 * builtin/fetch.c: append_fetch_head); NULL for a tag, a ref given by full
 * name, the remote's HEAD, or no FETCH_HEAD. Owned. */
static char *pg_fetch_head_branch(git_repository *repo)
{
        char *file = pg_xasprintf("%sFETCH_HEAD", git_repository_path(repo));
        struct pg_buf text = PG_BUF_INIT;
        char *name = NULL, *at, *end, *nl;

        if (pg_read_regular_file(file, 1 << 20, &text) == 0 && text.ptr) {
                if ((nl = strchr(text.ptr, '\n')) != NULL)
                        *nl = '\0';
                if ((at = strstr(text.ptr, "\tbranch '")) != NULL &&
                    (end = strstr(at + 9, "' of ")) != NULL && end > at + 9)
                        name = pg_xasprintf("%.*s", (int) (end - at - 9), at + 9);
        }
        pg_error_clear();
        pg_buf_release(&text);
        free(file);
        return name;
}

/* The remote branch @rev stands for: "origin/NAME" and a local or
 * remote-tracking branch by their names, FETCH_HEAD by the branch it was
 * fetched from; NULL when @rev names none (a tag, a commit, an expression).
 * Owned. */
static char *pg_remote_branch_of(git_repository *repo, const char *rev)
{
        git_reference *ref = NULL;
        char *name = NULL;

        if (strcmp(rev, "FETCH_HEAD") == 0)
                return pg_fetch_head_branch(repo);
        if (strncmp(rev, "origin/", 7) == 0 && rev[7])
                return pg_xstrdup(rev + 7);
        if (git_reference_dwim(&ref, repo, rev) == 0) {
                const char *full = git_reference_name(ref);
                if (strncmp(full, "refs/heads/", 11) == 0)
                        name = pg_xstrdup(full + 11);
                else if (strncmp(full, "refs/remotes/origin/", 20) == 0)
                        name = pg_xstrdup(full + 20);
        }
        git_reference_free(ref);
        git_error_clear();
        return name;
}

/* The fetch that brings remote branch @name (NULL: the clone's own
 * branches) into refs/remotes/origin/, whole when @shallow, and the data
 * branch @data too when not NULL. The destination is spelled out: a
 * single-branch clone (what --depth implies) fetches nothing else into
 * refs/remotes/ by default (git-fetch(1), "CONFIGURED REMOTE-TRACKING
 * BRANCHES"). Owned. */
static char *pg_fetch_command(const char *name, bool shallow, const char *data)
{
        char *base = name ? pg_xasprintf(" +refs/heads/%s:refs/remotes/origin/%s", name, name)
                          : pg_xstrdup("");
        char *more = data && (!name || strcmp(data, name) != 0)
                         ? pg_xasprintf(" +refs/heads/%s:refs/remotes/origin/%s", data, data)
                         : pg_xstrdup("");
        char *cmd =
            pg_xasprintf("git fetch%s origin%s%s", shallow ? " --unshallow" : "", base, more);
        free(base);
        free(more);
        return cmd;
}

/* Shallow-clone advice: the exact fetch that brings in the missing history
 * (of the branch @rev stands for, and the data branch @branch; not for
 * FETCH_HEAD, which that fetch rewrites: the base branch alone keeps it the
 * base). */
static int pg_shallow_error(git_repository *repo, const char *rev, const char *branch,
                            const char *what)
{
        bool fetch_head = rev && strcmp(rev, "FETCH_HEAD") == 0;
        char *name = rev ? pg_remote_branch_of(repo, rev) : NULL, *cmd = NULL;
        git_object *obj = NULL;
        int error;

        /* FETCH_HEAD fetched by id (or from a tag): fetched again by its id,
         * the same commit stays FETCH_HEAD */
        if (fetch_head && !name && git_revparse_single(&obj, repo, rev) == 0) {
                char hex[GIT_OID_HEXSZ + 1];
                git_oid_tostr(hex, sizeof(hex), git_object_id(obj));
                cmd = pg_xasprintf("git fetch --unshallow origin %s", hex);
                git_object_free(obj);
        }
        git_error_clear();
        if (cmd == NULL)
                cmd = pg_fetch_command(name, true, fetch_head ? NULL : branch);
        error = pg_error_set(PG_EINPUT,
                             "this is a shallow clone and %s; fetch the history: `%s` (GitHub "
                             "Actions: actions/checkout with `fetch-depth: 0`; GitLab: "
                             "GIT_DEPTH: 0)",
                             what, cmd);
        free(cmd);
        free(name);
        return error;
}

/* Resolve @rev to a commit id (anything git rev-parse takes). */
bool pg_store_is_revision(const struct pg_store_opts *o, const char *rev)
{
        struct pg_store_opts none = { 0 };
        git_repository *repo = NULL;
        git_oid id;
        bool yes = false;

        if (pg_git_init() < 0) {
                pg_error_clear();
                return false;
        }
        if (pg_store_open(&repo, o ? o : &none) == 0)
                yes = pg_store_resolve(repo, rev, &id) == 0;
        git_repository_free(repo);
        git_libgit2_shutdown();
        pg_error_clear();
        return yes;
}

int pg_store_resolve(git_repository *repo, const char *rev, git_oid *out)
{
        git_object *obj = NULL, *peeled = NULL;
        int rc, error = 0;

        /* ":/TEXT" searches the messages of every ref's commits, the data
         * branch's too (gitrevisions(7)): never the commit meant */
        if (strncmp(rev, ":/", 2) == 0)
                return pg_error_set(PG_EINPUT,
                                    "revision '%s' searches commit messages across every ref "
                                    "(the data branch's too); name the commit by hash, branch "
                                    "or tag",
                                    rev);
        rc = git_revparse_single(&obj, repo, rev);
        if (rc < 0 && (strcmp(rev, "HEAD") == 0 || strcmp(rev, "@") == 0) &&
            git_repository_head_unborn(repo) == 1)
                return pg_error_set(PG_EINPUT, "HEAD has no commit yet; commit something first");

        if (rc < 0 && strncmp(rev, "origin/", 7) != 0 && strpbrk(rev, "~^:@{}") == NULL) {
                /* a CI clone has origin/main but no local main: `compare main`
                 * means the remote-tracking branch then, as `git checkout main`
                 * would guess */
                char *remote = pg_xasprintf("refs/remotes/origin/%s", rev);
                rc = git_revparse_single(&obj, repo, remote);
                free(remote);
        }
        if (rc < 0) {
                /* what to fetch: "origin/main" is fetched as "main"; an expression
                 * ("HEAD~60", "v1^2") cannot be fetched by name */
                const char *name = strncmp(rev, "origin/", 7) == 0 ? rev + 7 : rev;
                bool shallow = git_repository_is_shallow(repo) == 1;
                char *cmd, *alt;
                if (strpbrk(rev, "~^:@{}") != NULL)
                        return pg_error_set(PG_ENOTFOUND,
                                            "unknown revision '%s'%s; it is not in this "
                                            "repository's history%s",
                                            rev, shallow ? " (this is a shallow clone)" : "",
                                            shallow ? ": fetch the whole history with `git "
                                                      "fetch --unshallow origin` (GitHub "
                                                      "Actions: `fetch-depth: 0`)"
                                                    : "");
                if (strcmp(rev, "FETCH_HEAD") == 0)
                        return pg_error_set(
                            PG_ENOTFOUND,
                            "unknown revision 'FETCH_HEAD': nothing was fetched into it; fetch "
                            "the base branch with `git fetch%s origin "
                            "+refs/heads/BASE:refs/remotes/origin/BASE` and compare origin/BASE",
                            shallow ? " --unshallow" : "");
                /* a branch by default; a bare name may be a tag, a full
                 * commit id is fetched by id */
                if (strlen(name) == GIT_OID_HEXSZ &&
                    strspn(name, "0123456789abcdef") == GIT_OID_HEXSZ) {
                        cmd = pg_xasprintf("git fetch%s origin %s", shallow ? " --unshallow" : "",
                                           name);
                        alt = pg_xstrdup("");
                } else {
                        cmd = pg_fetch_command(name, shallow, NULL);
                        alt = name == rev ? pg_xasprintf(" (a tag: `git fetch%s origin tag %s`)",
                                                         shallow ? " --unshallow" : "", name)
                                          : pg_xstrdup("");
                }
                if (shallow)
                        pg_error_set(PG_ENOTFOUND,
                                     "unknown revision '%s' (this is a shallow clone); fetch it "
                                     "with `%s`%s (GitHub Actions: `fetch-depth: 0`)",
                                     rev, cmd, alt);
                else
                        pg_error_set(PG_ENOTFOUND,
                                     "unknown revision '%s' (neither a local branch, tag or "
                                     "commit nor origin/%s); if it exists on the remote, fetch "
                                     "it with `%s`%s",
                                     rev, name, cmd, alt);
                free(cmd);
                free(alt);
                return PG_ENOTFOUND;
        }
        if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
                error = pg_git_err(PG_EINPUT, "revision '%s' does not name a commit", rev);
                goto done;
        }
        git_oid_cpy(out, git_object_id(peeled));
done:
        git_object_free(peeled);
        git_object_free(obj);
        return error;
}

/* ---- loading ------------------------------------------------------------ */

static bool pg_is_json_name(const char *name)
{
        size_t len = strlen(name);
        return len > 5 && name[0] != '.' && strcmp(name + len - 5, ".json") == 0;
}

/* Warn (into @warn, one line each) where the result @r stored at
 * `<machine>/<commit>/<file>` (@origin) says something else than its path:
 * what `perfgate run` wrote is filed under its own machine and commit, so a
 * mismatch is a save with --force or --machine, or a hand edit. */
static void pg_store_check_path(const struct pg_result *r, const char *origin, const char *prefix,
                                struct pg_buf *warn)
{
        const char *slash = strchr(prefix, '/');
        size_t mlen = slash ? (size_t) (slash - prefix) : strlen(prefix);
        const char *commit = slash ? slash + 1 : "";
        const char *machine = r->machine ? r->machine : "default";

        if (!warn)
                return;
        if (strlen(machine) != mlen || strncmp(machine, prefix, mlen) != 0)
                pg_buf_printf(warn, "baseline '%s' was measured on machine '%s', not '%.*s'\n",
                              origin, machine, (int) mlen, prefix);
        if (!r->has_git || !r->git_commit)
                pg_buf_printf(warn, "baseline '%s' records no git commit (saved with --force)\n",
                              origin);
        else if (strcmp(r->git_commit, commit) != 0)
                pg_buf_printf(warn,
                              "baseline '%s' was measured at commit %.12s, not %.12s (saved "
                              "with --force)\n",
                              origin, r->git_commit, commit);
        if (r->has_git && r->git_dirty)
                pg_buf_printf(warn,
                              "baseline '%s' was measured on a dirty work tree (saved with "
                              "--force)\n",
                              origin);
}

/* Load every <name>.json blob of @dir (the tree `<machine>/<commit>`) into
 * @out, naming each "source_ref:machine/commit/name.json" in errors. */
int pg_store_load_dir(git_repository *repo, const git_tree *dir, const char *source_ref,
                      const char *prefix, struct pg_result_set *out, struct pg_buf *warn)
{
        size_t n = git_tree_entrycount(dir);
        git_odb *odb = NULL;
        int error = 0;

        if (git_repository_odb(&odb, repo) < 0)
                return pg_git_err(PG_EIO, "cannot open the object database");
        for (size_t i = 0; i < n && !error; i++) {
                const git_tree_entry *e = git_tree_entry_byindex(dir, i);
                const char *name = git_tree_entry_name(e);
                git_filemode_t mode = git_tree_entry_filemode(e);
                git_blob *blob = NULL;
                git_object_t type;
                size_t size = 0;
                struct pg_result r;
                char *origin;

                if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || !pg_is_json_name(name))
                        continue;
                origin = pg_xasprintf("%s:%s/%s", source_ref, prefix, name);
                if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) {
                        /* a symbolic link's blob is its target's path, not a result */
                        if (warn)
                                pg_buf_printf(warn,
                                              "'%s' is a symbolic link, not a result: skipped\n",
                                              origin);
                        free(origin);
                        continue;
                }
                pg_result_init(&r);
                if (git_odb_read_header(&size, &type, odb, git_tree_entry_id(e)) < 0) {
                        error = pg_git_err(PG_EIO, "cannot read baseline '%s'", origin);
                } else if (size > PG_STORE_MAX_BLOB) {
                        error = pg_error_set(PG_EINPUT,
                                             "baseline '%s' is %zu MiB, over the %d MiB a stored "
                                             "result may hold; it is not read (remove it from the "
                                             "data branch)",
                                             origin, size >> 20, PG_STORE_MAX_BLOB >> 20);
                } else if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0) {
                        error = pg_git_err(PG_EIO, "cannot read baseline '%s'", origin);
                } else if ((error = pg_result_from_json(&r, git_blob_rawcontent(blob),
                                                        (size_t) git_blob_rawsize(blob), origin)) <
                           0) {
                        pg_error_prefix(error, "corrupt baseline '%s'", origin);
                } else if (strlen(r.name) + 5 != strlen(name) ||
                           strncmp(r.name, name, strlen(r.name)) != 0) {
                        if (warn)
                                pg_buf_printf(warn,
                                              "'%s' holds benchmark '%s', not '%.*s': skipped (a "
                                              "baseline is stored as <benchmark>.json)\n",
                                              origin, r.name, (int) (strlen(name) - 5), name);
                } else {
                        pg_store_check_path(&r, origin, prefix, warn);
                        if ((error = pg_result_set_add(out, &r)) < 0)
                                pg_error_prefix(error, "baseline '%s'", origin);
                }
                pg_result_release(&r);
                git_blob_free(blob);
                free(origin);
        }
        git_odb_free(odb);
        if (error)
                pg_result_set_release(out);
        return error;
}

/* The subtree @name of @tree, or NULL (no error) when absent or a blob. */
int pg_subtree(git_repository *repo, const git_tree *tree, const char *name, git_tree **out)
{
        const git_tree_entry *e = git_tree_entry_byname(tree, name);

        *out = NULL;
        if (!e || git_tree_entry_type(e) != GIT_OBJECT_TREE)
                return 0;
        if (git_tree_lookup(out, repo, git_tree_entry_id(e)) < 0)
                return pg_git_err(PG_EIO, "cannot read tree '%s'", name);
        return 0;
}

/* Name in info->other_machines (", "-separated, NULL when none) every
 * machine of @data other than @machine with a baseline at one of the
 * commits @walked lists (one hex a line): a baseline job and a PR job that
 * use different machine names would otherwise find nothing, silently. */
static int pg_store_other_machines(git_repository *repo, const git_tree *data, const char *machine,
                                   const char *walked, struct pg_store_lookup *info)
{
        struct pg_buf names = PG_BUF_INIT;

        for (size_t i = 0; walked && i < git_tree_entrycount(data); i++) {
                const git_tree_entry *e = git_tree_entry_byindex(data, i);
                const char *name = git_tree_entry_name(e);
                git_tree *mt = NULL;
                bool any = false;
                int error;

                if (strcmp(name, machine) == 0)
                        continue;
                if ((error = pg_subtree(repo, data, name, &mt)) < 0) {
                        pg_buf_release(&names);
                        return error;
                }
                for (const char *l = walked; mt && !any && *l;) {
                        const char *nl = strchr(l, '\n');
                        char hex[GIT_OID_HEXSZ + 1];
                        size_t len = nl ? (size_t) (nl - l) : strlen(l);
                        if (len < sizeof(hex)) {
                                const git_tree_entry *d;
                                memcpy(hex, l, len);
                                hex[len] = 0;
                                d = git_tree_entry_byname(mt, hex);
                                any = d && git_tree_entry_type(d) == GIT_OBJECT_TREE;
                        }
                        l += len + (nl ? 1 : 0);
                }
                git_tree_free(mt);
                if (any)
                        pg_buf_printf(&names, "%s%s", names.len ? ", " : "", name);
        }
        if (names.len)
                info->other_machines = pg_buf_detach(&names, NULL);
        pg_buf_release(&names);
        return 0;
}

int pg_store_find_baseline(const struct pg_store_opts *o, const char *rev, unsigned max_walk,
                           struct pg_result_set *out, struct pg_store_lookup *info)
{
        const char *branch = pg_store_branch(o);
        const char *machine = o && o->machine ? o->machine : "default";
        git_repository *repo = NULL;
        git_tree *data = NULL, *mtree = NULL, *dir = NULL;
        git_commit *c = NULL;
        git_oid head, base, mb, cur;
        struct pg_buf walked = PG_BUF_INIT; /* the commits searched, one hex a line */
        unsigned dist;
        int rc, error;

        memset(info, 0, sizeof(*info));
        if ((error = pg_git_init()) < 0)
                return error;
        if ((error = pg_store_check_branch(branch)) < 0 ||
            (error = pg_store_check_machine(machine)) < 0 ||
            (error = pg_store_open(&repo, o)) < 0 ||
            (error = pg_store_resolve(repo, rev, &base)) < 0 ||
            (error = pg_store_head(repo, &head)) < 0)
                goto done;
        info->base_commit = pg_oid_hex(&base);
        rc = git_merge_base(&mb, repo, &head, &base);
        if (rc < 0) {
                char *what;
                struct pg_tips t;
                /* the data branch itself, an orphan (FETCH_HEAD after
                 * fetching it, as README's step 3 does): baselines, not the
                 * project */
                const git_error *ge = git_error_last();
                char *detail = pg_xstrdup(ge && ge->message ? ge->message : "unknown error");
                if ((error = pg_store_tips(repo, branch, &t)) < 0) {
                        free(detail);
                        goto done;
                }
                if ((t.has_local && git_oid_equal(&t.local, &base)) ||
                    (t.has_remote && git_oid_equal(&t.remote, &base))) {
                        error = pg_error_set(
                            PG_EINPUT,
                            "'%s' is the tip of the data branch '%s'%s, which holds baselines, "
                            "not the project's history; compare the base branch: `git fetch%s "
                            "origin +refs/heads/BASE:refs/remotes/origin/BASE`, then `perfgate "
                            "compare origin/BASE`",
                            rev, branch,
                            strcmp(rev, "FETCH_HEAD") == 0 ? " (what the last git fetch fetched)"
                                                           : "",
                            git_repository_is_shallow(repo) == 1 ? " --unshallow" : "");
                } else if (git_repository_is_shallow(repo) == 1) {
                        what = pg_xasprintf("the merge-base of HEAD and '%s' is not in it", rev);
                        error = pg_shallow_error(repo, rev, branch, what);
                        free(what);
                } else if (rc == GIT_ENOTFOUND) {
                        error = pg_error_set(PG_EINPUT,
                                             "HEAD and '%s' have no common ancestor; compare "
                                             "against a revision of this project's history",
                                             rev);
                } else {
                        error = pg_error_set(
                            PG_EIO, "cannot find the merge-base of HEAD and '%s': %s", rev, detail);
                }
                free(detail);
                goto done;
        }
        info->merge_base = pg_oid_hex(&mb);
        if ((error = pg_store_read_tree(repo, branch, &data, &info->source_ref, NULL)) < 0)
                goto done;
        if (!data)
                goto done; /* no data branch: no baseline, not an error */
        if ((error = pg_subtree(repo, data, machine, &mtree)) < 0)
                goto done;
        /* the walk runs even without this machine's tree, to name the
         * machines that have a baseline on it (pg_store_other_machines) */
        git_oid_cpy(&cur, &mb);
        for (dist = 0;; dist++) {
                char hex[GIT_OID_HEXSZ + 1];
                git_oid_tostr(hex, sizeof(hex), &cur);
                pg_buf_printf(&walked, "%s\n", hex);
                if (mtree && (error = pg_subtree(repo, mtree, hex, &dir)) < 0)
                        goto done;
                if (dir) {
                        char *prefix = pg_xasprintf("%s/%s", machine, hex);
                        struct pg_buf warn = PG_BUF_INIT;
                        error = pg_store_load_dir(repo, dir, info->source_ref, prefix, out, &warn);
                        if (warn.len)
                                info->warnings = pg_buf_detach(&warn, NULL);
                        pg_buf_release(&warn);
                        free(prefix);
                        if (error < 0)
                                goto done;
                        info->found = true;
                        info->used_commit = pg_xstrdup(hex);
                        info->distance = dist;
                        break;
                }
                if (dist >= max_walk)
                        break;
                git_commit_free(c);
                c = NULL;
                if (git_commit_lookup(&c, repo, &cur) < 0) {
                        if (!mtree)
                                break; /* only looking for other machines */
                        if (git_repository_is_shallow(repo) == 1) {
                                char *what = pg_xasprintf(
                                    "the history is cut at %.12s, %u commits before the "
                                    "merge-base, with no baseline found",
                                    hex, dist);
                                error = pg_shallow_error(repo, rev, branch, what);
                                free(what);
                        } else {
                                error = pg_git_err(PG_EIO, "cannot read commit %s", hex);
                        }
                        goto done;
                }
                if (git_commit_parentcount(c) == 0)
                        break; /* root reached */
                git_oid_cpy(&cur, git_commit_parent_id(c, 0));
        }
        if (!info->found)
                error = pg_store_other_machines(repo, data, machine, walked.ptr, info);
done:
        pg_buf_release(&walked);
        if (error)
                pg_store_lookup_release(info);
        git_commit_free(c);
        git_tree_free(dir);
        git_tree_free(mtree);
        git_tree_free(data);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return error;
}

/* Resolve @rev for `baseline show`: a revision, else a unique hex prefix of
 * a commit directory under @mtree (the commit may not be in this clone). */
static int pg_store_resolve_stored(git_repository *repo, const git_tree *mtree, const char *rev,
                                   char **hex_out)
{
        git_oid id;
        size_t len = strlen(rev), matches = 0;
        const char *match = NULL;
        int error = pg_store_resolve(repo, rev, &id);

        if (error == 0) {
                *hex_out = pg_oid_hex(&id);
                return 0;
        }
        if (!mtree || len < 4 || len > GIT_OID_HEXSZ || strspn(rev, "0123456789abcdef") != len)
                return error;
        for (size_t i = 0; i < git_tree_entrycount(mtree); i++) {
                const char *name = git_tree_entry_name(git_tree_entry_byindex(mtree, i));
                if (strncmp(name, rev, len) == 0) {
                        match = name;
                        matches++;
                }
        }
        if (matches == 0)
                return error; /* keep the unknown-revision message */
        if (matches > 1)
                return pg_error_set(PG_EINPUT,
                                    "short commit '%s' is ambiguous on the data branch; give more "
                                    "digits",
                                    rev);
        pg_error_clear();
        *hex_out = pg_xstrdup(match);
        return 0;
}

int pg_store_load_commit(const struct pg_store_opts *o, const char *rev, struct pg_result_set *out,
                         struct pg_store_lookup *info)
{
        const char *branch = pg_store_branch(o);
        const char *machine = o && o->machine ? o->machine : "default";
        git_repository *repo = NULL;
        git_tree *data = NULL, *mtree = NULL, *dir = NULL;
        char *hex = NULL;
        int error;

        memset(info, 0, sizeof(*info));
        if ((error = pg_git_init()) < 0)
                return error;
        if ((error = pg_store_check_branch(branch)) < 0 ||
            (error = pg_store_check_machine(machine)) < 0 ||
            (error = pg_store_open(&repo, o)) < 0 ||
            (error = pg_store_read_tree(repo, branch, &data, &info->source_ref, NULL)) < 0)
                goto done;
        if (data && (error = pg_subtree(repo, data, machine, &mtree)) < 0)
                goto done;
        if ((error = pg_store_resolve_stored(repo, mtree, rev, &hex)) < 0)
                goto done;
        info->base_commit = pg_xstrdup(hex);
        if (!mtree || (error = pg_subtree(repo, mtree, hex, &dir)) < 0 || !dir)
                goto done;
        {
                char *prefix = pg_xasprintf("%s/%s", machine, hex);
                struct pg_buf warn = PG_BUF_INIT;
                error = pg_store_load_dir(repo, dir, info->source_ref, prefix, out, &warn);
                if (warn.len)
                        info->warnings = pg_buf_detach(&warn, NULL);
                pg_buf_release(&warn);
                free(prefix);
        }
        if (error == 0) {
                info->found = true;
                info->used_commit = pg_xstrdup(hex);
        }
done:
        if (error)
                pg_store_lookup_release(info);
        free(hex);
        git_tree_free(dir);
        git_tree_free(mtree);
        git_tree_free(data);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return error;
}

/* ---- listing ------------------------------------------------------------ */

void pg_store_list_release(struct pg_store_list *l)
{
        for (size_t i = 0; i < l->n; i++) {
                struct pg_store_entry *e = &l->items[i];
                free(e->machine);
                free(e->commit);
                free(e->summary);
                for (size_t j = 0; j < e->nbenchmarks; j++)
                        free(e->benchmarks[j]);
                free(e->benchmarks);
        }
        free(l->items);
        free(l->source_ref);
        free(l->tip);
        memset(l, 0, sizeof(*l));
}

static int pg_entry_cmp(const void *a, const void *b)
{
        const struct pg_store_entry *x = a, *y = b;
        int c;
        if (x->time_s != y->time_s)
                return x->time_s > y->time_s ? -1 : 1;
        if ((c = strcmp(x->commit, y->commit)) != 0)
                return c;
        return strcmp(x->machine, y->machine);
}

/* Add one `<machine>/<commit>/` directory to @l. */
static int pg_store_list_dir(git_repository *repo, struct pg_store_list *l, const char *machine,
                             const char *commit, const git_tree *dir)
{
        struct pg_store_entry *e;
        git_oid id;
        git_commit *c = NULL;

        l->items = pg_xreallocarray(l->items, l->n + 1, sizeof(*l->items));
        e = &l->items[l->n++];
        memset(e, 0, sizeof(*e));
        e->machine = pg_xstrdup(machine);
        e->commit = pg_xstrdup(commit);
        e->benchmarks = pg_xcalloc(git_tree_entrycount(dir) + 1, sizeof(char *));
        for (size_t i = 0; i < git_tree_entrycount(dir); i++) {
                const git_tree_entry *te = git_tree_entry_byindex(dir, i);
                const char *name = git_tree_entry_name(te);
                if (git_tree_entry_type(te) == GIT_OBJECT_BLOB && pg_is_json_name(name))
                        e->benchmarks[e->nbenchmarks++] = pg_xstrndup(name, strlen(name) - 5);
        }
        /* tree entries are sorted by name, so the benchmark names are too */
        if (git_oid_fromstr(&id, commit) == 0 && git_commit_lookup(&c, repo, &id) == 0) {
                e->time_s = (long long) git_commit_time(c);
                e->summary = pg_xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
        }
        git_commit_free(c);
        git_error_clear();
        return 0;
}

int pg_store_list_load(const struct pg_store_opts *o, struct pg_store_list *l)
{
        const char *branch = pg_store_branch(o);
        git_repository *repo = NULL;
        git_tree *data = NULL;
        int error;

        memset(l, 0, sizeof(*l));
        if ((error = pg_git_init()) < 0)
                return error;
        if ((error = pg_store_check_branch(branch)) < 0 ||
            (o && o->machine && (error = pg_store_check_machine(o->machine)) < 0) ||
            (error = pg_store_open(&repo, o)) < 0 ||
            (error = pg_store_read_tree(repo, branch, &data, &l->source_ref, &l->tip)) < 0 || !data)
                goto done;
        for (size_t i = 0; i < git_tree_entrycount(data) && !error; i++) {
                const git_tree_entry *me = git_tree_entry_byindex(data, i);
                const char *machine = git_tree_entry_name(me);
                git_tree *mtree = NULL;

                if (o && o->machine && strcmp(o->machine, machine) != 0)
                        continue;
                if ((error = pg_subtree(repo, data, machine, &mtree)) < 0 || !mtree)
                        continue;
                for (size_t j = 0; j < git_tree_entrycount(mtree) && !error; j++) {
                        const char *commit = git_tree_entry_name(git_tree_entry_byindex(mtree, j));
                        git_tree *dir = NULL;
                        if ((error = pg_subtree(repo, mtree, commit, &dir)) == 0 && dir)
                                error = pg_store_list_dir(repo, l, machine, commit, dir);
                        git_tree_free(dir);
                }
                git_tree_free(mtree);
        }
        if (l->n)
                qsort(l->items, l->n, sizeof(*l->items), pg_entry_cmp);
done:
        if (error)
                pg_store_list_release(l);
        git_tree_free(data);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return error;
}

/* ---- saving ------------------------------------------------------------- */

/* The machine to file @results under: @o->machine, else the one the results
 * record (they must agree), else "default". */
static int pg_store_save_machine(const struct pg_store_opts *o, const struct pg_result_set *results,
                                 const char **machine)
{
        const char *m = NULL;

        if (o && o->machine) {
                *machine = o->machine;
                return pg_store_check_machine(o->machine);
        }
        for (size_t i = 0; i < results->n; i++) {
                const char *rm = results->items[i].machine ? results->items[i].machine : "default";
                if (m && strcmp(m, rm) != 0)
                        return pg_error_set(PG_EINPUT,
                                            "the results were measured on different machines "
                                            "('%s' and '%s'); save each machine's results "
                                            "separately or pass --machine",
                                            m, rm);
                m = rm;
        }
        *machine = m ? m : "default";
        return pg_store_check_machine(*machine);
}

/* Refuse results that are not a clean measurement of HEAD, unless @force. */
static int pg_store_check_results(const struct pg_result_set *results, const char *head_hex,
                                  bool force)
{
        for (size_t i = 0; i < results->n && !force; i++) {
                const struct pg_result *r = &results->items[i];
                if (!r->has_git || !r->git_commit)
                        return pg_error_set(PG_EINPUT,
                                            "result '%s' records no git commit, so it cannot be "
                                            "filed under HEAD (%.12s); rerun `perfgate run` in "
                                            "the repository, or pass --force",
                                            r->name, head_hex);
                if (strcmp(r->git_commit, head_hex) != 0)
                        return pg_error_set(PG_EINPUT,
                                            "result '%s' was measured at commit %.12s but HEAD "
                                            "is %.12s; rerun `perfgate run` at HEAD, check out "
                                            "%.12s, or pass --force",
                                            r->name, r->git_commit, head_hex, r->git_commit);
                if (r->git_dirty)
                        return pg_error_set(PG_EINPUT,
                                            "result '%s' was measured on a dirty work tree "
                                            "(uncommitted changes), so it is not the baseline of "
                                            "%.12s; commit or stash, rerun, or pass --force",
                                            r->name, head_hex);
        }
        return 0;
}

/* PG_EINPUT: entry @path of @where (a ref) is something a data branch cannot
 * hold (@why), with the repair. */
static int pg_store_bad_entry(const char *path, const char *where, const char *branch,
                              const char *why)
{
        return pg_error_set(
            PG_EINPUT,
            "'%s' on %s %s, so perfgate does not write on branch '%s' (a data branch holds "
            "only <machine>/<commit>/<benchmark>.json: docs/baseline.md); if '%s' is perfgate's "
            "data branch edited by hand, remove that entry (or, on the local branch, reset it "
            "to the remote's: `git branch -f %s origin/%s`); otherwise pick another --branch",
            path, where, why, branch, branch, branch, branch);
}

/*
 * Whether @tree (the tip of @where, a ref of @branch) looks like a perfgate
 * data branch, so that a save never writes onto a project branch or onto a
 * tree git refuses: every top-level entry is a directory with a valid
 * machine name (pg_machine_name_why()), and every entry of those is a
 * directory whose name git accepts (pg_path_component_why()); an empty tree
 * qualifies. Files below `<machine>/<commit>/` are not read.
 * Errors: PG_EINPUT naming the first offending entry and the repair.
 */
static int pg_store_check_shape(git_repository *repo, git_tree *tree, const char *where,
                                const char *branch)
{
        int error = 0;

        for (size_t i = 0; i < git_tree_entrycount(tree) && !error; i++) {
                const git_tree_entry *me = git_tree_entry_byindex(tree, i);
                const char *m = git_tree_entry_name(me);
                git_tree *mt = NULL;

                if (git_tree_entry_type(me) != GIT_OBJECT_TREE)
                        return pg_store_bad_entry(m, where, branch,
                                                  "is a file where machine directories belong");
                if (pg_machine_name_why(m))
                        return pg_store_bad_entry(m, where, branch, pg_machine_name_why(m));
                if (git_tree_lookup(&mt, repo, git_tree_entry_id(me)) < 0)
                        return pg_git_err(PG_EIO, "cannot read tree '%s' of %s", m, where);
                for (size_t j = 0; j < git_tree_entrycount(mt) && !error; j++) {
                        const git_tree_entry *ce = git_tree_entry_byindex(mt, j);
                        const char *c = git_tree_entry_name(ce);
                        char *path = pg_xasprintf("%s/%s", m, c);
                        if (pg_path_component_why(c))
                                error = pg_store_bad_entry(path, where, branch,
                                                           pg_path_component_why(c));
                        else if (git_tree_entry_type(ce) != GIT_OBJECT_TREE)
                                error = pg_store_bad_entry(
                                    path, where, branch,
                                    "is a file where <commit>/ directories belong");
                        free(path);
                }
                git_tree_free(mt);
        }
        return error;
}

/* Add to @updates (upserts into @base) every `<machine>/<commit>/<file>` of
 * @other that @base lacks: the baselines of a local branch that diverged
 * from origin/<branch>, carried into the commit built on origin. */
static int pg_store_union(git_repository *repo, git_tree *base, git_tree *other, const char *branch,
                          git_tree_update **updates, size_t *n, char ***paths, size_t *npaths)
{
        int error = 0;

        for (size_t i = 0; i < git_tree_entrycount(other) && !error; i++) {
                const char *m = git_tree_entry_name(git_tree_entry_byindex(other, i));
                git_tree *mt = NULL;
                if ((error = pg_subtree(repo, other, m, &mt)) < 0 || !mt)
                        continue;
                for (size_t j = 0; j < git_tree_entrycount(mt) && !error; j++) {
                        const char *c = git_tree_entry_name(git_tree_entry_byindex(mt, j));
                        git_tree *ct = NULL;
                        if ((error = pg_subtree(repo, mt, c, &ct)) < 0 || !ct)
                                continue;
                        for (size_t k = 0; k < git_tree_entrycount(ct) && !error; k++) {
                                const git_tree_entry *fe = git_tree_entry_byindex(ct, k);
                                git_filemode_t mode = git_tree_entry_filemode(fe);
                                git_tree_entry *have = NULL;
                                char *path;
                                /* results only: a symbolic link is not carried over */
                                if (mode != GIT_FILEMODE_BLOB &&
                                    mode != GIT_FILEMODE_BLOB_EXECUTABLE)
                                        continue;
                                path = pg_xasprintf("%s/%s/%s", m, c, git_tree_entry_name(fe));
                                if (pg_path_component_why(git_tree_entry_name(fe))) {
                                        error = pg_store_bad_entry(
                                            path, "the local branch", branch,
                                            pg_path_component_why(git_tree_entry_name(fe)));
                                        free(path);
                                        continue;
                                }
                                if (base && git_tree_entry_bypath(&have, base, path) == 0) {
                                        git_tree_entry_free(have);
                                        free(path);
                                        continue;
                                }
                                *updates = pg_xreallocarray(*updates, *n + 1, sizeof(**updates));
                                (*updates)[*n] =
                                    (git_tree_update){ GIT_TREE_UPDATE_UPSERT,
                                                       *git_tree_entry_id(fe), mode, path };
                                (*n)++;
                                *paths = pg_xreallocarray(*paths, *npaths + 1, sizeof(**paths));
                                (*paths)[(*npaths)++] = path;
                        }
                        git_tree_free(ct);
                }
                git_tree_free(mt);
        }
        if (!error)
                git_error_clear();
        return error;
}

/* The edits of one commit: upserts and removals relative to the tree it is
 * built on, with the paths they point to (owned). */
struct pg_tree_edits {
        git_tree_update *u;
        size_t n;
        char **paths;
        size_t npaths;
};

static void pg_tree_edits_add(struct pg_tree_edits *e, git_tree_update_t action, const git_oid *id,
                              char *path)
{
        e->u = pg_xreallocarray(e->u, e->n + 1, sizeof(*e->u));
        e->u[e->n] = (git_tree_update){ action, { { 0 } }, GIT_FILEMODE_BLOB, path };
        if (id)
                e->u[e->n].id = *id;
        e->n++;
        e->paths = pg_xreallocarray(e->paths, e->npaths + 1, sizeof(*e->paths));
        e->paths[e->npaths++] = path;
}

static void pg_tree_edits_release(struct pg_tree_edits *e)
{
        for (size_t i = 0; i < e->npaths; i++)
                free(e->paths[i]);
        free(e->paths);
        free(e->u);
        memset(e, 0, sizeof(*e));
}

/*
 * One commit on a data branch, made by pg_store_commit(). @build fills the
 * edits (relative to @base, the tree built on) and the message; @other is
 * the tree of a diverged local tip that becomes the second parent (only with
 * @merge_diverged; otherwise a diverged local tip is dropped and the commit
 * built on origin). It may be called again on a newer tip.
 */
struct pg_commit_plan {
        const char *branch;
        const char *reflog;
        bool merge_diverged;
        size_t max_history; /* > 0: squash (see store.h, pg_assets_publish()) */
        int (*build)(void *ctx, git_repository *repo, git_tree *base, const char *base_ref,
                     git_tree *other, struct pg_tree_edits *e, struct pg_buf *msg);
        void *ctx;
};

struct pg_commit_done {
        git_oid id;
        bool created_branch, from_remote, merged_local, squashed;
        bool no_local; /* from_remote, and there was no local branch at all */
};

/* Whether the first-parent history from @tip holds at least @n commits. */
static bool pg_history_reaches(git_repository *repo, const git_oid *tip, size_t n)
{
        git_commit *c = NULL, *p = NULL;
        size_t count = 0;

        if (git_commit_lookup(&c, repo, tip) < 0) {
                git_error_clear();
                return false;
        }
        while (c && ++count < n) {
                if (git_commit_parentcount(c) == 0 || git_commit_parent(&p, c, 0) < 0)
                        break;
                git_commit_free(c);
                c = p;
                p = NULL;
        }
        git_commit_free(c);
        git_error_clear();
        return count >= n;
}

/* 0 when the object @id (@what, for the message) can be read back from
 * @repo's object database. libgit2 1.5 can report a loose object written
 * when its write failed: on a full disk git_commit_create() returned 0
 * after two ENOSPC writes of the commit, and only the ref's update then
 * failed, saying "target OID for the reference doesn't exist". Called
 * before the ref moves, so a failure saves nothing. Errors: PG_EIO
 * "cannot write WHAT to 'REPO': ... (is the disk full?) ...". */
static int pg_store_written(git_repository *repo, const git_oid *id, const char *what)
{
        git_odb *odb = NULL;
        git_object_t type;
        size_t size;
        int rc;

        if (git_repository_odb(&odb, repo) < 0)
                return pg_git_err(PG_EIO, "cannot open the object database");
        rc = git_odb_read_header(&size, &type, odb, id);
        git_odb_free(odb);
        if (rc == 0)
                return 0;
        git_error_clear();
        return pg_error_set(PG_EIO,
                            "cannot write %s to '%s': it is missing from the object database "
                            "right after its write (is the disk full?); nothing was saved: free "
                            "some space, then run this again",
                            what, git_repository_path(repo));
}

/* After a failed save or publish on @branch: a full disk's message (a
 * blob, tree, commit, reflog or ref write) says that the branch did not
 * move and what to do (pg_error_disk_full_note()). Returns @code. */
static int pg_store_disk_full_note(int code, const char *branch)
{
        return pg_error_disk_full_note(code, "nothing was saved: branch '%s' is unchanged", branch);
}

/* Write the @len bytes at @data to @repo as a blob, its id into *@id, and
 * read it back (pg_store_written()). @kind ("baseline " or "") and @name
 * (a benchmark or file name) name it in messages. Errors: PG_EIO. */
static int pg_store_blob(git_repository *repo, git_oid *id, const void *data, size_t len,
                         const char *kind, const char *name)
{
        char *what = pg_xasprintf("%s'%s'", kind, name);
        int error = 0;

        if (git_blob_create_from_buffer(id, repo, data, len) < 0)
                error = pg_git_err(PG_EIO, "cannot write %s to the object database", what);
        else
                error = pg_store_written(repo, id, what);
        free(what);
        return error;
}

/* Build one commit of @plan on the current tips and try to move the branch
 * to it. Returns 0 when the ref moved, PG_ECONFLICT when another writer
 * moved it first (the caller retries), another PG_E* on failure. */
static int pg_store_commit_once(git_repository *repo, const struct pg_commit_plan *plan,
                                const git_signature *sig, struct pg_commit_done *done)
{
        const char *branch = plan->branch;
        char *lref = pg_xasprintf("refs/heads/%s", branch);
        struct pg_tips t;
        git_commit *parents[2] = { NULL, NULL };
        size_t nparents = 0;
        git_tree *base = NULL, *other = NULL, *tree = NULL, *empty = NULL;
        struct pg_tree_edits edits = { 0 };
        git_oid tree_id;
        git_reference *ref = NULL;
        struct pg_buf msg = PG_BUF_INIT;
        char *base_ref;
        int rc, error;

        memset(done, 0, sizeof(*done));
        if ((error = pg_store_tips(repo, branch, &t)) < 0)
                goto done;
        if (t.has_remote && pg_remote_ahead(repo, &t)) {
                rc = git_commit_lookup(&parents[nparents++], repo, &t.remote);
                done->from_remote = true;
                done->no_local = !t.has_local;
        } else if (t.has_local && t.has_remote && !git_oid_equal(&t.local, &t.remote) &&
                   git_graph_descendant_of(repo, &t.local, &t.remote) != 1) {
                /* diverged: build on origin (and carry the local tip over) */
                rc = git_commit_lookup(&parents[nparents++], repo, &t.remote);
                if (rc == 0 && plan->merge_diverged)
                        rc = git_commit_lookup(&parents[nparents++], repo, &t.local);
                done->from_remote = true;
                done->merged_local = plan->merge_diverged;
        } else if (t.has_local) {
                rc = git_commit_lookup(&parents[nparents++], repo, &t.local);
        } else {
                rc = 0;
                done->created_branch = true;
        }
        if (rc < 0) {
                error = pg_git_err(PG_EIO, "cannot read the tip of '%s'", branch);
                goto done;
        }
        if (nparents > 0 && git_commit_tree(&base, parents[0]) < 0) {
                error = pg_git_err(PG_EIO, "cannot read the tree of '%s'", branch);
                goto done;
        }
        if (!base) {
                git_treebuilder *tb = NULL;
                git_oid empty_id;
                if (git_treebuilder_new(&tb, repo, NULL) < 0 ||
                    git_treebuilder_write(&empty_id, tb) < 0 ||
                    git_tree_lookup(&empty, repo, &empty_id) < 0) {
                        git_treebuilder_free(tb);
                        error = pg_git_err(PG_EIO, "cannot write an empty tree");
                        goto done;
                }
                git_treebuilder_free(tb);
                base = empty;
                empty = NULL;
        }
        if (nparents == 2 && git_commit_tree(&other, parents[1]) < 0) {
                error = pg_git_err(PG_EIO, "cannot read the tree of '%s'", branch);
                goto done;
        }
        base_ref = !nparents           ? NULL
                   : done->from_remote ? pg_xasprintf("'origin/%s'", branch)
                                       : pg_xasprintf("branch '%s'", branch);
        error = plan->build(plan->ctx, repo, base, base_ref, other, &edits, &msg);
        free(base_ref);
        if (error < 0)
                goto done;
        if (git_tree_create_updated(&tree_id, repo, base, edits.n, edits.u) < 0 ||
            git_tree_lookup(&tree, repo, &tree_id) < 0) {
                error = pg_git_err(PG_EIO, "cannot write the tree of '%s'", branch);
                goto done;
        }
        /* Squash: a root commit holding the whole tree, so the branch's
         * history never grows past max_history commits. */
        if (plan->max_history > 0 && nparents == 1 &&
            pg_history_reaches(repo, git_commit_id(parents[0]), plan->max_history)) {
                done->squashed = true;
                nparents = 0;
                pg_buf_printf(&msg,
                              "\nhistory squashed: the previous %zu or more commits are "
                              "left out\n",
                              plan->max_history);
        }
        if (git_commit_create(&done->id, repo, NULL, sig, sig, NULL, msg.ptr, tree, nparents,
                              (const git_commit **) parents) < 0) {
                error = pg_git_err(PG_EIO, "cannot write the commit on '%s'", branch);
                goto done;
        }
        if ((error = pg_store_written(repo, &done->id, "the commit object")) < 0)
                goto done;
        /* The ref moves last, and only from the tip this commit was built on:
         * libgit2 compares the old value while holding the ref's lock file. A
         * branch that must not exist yet is expected at the zero id (refs.h:
         * git_reference_create_matching); git_reference_create(force=0) checks
         * for it before taking the lock, so two creators could both pass that
         * check and the second would overwrite the first (seen in stress runs). */
        {
                git_oid zero;
                memset(&zero, 0, sizeof(zero));
                rc = git_reference_create_matching(&ref, repo, lref, &done->id, 1,
                                                   t.has_local ? &t.local : &zero, plan->reflog);
        }
        if (rc == GIT_ELOCKED) {
                error = pg_git_err(PG_ECONFLICT,
                                   "branch '%s' is locked by another writer (if no git or "
                                   "perfgate process is running, a crashed one left its .lock "
                                   "file: remove it)",
                                   branch);
                goto done;
        }
        if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS) {
                error = pg_git_err(PG_ECONFLICT, "branch '%s' moved while saving", branch);
                goto done;
        }
        if (rc < 0) {
                error = pg_git_err(PG_EIO, "cannot update branch '%s'", branch);
                goto done;
        }
done:
        pg_buf_release(&msg);
        git_reference_free(ref);
        pg_tree_edits_release(&edits);
        git_tree_free(tree);
        git_tree_free(other);
        git_tree_free(base);
        git_tree_free(empty);
        git_commit_free(parents[0]);
        git_commit_free(parents[1]);
        free(lref);
        return error;
}

static void pg_store_backoff(unsigned attempt);

/* The commit signature: git config user.name/email, else perfgate
 * <perfgate@localhost>. */
static int pg_store_signature(git_repository *repo, git_signature **sig)
{
        if (git_signature_default(sig, repo) < 0 &&
            git_signature_now(sig, "perfgate", "perfgate@localhost") < 0)
                return pg_git_err(PG_ERROR, "cannot make a commit signature");
        git_error_clear();
        return 0;
}

/* pg_store_commit_once() until the ref moves, retrying a lost
 * compare-and-swap on the new tip up to PG_STORE_MAX_RETRIES times;
 * *retries counts them. */
static int pg_store_commit(git_repository *repo, const struct pg_commit_plan *plan,
                           const git_signature *sig, struct pg_commit_done *done, unsigned *retries)
{
        int error;

        for (unsigned attempt = 0;; attempt++) {
                /* SIGINT/SIGTERM/SIGHUP wait until the objects are written and
                 * the ref is moved and unlocked: cut inside, they would leave
                 * refs/heads/<branch>.lock, and every later save would fail */
                pg_interrupt_hold();
                error = pg_store_commit_once(repo, plan, sig, done);
                pg_interrupt_release();
                if (error != PG_ECONFLICT)
                        return error;
                if (attempt + 1 >= PG_STORE_MAX_RETRIES)
                        return pg_error_prefix(error, "gave up after %u attempts", attempt + 1);
                (*retries)++;
                pg_store_backoff(attempt);
        }
}

/* The baseline save's edits: `<machine>/<head>/<name>.json` for each result
 * (and, on a diverged local branch, its baselines carried over). */
struct pg_save_ctx {
        const char *machine, *head_hex, *branch;
        const struct pg_result_set *results;
        const git_oid *blobs;
        struct pg_store_save_info *info;
};

static int pg_store_save_build(void *vctx, git_repository *repo, git_tree *base,
                               const char *base_ref, git_tree *other, struct pg_tree_edits *e,
                               struct pg_buf *msg)
{
        struct pg_save_ctx *x = vctx;
        struct pg_store_save_info *info = x->info;
        int error;

        info->nreplaced = 0;
        if ((base_ref && (error = pg_store_check_shape(repo, base, base_ref, x->branch)) < 0) ||
            (other &&
             (error = pg_store_check_shape(repo, other, "the local branch", x->branch)) < 0))
                return error;
        if (other && (error = pg_store_union(repo, base, other, x->branch, &e->u, &e->n, &e->paths,
                                             &e->npaths)) < 0)
                return error;
        for (size_t i = 0; i < x->results->n; i++) {
                char *path = pg_xasprintf("%s/%s/%s.json", x->machine, x->head_hex,
                                          x->results->items[i].name);
                git_tree_entry *have = NULL;
                bool dup = false;
                if (git_tree_entry_bypath(&have, base, path) == 0) {
                        info->nreplaced++;
                        git_tree_entry_free(have);
                }
                git_error_clear();
                for (size_t j = 0; j < e->n; j++) {
                        if (strcmp(e->u[j].path, path) == 0) { /* ours wins over the union */
                                e->u[j].id = x->blobs[i];
                                info->nreplaced++;
                                dup = true;
                        }
                }
                if (dup) {
                        free(path);
                        continue;
                }
                pg_tree_edits_add(e, GIT_TREE_UPDATE_UPSERT, &x->blobs[i], path);
        }
        info->replaced = info->nreplaced > 0;
        pg_buf_printf(msg, "perfgate baseline: %s at %.12s%s\n\n", x->machine, x->head_hex,
                      info->replaced ? " (replaced)" : "");
        pg_buf_printf(msg, "commit: %s\nmachine: %s\nbenchmarks:", x->head_hex, x->machine);
        for (size_t i = 0; i < x->results->n; i++)
                pg_buf_printf(msg, " %s", x->results->items[i].name);
        pg_buf_puts(msg, "\n");
        if (other)
                pg_buf_printf(msg, "\nbuilt on origin/%s, with the local baselines merged in\n",
                              x->branch);
        return 0;
}

/* A short random pause before retrying a lost compare-and-swap, so two
 * writers that collided do not collide again in lockstep. */
static void pg_store_backoff(unsigned attempt)
{
        struct timespec ts;
        unsigned seed = (unsigned) getpid() ^ (attempt * 2654435761u);
        long max_us = 1000L << (attempt < 5 ? attempt : 5);

        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed ^= (unsigned) ts.tv_nsec;
        ts.tv_sec = 0;
        ts.tv_nsec = (long) (rand_r(&seed) % max_us) * 1000L;
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int pg_store_save(const struct pg_store_opts *o, const struct pg_result_set *results, bool force,
                  struct pg_store_save_info *info)
{
        const char *branch = pg_store_branch(o);
        const char *machine = NULL;
        git_repository *repo = NULL;
        git_reference *headref = NULL, *dataref = NULL;
        git_signature *sig = NULL;
        git_oid head, *blobs = NULL;
        char head_hex[GIT_OID_HEXSZ + 1];
        char *lref = pg_xasprintf("refs/heads/%s", branch);
        struct pg_buf json = PG_BUF_INIT;
        int error;

        memset(info, 0, sizeof(*info));
        if ((error = pg_git_init()) < 0)
                return error;
        if (results->n == 0) {
                error = pg_error_set(PG_EINPUT, "no results to save; run `perfgate run` first");
                goto done;
        }
        if ((error = pg_store_check_branch(branch)) < 0 ||
            (error = pg_store_save_machine(o, results, &machine)) < 0 ||
            (error = pg_store_open(&repo, o)) < 0 || (error = pg_store_head(repo, &head)) < 0)
                goto done;
        git_oid_tostr(head_hex, sizeof(head_hex), &head);
        if (git_repository_head(&headref, repo) == 0 &&
            strcmp(git_reference_name(headref), lref) == 0) {
                error = pg_error_set(PG_EINPUT,
                                     "HEAD is the data branch '%s'; check out the project's "
                                     "branch before saving a baseline",
                                     branch);
                goto done;
        }
        git_error_clear();
        /* git refuses to move a branch checked out in another worktree, and
         * so does perfgate: that worktree's index and files would then
         * disagree with its branch (git_branch_is_checked_out()) */
        if (git_reference_lookup(&dataref, repo, lref) == 0 &&
            git_branch_is_checked_out(dataref) == 1) {
                error = pg_error_set(PG_EINPUT,
                                     "the data branch '%s' is checked out in another worktree "
                                     "(see `git worktree list`); a save would change the files "
                                     "under it: remove that worktree or detach its HEAD first",
                                     branch);
                goto done;
        }
        git_error_clear();
        if ((error = pg_store_check_results(results, head_hex, force)) < 0)
                goto done;
        /* objects first: every blob is in the object database before any ref moves */
        blobs = pg_xcalloc(results->n, sizeof(*blobs));
        for (size_t i = 0; i < results->n; i++) {
                /* filed under @machine, the file says so too (as `run --machine`
                 * would have written it) */
                struct pg_result r = results->items[i];
                r.machine = (char *) machine;
                pg_buf_reset(&json);
                if (!pg_result_name_valid(r.name)) {
                        error = pg_error_set(PG_EINPUT, "'%s' is not a valid benchmark name: it %s",
                                             r.name, pg_result_name_why(r.name));
                        goto done;
                }
                if ((error = pg_result_to_json(&r, &json)) < 0)
                        goto done;
                if ((error = pg_store_blob(repo, &blobs[i], json.ptr, json.len, "baseline ",
                                           results->items[i].name)) < 0)
                        goto done;
        }
        if ((error = pg_store_signature(repo, &sig)) < 0)
                goto done;
        info->branch = pg_xstrdup(branch);
        info->head = pg_xstrdup(head_hex);
        info->machine = pg_xstrdup(machine);
        info->saved = results->n;
        {
                struct pg_save_ctx x = { machine, head_hex, branch, results, blobs, info };
                struct pg_commit_plan plan = { branch, "perfgate baseline save", true,
                                               0,      pg_store_save_build,      &x };
                struct pg_commit_done d;
                error = pg_store_commit(repo, &plan, sig, &d, &info->retries);
                if (error == 0) {
                        info->commit = pg_oid_hex(&d.id);
                        info->created_branch = d.created_branch;
                        info->from_remote = d.from_remote;
                        info->no_local = d.no_local;
                        info->merged_local = d.merged_local;
                }
        }
done:
        if (error)
                pg_store_save_info_release(info);
        if (error < 0)
                pg_store_disk_full_note(error, branch);
        pg_buf_release(&json);
        free(blobs);
        free(lref);
        git_signature_free(sig);
        git_reference_free(headref);
        git_reference_free(dataref);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return error;
}

/* ---- assets ----------------------------------------------------------------- */

void pg_assets_info_release(struct pg_assets_info *info)
{
        if (!info)
                return;
        free(info->commit);
        memset(info, 0, sizeof(*info));
}

/* A relative path of safe components: no empty, "." or ".." component, no
 * byte a URL or a shell would need to quote. */
static int pg_assets_check_prefix(const char *prefix)
{
        const char *p = prefix;
        if (!*p)
                goto bad;
        while (*p) {
                size_t n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.') ||
                    (n == 4 && strncasecmp(p, ".git", 4) == 0)) /* git refuses it in a tree */
                        goto bad;
                for (size_t i = 0; i < n; i++)
                        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
                              (p[i] >= '0' && p[i] <= '9') || p[i] == '.' || p[i] == '_' ||
                              p[i] == '-'))
                                goto bad;
                p += n;
                if (*p == '/' && !*++p)
                        goto bad;
        }
        return 0;
bad:
        return pg_error_set(PG_EINPUT,
                            "invalid assets path '%s'; use components of letters, digits, '.', "
                            "'_' and '-' separated by '/', none '.', '..' or '.git' (e.g. "
                            "pr-12/1a2b3c)",
                            prefix);
}

struct pg_assets_ctx {
        const char *prefix, *branch;
        size_t n;
        char **names;
        git_oid *blobs;
        bool prune;
};

/* Each leading component of @prefix that already exists in @base must be a
 * folder: a file, a symbolic link or a submodule there (a hand-edited
 * branch) would make libgit2's tree update fail with a bare "D/F conflict".
 * Errors: PG_EINPUT naming the entry and the prune that removes it. */
static int pg_assets_check_folders(git_tree *base, const char *prefix, const char *branch)
{
        size_t len = strlen(prefix);
        char *part = pg_xstrdup(prefix);
        int error = 0;

        for (size_t end = 0; end <= len && !error; end++) {
                git_tree_entry *have = NULL;
                if (prefix[end] != '/' && prefix[end] != '\0')
                        continue;
                part[end] = '\0';
                if (git_tree_entry_bypath(&have, base, part) < 0) {
                        git_error_clear(); /* absent: created as a folder */
                        break;
                }
                if (git_tree_entry_type(have) != GIT_OBJECT_TREE)
                        error = pg_error_set(
                            PG_EINPUT,
                            "'%s' on branch '%s' is %s, not a folder, so nothing can be "
                            "published under it (was the branch edited by hand?); remove it "
                            "with 'perfgate assets prune --path %s --branch %s'",
                            part, branch,
                            git_tree_entry_filemode(have) == GIT_FILEMODE_COMMIT ? "a submodule"
                            : git_tree_entry_filemode(have) == GIT_FILEMODE_LINK ? "a symbolic link"
                                                                                 : "a file",
                            part, branch);
                git_tree_entry_free(have);
                part[end] = prefix[end];
        }
        free(part);
        return error;
}

static int pg_assets_build(void *vctx, git_repository *repo, git_tree *base, const char *base_ref,
                           git_tree *other, struct pg_tree_edits *e, struct pg_buf *msg)
{
        struct pg_assets_ctx *x = vctx;
        (void) repo;
        (void) base_ref;
        (void) other;
        if (x->prune) {
                git_tree_entry *have = NULL;
                if (git_tree_entry_bypath(&have, base, x->prefix) < 0) {
                        git_error_clear();
                        return PG_ENOTFOUND; /* nothing to remove: no commit */
                }
                git_tree_entry_free(have);
                pg_tree_edits_add(e, GIT_TREE_UPDATE_REMOVE, NULL, pg_xstrdup(x->prefix));
                pg_buf_printf(msg, "perfgate assets: remove %s\n", x->prefix);
                return 0;
        }
        if (base) {
                int error = pg_assets_check_folders(base, x->prefix, x->branch);
                if (error < 0)
                        return error;
        }
        for (size_t i = 0; i < x->n; i++)
                pg_tree_edits_add(e, GIT_TREE_UPDATE_UPSERT, &x->blobs[i],
                                  pg_xasprintf("%s/%s", x->prefix, x->names[i]));
        pg_buf_printf(msg, "perfgate assets: %s (%zu file%s)\n", x->prefix, x->n,
                      x->n == 1 ? "" : "s");
        return 0;
}

static int pg_name_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The regular files directly in @dir, sorted, into x->names. */
static int pg_assets_list(const char *dir, struct pg_assets_ctx *x)
{
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return pg_error_set(errno == ENOENT ? PG_ENOTFOUND : PG_EIO,
                                    "cannot read directory '%s': %s", dir, strerror(errno));
        while ((de = readdir(d)) != NULL) {
                struct stat st;
                char *path;
                if (de->d_name[0] == '.')
                        continue;
                path = pg_path_join(dir, de->d_name);
                if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                        x->names = pg_xreallocarray(x->names, x->n + 1, sizeof(*x->names));
                        x->names[x->n++] = pg_xstrdup(de->d_name);
                }
                free(path);
        }
        closedir(d);
        if (x->n == 0) /* qsort() of a NULL array is undefined even for 0 items */
                return pg_error_set(PG_EINPUT, "no files to publish in '%s'", dir);
        qsort(x->names, x->n, sizeof(*x->names), pg_name_cmp);
        return 0;
}

static int pg_assets_run(const struct pg_assets_opts *o, const char *dir, const char *prefix,
                         struct pg_assets_info *info)
{
        const char *branch = o && o->branch ? o->branch : PG_ASSETS_DEFAULT_BRANCH;
        struct pg_assets_ctx x = { prefix, branch, 0, NULL, NULL, dir == NULL };
        struct pg_store_opts so = { o ? o->repo_path : NULL, branch, NULL };
        git_repository *repo = NULL;
        git_signature *sig = NULL;
        struct pg_buf data = PG_BUF_INIT;
        int error;

        memset(info, 0, sizeof(*info));
        if ((error = pg_git_init()) < 0)
                return error;
        if ((error = pg_store_check_branch(branch)) < 0 ||
            (error = pg_assets_check_prefix(prefix)) < 0)
                goto done;
        if (dir && (error = pg_assets_list(dir, &x)) < 0)
                goto done;
        if ((error = pg_store_open(&repo, &so)) < 0)
                goto done;
        x.blobs = pg_xcalloc(x.n ? x.n : 1, sizeof(*x.blobs));
        for (size_t i = 0; i < x.n; i++) {
                char *path = pg_path_join(dir, x.names[i]);
                pg_buf_reset(&data);
                error = pg_read_file(path, &data);
                free(path);
                if (error < 0)
                        goto done;
                if ((error = pg_store_blob(repo, &x.blobs[i], data.ptr, data.len, "", x.names[i])) <
                    0)
                        goto done;
        }
        if ((error = pg_store_signature(repo, &sig)) < 0)
                goto done;
        {
                struct pg_commit_plan plan = {
                        branch,          dir ? "perfgate assets publish" : "perfgate assets prune",
                        false,           o ? o->max_history : 0,
                        pg_assets_build, &x
                };
                struct pg_commit_done d;
                error = pg_store_commit(repo, &plan, sig, &d, &info->retries);
                if (error == PG_ENOTFOUND && !dir) { /* nothing to prune */
                        pg_error_clear();
                        error = 0;
                } else if (error == 0) {
                        info->commit = pg_oid_hex(&d.id);
                        info->created_branch = d.created_branch;
                        info->from_remote = d.from_remote;
                        info->squashed = d.squashed;
                        info->files = x.n;
                }
        }
done:
        if (error)
                pg_assets_info_release(info);
        if (error < 0)
                pg_store_disk_full_note(error, branch);
        for (size_t i = 0; i < x.n; i++)
                free(x.names[i]);
        free(x.names);
        free(x.blobs);
        pg_buf_release(&data);
        git_signature_free(sig);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return error;
}

int pg_assets_publish(const struct pg_assets_opts *o, const char *dir, const char *prefix,
                      struct pg_assets_info *info)
{
        if (!dir) {
                memset(info, 0, sizeof(*info));
                return pg_error_set(PG_EINPUT, "no directory to publish");
        }
        return pg_assets_run(o, dir, prefix, info);
}

int pg_assets_prune(const struct pg_assets_opts *o, const char *prefix, struct pg_assets_info *info)
{
        return pg_assets_run(o, NULL, prefix, info);
}
