# Fixtures and wiring of the `perfgate fold` tests (perf script importer):
# one program with a known call path, a named thread and deep recursion,
# recorded with the real perf by test_fold_cli (skipped when perf cannot
# record here).
find_package(Threads REQUIRED)
add_executable(fold_callpath ${CMAKE_SOURCE_DIR}/tests/fixtures/fold/callpath.c)
target_compile_options(fold_callpath PRIVATE -O1 -g -fno-omit-frame-pointer -fno-inline
                       -fno-optimize-sibling-calls)
target_link_libraries(fold_callpath PRIVATE Threads::Threads)
set_target_properties(fold_callpath PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                      ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
if(TARGET test_fold_cli)
  add_dependencies(test_fold_cli fold_callpath)
endif()

# The perf script parser's fuzz target is wired by tests/cmake/fuzz.cmake;
# its replay also covers the conformance inputs and the handed cases.
set(PG_FUZZ_EXTRA_perfscript
    ${PG_TEST_DATA}/conformance/flamegraph
    ${PG_TEST_DATA}/cases/01-cpp-template-parens
    ${PG_TEST_DATA}/cases/03-comm-with-spaces
    ${PG_TEST_DATA}/cases/05-semicolon-in-frames
    ${PG_TEST_DATA}/cases/10-kernel-unknown-inlined-modules
    ${PG_TEST_DATA}/cases/13-thread-name-normalization
    ${PG_TEST_DATA}/cases/18-deep-and-truncated-stacks
    ${PG_TEST_DATA}/cases/19-empty-profile)
