# Symbolization across toolchain layouts: the call-path fixture built by
# gcc and clang, ld.bfd and ld.lld, PIE, non-PIE and static, separate-code
# or not, gc-sections, stripped with a debuglink, and a dlopen'ed library
# (tests/fixtures/symbols/build-layouts.sh lists what it could build).
set(PG_SYM_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/symbols)
set(PG_SYM_OUT ${CMAKE_CURRENT_BINARY_DIR}/fixtures/layouts)
add_custom_command(
  OUTPUT ${PG_SYM_OUT}/layouts.txt
  COMMAND sh ${PG_SYM_SRC}/build-layouts.sh ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/sample/callpath.c
          ${PG_SYM_SRC} ${PG_SYM_OUT}
  DEPENDS ${PG_SYM_SRC}/build-layouts.sh ${PG_SYM_SRC}/dlhost.c ${PG_SYM_SRC}/dllib.c
          ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/sample/callpath.c
  COMMENT "building the toolchain-layout fixtures")
add_custom_target(symbols_layout_fixtures ALL DEPENDS ${PG_SYM_OUT}/layouts.txt)


# Differential test against perf: C, C++, Rust and Go programs built by every
# installed toolchain (tests/fixtures/symbols/diff/build.sh), each run once
# under both samplers in fp and dwarf modes (bench/symbols-vs-perf.sh
# --same-run: perfgate runs `perf record -- PROGRAM`, so the two profiles
# differ only by sampling noise). It fails when a function above 5% of either
# profile is missing from the other, a self share differs by more than 2
# points and 4 standard errors, perfgate's inclusive share of one of perf's
# top ten functions falls short by more than 3 points and 4 standard errors,
# or perfgate leaves frames unresolved that perf names (exit 77: perf cannot
# record here, reported as skipped).
set(PG_DIFF_SRC ${PG_SYM_SRC}/diff)
set(PG_DIFF_OUT ${CMAKE_CURRENT_BINARY_DIR}/fixtures/diff)
add_custom_command(
  OUTPUT ${PG_DIFF_OUT}/programs.txt
  COMMAND sh ${PG_DIFF_SRC}/build.sh ${PG_DIFF_SRC} ${PG_DIFF_OUT}
  DEPENDS ${PG_DIFF_SRC}/build.sh ${PG_DIFF_SRC}/work.c ${PG_DIFF_SRC}/work.cpp
          ${PG_DIFF_SRC}/work.rs ${PG_DIFF_SRC}/work.go
  COMMENT "building the C, C++, Rust and Go programs of the differential test")
add_custom_target(symbols_diff_fixtures ALL DEPENDS ${PG_DIFF_OUT}/programs.txt)
add_test(NAME symbols_vs_perf
         COMMAND sh ${CMAKE_SOURCE_DIR}/bench/symbols-vs-perf.sh --check --same-run --freq 4999 --programs ${PG_DIFF_OUT}
                 ${CMAKE_BINARY_DIR})
set_tests_properties(symbols_vs_perf PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 1500
                     SKIP_RETURN_CODE 77 LABELS "perf")
if(TARGET test_symbols)
  add_dependencies(test_symbols symbols_layout_fixtures symbols_diff_fixtures)
endif()
