# A std::thread program built with frame pointers whose chains stop in the
# system's libstdc++: the warning names the library (tests/record/test-fp-stop.sh).
find_program(PG_FPSTOP_CXX NAMES g++ c++)
find_program(PG_FPSTOP_BASH bash REQUIRED)
if(PG_FPSTOP_CXX)
  add_test(NAME fp_stop
           COMMAND ${PG_FPSTOP_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/record/test-fp-stop.sh
                   ${PG_FPSTOP_CXX} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/sample/cxx_thread.cpp)
  set_tests_properties(fp_stop PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
