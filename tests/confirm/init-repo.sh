#!/bin/sh
# init-repo.sh - make the current directory a new git repository for a
# test: branch main, identity t <t@t>, commits unsigned (whatever the
# user's git configuration says).
set -eu
git init -q -b main .
git config user.name t
git config user.email t@t
git config commit.gpgsign false
