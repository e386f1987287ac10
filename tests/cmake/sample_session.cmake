# One sampling session shared by several programs' profiles: the test runs
# the sampling fixtures built by sample.cmake (included before this file).
if(TARGET test_sample_session)
  add_dependencies(test_sample_session sample_callpath sample_deep)
endif()
