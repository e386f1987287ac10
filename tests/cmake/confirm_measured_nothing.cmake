# compare --confirm keeps a benchmark that measured nothing (10x less time:
# "not comparable") inconclusive, never an improvement: the paired runs run
# the same empty head (tests/confirm/measured-nothing.sh).
add_test(NAME confirm_measured_nothing
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/confirm/measured-nothing.sh $<TARGET_FILE:perfgate>)
set_tests_properties(confirm_measured_nothing PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 900)
