# What ci/perfgate-ci.sh pr gives perfgate compare: the trends site's URL
# (PERFGATE_HISTORY_URL / --history-url) and a custom data branch
# (tests/ci/test-compare-args.sh), with shellcheck of the script
# (ci_shellcheck lists the other ci/ scripts).
find_program(PG_BASH_CA bash REQUIRED)
add_test(NAME ci_compare_args COMMAND ${PG_BASH_CA} ${CMAKE_SOURCE_DIR}/tests/ci/test-compare-args.sh)
set_tests_properties(ci_compare_args PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 180 LABELS ci)
find_program(PG_SHELLCHECK_CA shellcheck)
if(PG_SHELLCHECK_CA)
  add_test(NAME ci_compare_args_shellcheck
           COMMAND ${PG_SHELLCHECK_CA} -x -s bash ${CMAKE_SOURCE_DIR}/tests/ci/test-compare-args.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/ci)
  set_tests_properties(ci_compare_args_shellcheck PROPERTIES LABELS ci TIMEOUT 60)
endif()
