# Region-of-interest markers: a fixture that includes include/perfgate.h
# (built as a benchmark would be: frame pointers, no sanitizers, no -Werror).
add_executable(roi_work ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/roi/roi_work.c)
set_target_properties(roi_work PROPERTIES
  COMPILE_OPTIONS "-O1;-g;-fno-omit-frame-pointer"
  LINK_OPTIONS "-Wl,--build-id"
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
target_include_directories(roi_work PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(roi_work PRIVATE Threads::Threads)

# The header compiles as C++ and, with PERFGATE_EXTERN, exports both symbols.
find_program(PG_ROI_CXX NAMES g++ c++ clang++)
if(PG_ROI_CXX)
  add_test(NAME roi_header_cxx
    COMMAND sh -c "printf '#include \"perfgate.h\"\\nint main(){return perfgate_roi_begin()+perfgate_roi_end();}\\n' > roi_cxx.cpp && ${PG_ROI_CXX} -std=c++11 -Wall -Wextra -Werror -I${CMAKE_SOURCE_DIR}/include roi_cxx.cpp -o roi_cxx && ./roi_cxx"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()
add_test(NAME roi_header_extern
  COMMAND sh -c "printf '#define PERFGATE_EXTERN\\n#include \"perfgate.h\"\\n' > roi_ffi.c && ${CMAKE_C_COMPILER} -std=c99 -Wall -Wextra -Werror -pedantic -c -I${CMAKE_SOURCE_DIR}/include roi_ffi.c -o roi_ffi.o && nm roi_ffi.o | grep -q ' T perfgate_roi_begin' && nm roi_ffi.o | grep -q ' T perfgate_roi_end'"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
