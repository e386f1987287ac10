# What is measured and said under real privileges: a benchmark that leaves a
# daemon behind, a library that refuses perf_event_open (LD_PRELOAD, as a
# seccomp profile would), and a benchmark that works in the kernel.
foreach(pg_fx daemonize kernelwork)
  add_executable(perms_${pg_fx} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/perms/${pg_fx}.c)
  set_target_properties(perms_${pg_fx} PROPERTIES
    COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
endforeach()
add_library(perms_refuse_perf MODULE ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/perms/refuse_perf.c)
set_target_properties(perms_refuse_perf PROPERTIES PREFIX "" OUTPUT_NAME refuse_perf
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
target_compile_options(perms_refuse_perf PRIVATE -fno-sanitize=all)
target_link_options(perms_refuse_perf PRIVATE -fno-sanitize=all)
target_link_libraries(perms_refuse_perf PRIVATE ${CMAKE_DL_LIBS})
