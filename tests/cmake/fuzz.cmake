# Fuzz targets (tests/fuzz/fuzz_<name>.c, each defining LLVMFuzzerTestOneInput).
# Always: replay_<name> = target + tests/fuzz/driver.c, run by CTest over
# tests/fuzz/corpus/<name>/ (seeds and every crash input found so far) and
# the directories a fragment lists in PG_FUZZ_EXTRA_<name>, each input also
# with deterministic mutations. Fragments sorting before "fuzz" may set those.
# With -DPERFGATE_FUZZ=ON and clang: fuzz_<name> linked with libFuzzer
# (tests/fuzz/run.sh drives them).
file(GLOB PG_FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
foreach(src ${PG_FUZZ_TARGETS})
  get_filename_component(base ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${base})
  add_executable(replay_${name} ${src} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/driver.c)
  target_link_libraries(replay_${name} PRIVATE pgcore)
  add_test(NAME fuzz_replay_${name}
           COMMAND replay_${name} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${name}
                   ${PG_FUZZ_EXTRA_${name}})
  set_tests_properties(fuzz_replay_${name} PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 300)
  if(PERFGATE_FUZZ)
    add_executable(fuzz_${name} ${src})
    target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_${name} PRIVATE pgcore)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  endif()
endforeach()
