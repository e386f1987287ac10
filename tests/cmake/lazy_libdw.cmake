# elfutils' libdw and libelf are loaded on first use (runner/libdw.h): a
# run without profile maps neither before its benchmark; without them,
# counting works and the commands that read ELF say what to install.
find_program(PG_LAZY_DW_BASH bash REQUIRED)
add_test(NAME lazy_libdw
         COMMAND ${PG_LAZY_DW_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-lazy-libdw.sh
                 $<TARGET_FILE:runner_fx_busy>)
set_tests_properties(lazy_libdw PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600
                                            SKIP_RETURN_CODE 77)
