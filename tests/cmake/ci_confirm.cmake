# ci/perfgate-ci.sh with a "build" command: the main job calibrates the
# paired noise before saving the baseline, the PR job confirms by paired
# runs (tests/ci/test-confirm-calibrate.sh; real perfgate, bare remote).
find_program(PG_BASH bash REQUIRED)
add_test(NAME ci_confirm_calibrate
         COMMAND ${PG_BASH} ${CMAKE_SOURCE_DIR}/tests/ci/test-confirm-calibrate.sh)
set_tests_properties(ci_confirm_calibrate PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 400
                     LABELS ci)
