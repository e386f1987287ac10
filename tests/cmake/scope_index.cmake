# runner/scopeindex.h against dwarf_getscopes() on real files, among them
# the sample fixtures and the toolchain layouts (tests/cmake/symbols.cmake).
if(TARGET test_scope_index)
  add_dependencies(test_scope_index ${PG_SAMPLE_FIXTURES} symbols_layout_fixtures)
endif()
