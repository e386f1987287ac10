# Off-CPU profiles: a fixture whose threads contend on a mutex (built as a
# benchmark would be: frame pointers, no sanitizers, no -Werror).
add_executable(offcpu_contend ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/offcpu/contend.c)
set_target_properties(offcpu_contend PROPERTIES
  COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
  LINK_OPTIONS "-Wl,--build-id"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
target_link_libraries(offcpu_contend PRIVATE Threads::Threads)
