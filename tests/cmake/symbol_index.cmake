# runner/symindex.h against dwfl_module_addrinfo() on real files, among them
# the sample fixtures and the toolchain layouts (tests/cmake/symbols.cmake).
if(TARGET test_symbol_index)
  add_dependencies(test_symbol_index ${PG_SAMPLE_FIXTURES} symbols_layout_fixtures)
endif()
# runner/debugcache.h on a debug file split from a sample fixture
if(TARGET test_debuginfo_cache)
  add_dependencies(test_debuginfo_cache ${PG_SAMPLE_FIXTURES})
endif()
