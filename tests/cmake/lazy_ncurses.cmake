# ncurses is loaded by top's terminal view only (cli/cmd_top.c): without
# it, everything else works and the view says what to install (tmux).
find_program(PG_LAZY_NC_BASH bash REQUIRED)
add_test(NAME top_lazy_ncurses
         COMMAND ${PG_LAZY_NC_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-top-lazy-ncurses.sh
                 $<TARGET_FILE:record_service>)
set_tests_properties(top_lazy_ncurses PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
