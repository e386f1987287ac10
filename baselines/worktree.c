/*
 * worktree.c - HEAD and dirtiness of the repository around a directory
 * (worktree.h).
 */
#include "baselines/worktree.h"

#include <git2.h>
#include <string.h>

_Static_assert(PG_GIT_HEX_SIZE == GIT_OID_HEXSZ + 1, "a commit id is 40 hex digits");

bool pg_git_worktree_state(const char *dir, char commit[PG_GIT_HEX_SIZE], bool *dirty)
{
        git_repository *repo = NULL;
        git_status_list *status = NULL;
        git_status_options so;
        git_oid oid;
        bool found = false;

        commit[0] = '\0';
        *dirty = false;
        git_libgit2_init();
        git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
        if (git_repository_open_ext(&repo, dir, 0, NULL) < 0)
                goto done;
        if (git_reference_name_to_id(&oid, repo, "HEAD") < 0)
                goto done;
        git_oid_tostr(commit, PG_GIT_HEX_SIZE, &oid);
        found = true;
        so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
        so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
        if (!git_repository_is_bare(repo) && git_status_list_new(&status, repo, &so) == 0)
                *dirty = git_status_list_entrycount(status) > 0;
done:
        git_status_list_free(status);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return found;
}
