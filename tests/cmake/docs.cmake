# Docs pages in step with --help; the install target works.
add_test(NAME docs_in_step_with_help
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/check-docs.sh $<TARGET_FILE:perfgate> ${CMAKE_SOURCE_DIR})
add_test(NAME install_into_prefix
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/check-install.sh ${CMAKE_BINARY_DIR})
set_tests_properties(docs_in_step_with_help install_into_prefix PROPERTIES ENVIRONMENT "${PG_TEST_ENV}")
