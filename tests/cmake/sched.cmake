# Scheduler latency: a fixture whose threads sleep and wake while a CPU hog
# competes for the same CPU (built as a benchmark would be).
add_executable(sched_wakers ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/sched/wakers.c)
set_target_properties(sched_wakers PROPERTIES
  COMPILE_OPTIONS "-O1;-g"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
target_link_libraries(sched_wakers PRIVATE Threads::Threads)
