# The inlined frames of Rust and Go programs against perf script and
# addr2line -i on the same addresses (tests/runner/test_inline_chain.c): the
# programs of the differential test (tests/cmake/symbols.cmake).
if(TARGET test_inline_chain)
  add_dependencies(test_inline_chain symbols_diff_fixtures)
  set_tests_properties(test_inline_chain PROPERTIES TIMEOUT 900 LABELS "runner;perf")
endif()
