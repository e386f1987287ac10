/*
 * repo.c - HEAD and dirtiness of the repository perfgate runs in (repo.h).
 */
#include "baselines/repo.h"

#include <git2.h>

bool pg_repo_head(const char *dir, char commit[PG_REPO_OID_HEX + 1], bool *dirty)
{
        git_repository *repo = NULL;
        git_status_list *status = NULL;
        git_status_options so;
        git_oid oid;
        bool found = false;

        *dirty = false;
        git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
        git_libgit2_init();
        if (git_repository_open_ext(&repo, dir, 0, NULL) < 0)
                goto done;
        if (git_reference_name_to_id(&oid, repo, "HEAD") < 0)
                goto done;
        git_oid_tostr(commit, PG_REPO_OID_HEX + 1, &oid);
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
