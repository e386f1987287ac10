# JIT frames named from jitdump files: a small JIT (tests/fixtures/jit/jitgen.c)
# measured by `perfgate run` and `perfgate record`, checked against
# `perf record -k 1` + `perf inject --jit` when perf is installed, plus
# truncated and garbage dumps (tests/record/test-jitdump.sh).
add_executable(jitgen ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/jit/jitgen.c)
set_target_properties(jitgen PROPERTIES
  COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
find_program(PG_JITDUMP_BASH bash REQUIRED)
add_test(NAME jitdump_frames
         COMMAND ${PG_JITDUMP_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-jitdump.sh
                 $<TARGET_FILE:jitgen>)
set_tests_properties(jitdump_frames PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
