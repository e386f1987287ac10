# --counters simulated: fixture programs run under valgrind's cachegrind
# (simwork: a hot loop plus a forked child; avx512: an instruction valgrind
# 3.19 rejects) and a stand-in valgrind that writes broken cachegrind files
# (fixtures/fake-valgrind/valgrind). Built without sanitizers: valgrind and
# ASan do not mix.
foreach(fx simwork avx512)
  add_executable(simulate_fx_${fx} ${CMAKE_SOURCE_DIR}/tests/fixtures/simulate/${fx}.c)
  set_target_properties(simulate_fx_${fx} PROPERTIES
                        OUTPUT_NAME sim-${fx}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
  target_compile_options(simulate_fx_${fx} PRIVATE -O1 -g -fno-omit-frame-pointer -fno-sanitize=all)
  target_link_options(simulate_fx_${fx} PRIVATE -fno-sanitize=all)
  if(TARGET test_simulate)
    add_dependencies(test_simulate simulate_fx_${fx})
  endif()
endforeach()
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures/fake-valgrind)
configure_file(${CMAKE_SOURCE_DIR}/tests/fixtures/simulate/fake-valgrind.sh
               ${CMAKE_CURRENT_BINARY_DIR}/fixtures/fake-valgrind/valgrind COPYONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)
if(TEST test_simulate)
  # valgrind runs are CPU-heavy: alone, so the timing of other tests is not disturbed
  set_tests_properties(test_simulate PROPERTIES RUN_SERIAL TRUE)
endif()
