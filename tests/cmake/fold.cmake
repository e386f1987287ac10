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

# The perf script parser's fuzz target: replayed under CTest over its seed
# corpus, the conformance inputs and the handed cases, each with deterministic
# mutations (so the sanitizer build exercises it); a libFuzzer build with
# PERFGATE_FUZZ=ON (clang).
set(PG_FOLD_SHARED ${CMAKE_SOURCE_DIR}/../shared)
add_executable(fuzz_perfscript_replay ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_perfscript.c)
target_compile_definitions(fuzz_perfscript_replay PRIVATE PG_FUZZ_REPLAY)
target_link_libraries(fuzz_perfscript_replay PRIVATE pgcore)
add_test(NAME fuzz_perfscript_replay
         COMMAND fuzz_perfscript_replay ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/perfscript
                 ${PG_FOLD_SHARED}/conformance/flamegraph
                 ${PG_FOLD_SHARED}/cases/01-cpp-template-parens
                 ${PG_FOLD_SHARED}/cases/03-comm-with-spaces
                 ${PG_FOLD_SHARED}/cases/05-semicolon-in-frames
                 ${PG_FOLD_SHARED}/cases/10-kernel-unknown-inlined-modules
                 ${PG_FOLD_SHARED}/cases/13-thread-name-normalization
                 ${PG_FOLD_SHARED}/cases/18-deep-and-truncated-stacks
                 ${PG_FOLD_SHARED}/cases/19-empty-profile)
set_tests_properties(fuzz_perfscript_replay PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 120)
if(PERFGATE_FUZZ)
  add_executable(fuzz_perfscript ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_perfscript.c)
  target_compile_options(fuzz_perfscript PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_perfscript PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_perfscript PRIVATE pgcore)
endif()
