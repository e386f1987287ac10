# runner/debugfind.h against libdwfl's dwfl_standard_find_debuginfo() on
# debug files made with objcopy and dwz, the sample fixtures (gcc, g++,
# clang, lld), the benchmarks and the system's libraries.
if(TARGET test_debugfind)
  add_dependencies(test_debugfind ${PG_SAMPLE_FIXTURES} symbols_layout_fixtures)
endif()
