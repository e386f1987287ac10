# Hotspots and run-to-run variation: a fixture that shares a fixed amount of
# work between two functions (built as a benchmark would be: frame pointers,
# no sanitizers, no -Werror).
add_executable(hotspot_split ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/hotspot/split.c)
set_target_properties(hotspot_split PROPERTIES
  COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
  LINK_OPTIONS "-Wl,--build-id"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
