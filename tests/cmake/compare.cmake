# compare area (perfgate compare): non-cmocka checks. The JSON verdict
# validates against its schema (ajv), and bench/aa.sh tells identical runs
# from regressed ones. Both skip (77) when their tool is missing.
foreach(check schema aa)
  add_test(NAME compare_${check}
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/golden/compare/run-checks.sh ${check})
  set_tests_properties(compare_${check} PROPERTIES ENVIRONMENT "${PG_TEST_ENV}"
                       SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
