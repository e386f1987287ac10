# The comment's "Head:" on a GitHub pull_request event names the PR's head
# and the merge commit measured (tests/ci/test-pr-head.sh).
add_test(NAME ci_pr_head COMMAND bash ${CMAKE_SOURCE_DIR}/tests/ci/test-pr-head.sh)
set_tests_properties(ci_pr_head PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 180 LABELS ci)
