#!/bin/sh
# install.sh - install the npm tools the tests use (ajv-cli, playwright-core,
# action-validator, gitlab-ci-local) into tests/node/node_modules from the
# committed lockfile. Idempotent: does nothing when they are already there.
set -eu
cd "$(dirname "$0")"
if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json node_modules/.perfgate-lock 2>/dev/null; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error >/dev/null
cp package-lock.json node_modules/.perfgate-lock
