# perfgate annotate finds a relative source path under the compile unit's
# DW_AT_comp_dir, for gcc's and (when installed) clang's line tables
# (tests/record/test-annotate-compdir.sh).
find_program(PG_COMPDIR_CLANG clang)
set(PG_COMPDIR_CCS ${CMAKE_C_COMPILER})
if(PG_COMPDIR_CLANG)
  list(APPEND PG_COMPDIR_CCS ${PG_COMPDIR_CLANG})
endif()
add_test(NAME annotate_compdir
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-annotate-compdir.sh
                 ${PG_COMPDIR_CCS})
set_tests_properties(annotate_compdir PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600)
