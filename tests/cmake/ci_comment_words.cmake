# The comment names the flame graphs' artifact; a local preview says only
# where the body is (tests/ci/test-comment-words.sh).
add_test(NAME ci_comment_words COMMAND bash ${CMAKE_SOURCE_DIR}/tests/ci/test-comment-words.sh)
set_tests_properties(ci_comment_words PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 180 LABELS ci)
