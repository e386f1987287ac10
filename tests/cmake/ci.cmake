# CI integration tests (ci/, tests/ci/): shell scripts driving
# ci/perfgate-ci.sh against a local fake REST server (node) and real git
# remotes on disk, the GitHub action/workflows under action-validator, the
# GitLab template under gitlab-ci-local, and the end-to-end rehearsal
# (label `rehearsal`; exits 77 = skipped while `perfgate compare` or
# `perfgate baseline` are still placeholders).
set(PG_CI_TEST_DIR ${CMAKE_SOURCE_DIR}/tests/ci)
find_program(PG_BASH bash REQUIRED)

foreach(t comment push-retry github-yaml action-steps gitlab images compare-args hostile-pr)
  string(REPLACE "-" "_" tname "ci_${t}")
  add_test(NAME ${tname} COMMAND ${PG_BASH} ${PG_CI_TEST_DIR}/test-${t}.sh)
  # gitlab-ci-local runs whole jobs: slow on a loaded 2-core machine
  if(t STREQUAL "gitlab")
    set(tlimit 400)
  else()
    set(tlimit 180)
  endif()
  set_tests_properties(${tname} PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT ${tlimit} LABELS ci)
endforeach()
# test-gitlab.sh runs about ten pipelines, each a Node.js start that loads
# gitlab-ci-local's modules and compiles GitLab's CI schema (about 1 s of
# CPU each): on a loaded 2-CPU machine that alone can take minutes.
set_tests_properties(ci_gitlab PROPERTIES TIMEOUT 600)

find_program(PG_SHELLCHECK shellcheck)
if(PG_SHELLCHECK)
  add_test(NAME ci_shellcheck
           COMMAND ${PG_SHELLCHECK} -x -s bash ${CMAKE_SOURCE_DIR}/ci/perfgate-ci.sh
                   ${PG_CI_TEST_DIR}/lib.sh ${PG_CI_TEST_DIR}/test-comment.sh
                   ${PG_CI_TEST_DIR}/test-push-retry.sh ${PG_CI_TEST_DIR}/test-github-yaml.sh
                   ${PG_CI_TEST_DIR}/test-action-steps.sh ${PG_CI_TEST_DIR}/test-gitlab.sh
                   ${PG_CI_TEST_DIR}/test-images.sh ${PG_CI_TEST_DIR}/test-compare-args.sh
                   ${PG_CI_TEST_DIR}/test-hostile-pr.sh
                   ${PG_CI_TEST_DIR}/stub-baseline-save.sh ${PG_CI_TEST_DIR}/rehearsal.sh
           WORKING_DIRECTORY ${PG_CI_TEST_DIR})
  set_tests_properties(ci_shellcheck PROPERTIES LABELS ci TIMEOUT 60)
else()
  message(WARNING "shellcheck not found: test ci_shellcheck not registered (ci/install-deps.sh test installs it)")
endif()

# RUN_SERIAL: the rehearsal's verdicts compare timed runs minutes apart (a
# baseline, the regressed PR, the fixed PR); other tests beside it on a
# 2-CPU runner move those timings by tens of percent.
add_test(NAME ci_rehearsal COMMAND ${PG_BASH} ${PG_CI_TEST_DIR}/rehearsal.sh)
set_tests_properties(ci_rehearsal PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900
                     LABELS "ci;rehearsal" SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
