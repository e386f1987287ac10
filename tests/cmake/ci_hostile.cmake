# ci/perfgate-ci.sh against hostile results: comment injection through a
# code block, GitLab uploads outside the flame graph directory, a failed run
# reported as a pass, PR numbers used in URLs (tests/ci/test-hostile-pr.sh).
find_program(PG_BASH_HX bash REQUIRED)
add_test(NAME ci_hostile_pr COMMAND ${PG_BASH_HX} ${CMAKE_SOURCE_DIR}/tests/ci/test-hostile-pr.sh)
set_tests_properties(ci_hostile_pr PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300 LABELS ci)
find_program(PG_SHELLCHECK_HX shellcheck)
if(PG_SHELLCHECK_HX)
  add_test(NAME ci_hostile_pr_shellcheck
           COMMAND ${PG_SHELLCHECK_HX} -x -s bash test-hostile-pr.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/ci)
  set_tests_properties(ci_hostile_pr_shellcheck PROPERTIES LABELS ci)
endif()
