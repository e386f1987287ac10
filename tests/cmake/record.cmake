# perfgate record: a long-running multi-threaded service recorded by -p, -a
# and as a command, and the bad-input cases (tests/record/test-record.sh).
find_package(Threads REQUIRED)
add_executable(record_service ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/service.c)
set_target_properties(record_service PROPERTIES
  COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
target_link_libraries(record_service PRIVATE Threads::Threads)
find_program(PG_RECORD_BASH bash REQUIRED)
add_test(NAME record_live
         COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-record.sh
                 $<TARGET_FILE:record_service>)
set_tests_properties(record_live PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)

# perfgate annotate: a known hot line, built by gcc and (when installed) clang.
add_executable(annotate_hotline_gcc ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/hotline.c)
set_target_properties(annotate_hotline_gcc PROPERTIES
  COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
set(PG_ANNOTATE_BINS $<TARGET_FILE:annotate_hotline_gcc>)
find_program(PG_ANNOTATE_CLANG clang)
if(PG_ANNOTATE_CLANG)
  add_custom_command(
    OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/fixtures/annotate_hotline_clang
    COMMAND ${PG_ANNOTATE_CLANG} -O1 -g -fno-omit-frame-pointer
            ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/hotline.c
            -o ${CMAKE_CURRENT_BINARY_DIR}/fixtures/annotate_hotline_clang
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/hotline.c VERBATIM)
  add_custom_target(annotate_hotline_clang ALL
                    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/fixtures/annotate_hotline_clang)
  list(APPEND PG_ANNOTATE_BINS ${CMAKE_CURRENT_BINARY_DIR}/fixtures/annotate_hotline_clang)
endif()
add_test(NAME annotate_hot_line
         COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-annotate.sh
                 ${CMAKE_C_COMPILER} ${PG_ANNOTATE_BINS})
set_tests_properties(annotate_hot_line PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300)

# perfgate top --stdio on the same service.
add_test(NAME top_stdio
         COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-top.sh
                 $<TARGET_FILE:record_service>)
set_tests_properties(top_stdio PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)

# pg_compare_line_test(TEST SCRIPT SOURCE OPTIONS HEAD_DEFINE): two builds
# of fixtures/record/SOURCE with OPTIONS, head's with HEAD_DEFINE, given to
# record/SCRIPT as BASE_BIN HEAD_BIN.
function(pg_compare_line_test test script source options head_define)
  foreach(v base head)
    add_executable(${test}_${v} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/${source})
    set_target_properties(${test}_${v} PROPERTIES COMPILE_OPTIONS "${options}"
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
  endforeach()
  target_compile_definitions(${test}_head PRIVATE ${head_define})
  add_test(NAME ${test}
           COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/${script}
                   $<TARGET_FILE:${test}_base> $<TARGET_FILE:${test}_head>)
  set_tests_properties(${test} PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
endfunction()

# compare names the source line whose samples grew most in a regressed function.
pg_compare_line_test(compare_grown_line test-compare-line.sh regress.c
                     "-O1;-g;-fno-omit-frame-pointer" EXTRA=2)
# The line that grew in a function inlined in base and not in head is
# compared with base's samples at that line (the inlined entries of its caller).
pg_compare_line_test(compare_line_inlined_side test-line-inlined-side.sh inline_side.c
                     "-O2;-g;-fno-omit-frame-pointer" HEAD=1)
# The same two builds running the same work: an inlining flip alone is no
# hotspot regression, either way round.
add_test(NAME compare_inline_flip
         COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-inline-flip.sh
                 $<TARGET_FILE:compare_line_inlined_side_base>
                 $<TARGET_FILE:compare_line_inlined_side_head>)
set_tests_properties(compare_inline_flip PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
# An inlined function and another function of the same name (two static
# helpers of two files): hot's work doubled is a hotspot regression.
add_executable(compare_inline_namesake_bin ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/namesake.c
               ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/record/namesake_other.c)
set_target_properties(compare_inline_namesake_bin PROPERTIES
  COMPILE_OPTIONS "-O2;-g;-fno-omit-frame-pointer"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
add_test(NAME compare_inline_namesake
         COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-inline-namesake.sh
                 $<TARGET_FILE:compare_inline_namesake_bin>)
set_tests_properties(compare_inline_namesake PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)

# perfgate top's terminal view in a real terminal (tmux).
add_test(NAME top_tmux
         COMMAND ${PG_RECORD_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-top-tmux.sh
                 $<TARGET_FILE:record_service>)
set_tests_properties(top_tmux PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
