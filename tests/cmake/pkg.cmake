# Installing like a real tool (packaging/): the man pages are made from
# --help and agree with it, the bash completion completes what --help lists,
# and `make deb` from a copy of the tree without .git and without the test
# dependencies builds a package with the right contents, dependencies and
# version that lintian finds no error in (label `pkg`; about a minute).
find_program(PG_BASH bash REQUIRED)
add_test(NAME pkg_man_pages
         COMMAND ${CMAKE_SOURCE_DIR}/tests/pkg/check-man.sh $<TARGET_FILE:perfgate> ${CMAKE_BINARY_DIR}/man)
add_test(NAME pkg_bash_completion
         COMMAND ${PG_BASH} ${CMAKE_SOURCE_DIR}/tests/pkg/check-completion.sh $<TARGET_FILE_DIR:perfgate>
                 ${CMAKE_SOURCE_DIR}/packaging/perfgate.bash)
add_test(NAME pkg_deb COMMAND ${PG_BASH} ${CMAKE_SOURCE_DIR}/tests/pkg/check-deb.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(pkg_man_pages pkg_bash_completion pkg_deb PROPERTIES
                     ENVIRONMENT "${PG_TEST_ENV}" LABELS pkg TIMEOUT 900)
add_test(NAME pkg_action_release COMMAND ${PG_BASH} ${CMAKE_SOURCE_DIR}/tests/pkg/check-action-release.sh)
set_tests_properties(pkg_action_release PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" LABELS pkg TIMEOUT 120
                     SKIP_RETURN_CODE 77)
find_program(PG_SHELLCHECK shellcheck)
if(PG_SHELLCHECK)
  add_test(NAME pkg_shellcheck
           COMMAND ${PG_SHELLCHECK} -x ${CMAKE_SOURCE_DIR}/packaging/perfgate.bash
                   ${CMAKE_SOURCE_DIR}/ci/install-perfgate.sh ${CMAKE_SOURCE_DIR}/tests/pkg/check-man.sh
                   ${CMAKE_SOURCE_DIR}/tests/pkg/check-completion.sh ${CMAKE_SOURCE_DIR}/tests/pkg/check-deb.sh
                   ${CMAKE_SOURCE_DIR}/tests/pkg/check-action-release.sh ${CMAKE_SOURCE_DIR}/tests/pkg/fresh-deb.sh)
  set_tests_properties(pkg_shellcheck PROPERTIES LABELS pkg TIMEOUT 60)
endif()
