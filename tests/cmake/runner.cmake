# Runner fixtures: small programs `perfgate run` and the counting tests
# launch (busy loops, threads, fork+exec, page touching, crash, failure,
# hang). Built without sanitizers so they behave like real benchmarks and
# die of their own signals.
set(PG_RUNNER_FIXTURES busy threads forkexec pages crash fail hang hello)
foreach(fx ${PG_RUNNER_FIXTURES})
  add_executable(runner_fx_${fx} ${CMAKE_SOURCE_DIR}/tests/fixtures/runner/${fx}.c)
  set_target_properties(runner_fx_${fx} PROPERTIES
                        OUTPUT_NAME runner-${fx}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
  target_compile_options(runner_fx_${fx} PRIVATE -O1 -fno-sanitize=all)
  target_link_options(runner_fx_${fx} PRIVATE -fno-sanitize=all)
  foreach(t test_counting test_run_cli)
    if(TARGET ${t})
      add_dependencies(${t} runner_fx_${fx})
    endif()
  endforeach()
endforeach()
target_link_libraries(runner_fx_threads PRIVATE Threads::Threads)
foreach(t test_counting test_run_cli)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES RUN_SERIAL TRUE)
  endif()
endforeach()
