# ci/perfgate-ci.sh pr, what its compare is given: the trends site's URL
# (PERFGATE_HISTORY_URL / --history-url, tests/ci/test-history-link.sh) and
# a custom data branch (tests/ci/test-baseline-branch.sh); with shellcheck
# of both scripts (ci_shellcheck lists the other ci/ scripts).
find_program(PG_BASH_HL bash REQUIRED)
add_test(NAME ci_history_link COMMAND ${PG_BASH_HL} ${CMAKE_SOURCE_DIR}/tests/ci/test-history-link.sh)
set_tests_properties(ci_history_link PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 180 LABELS ci)
find_program(PG_SHELLCHECK_HL shellcheck)
if(PG_SHELLCHECK_HL)
  add_test(NAME ci_history_link_shellcheck
           COMMAND ${PG_SHELLCHECK_HL} -x -s bash ${CMAKE_SOURCE_DIR}/tests/ci/test-history-link.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/ci)
  set_tests_properties(ci_history_link_shellcheck PROPERTIES LABELS ci TIMEOUT 60)
endif()

# ci/perfgate-ci.sh pr with a custom data branch: compare reads it
# (tests/ci/test-baseline-branch.sh).
add_test(NAME ci_baseline_branch COMMAND ${PG_BASH_HL} ${CMAKE_SOURCE_DIR}/tests/ci/test-baseline-branch.sh)
set_tests_properties(ci_baseline_branch PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 180 LABELS ci)
if(PG_SHELLCHECK_HL)
  add_test(NAME ci_baseline_branch_shellcheck
           COMMAND ${PG_SHELLCHECK_HL} -x -s bash ${CMAKE_SOURCE_DIR}/tests/ci/test-baseline-branch.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/ci)
  set_tests_properties(ci_baseline_branch_shellcheck PROPERTIES LABELS ci TIMEOUT 60)
endif()
