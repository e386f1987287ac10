# A benchmark that is nearly all one function, which does 1.4x the work: the
# stored comparison and `compare --confirm` name that function by its own
# time (its share cannot grow), in the text, the JSON and the Markdown; an
# unchanged benchmark names nothing (tests/confirm/one-function.sh).
add_test(NAME confirm_one_function
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/confirm/one-function.sh $<TARGET_FILE:perfgate>)
set_tests_properties(confirm_one_function PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900)
