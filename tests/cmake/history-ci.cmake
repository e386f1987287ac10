# The PR comment's links to the trends site: ci/perfgate-ci.sh pr with
# PERFGATE_HISTORY_URL / --history-url (tests/ci/test-history-link.sh), and
# shellcheck of that script (ci_shellcheck lists the other ci/ scripts).
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
