# Flame graph SVGs in a real browser (tests/browser/*.mjs): node with
# playwright-core from tests/node/node_modules driving /usr/bin/chromium.
# A missing node, chromium or playwright-core makes the test SKIP (exit 77)
# with the reason, never pass silently.
find_program(PG_NODE node)
file(GLOB PG_BROWSER_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/browser/*.mjs)
foreach(script ${PG_BROWSER_TESTS})
  get_filename_component(name ${script} NAME_WE)
  if(PG_NODE)
    add_test(NAME browser_${name} COMMAND ${PG_NODE} ${script})
  else()
    add_test(NAME browser_${name}
             COMMAND sh -c "echo 'SKIP: node is not installed (apt-get install nodejs)'; exit 77")
  endif()
  set_tests_properties(browser_${name} PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 120
                       SKIP_RETURN_CODE 77)
endforeach()
