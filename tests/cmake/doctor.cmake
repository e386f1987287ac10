# perfgate doctor: one program built with and without frame pointers.
set(PG_DOCTOR_FIX ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/doctor/fpcheck.c)
add_executable(fp_with ${PG_DOCTOR_FIX})
target_compile_options(fp_with PRIVATE -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
add_executable(fp_without ${PG_DOCTOR_FIX})
target_compile_options(fp_without PRIVATE -O2 -g -fomit-frame-pointer)
set_target_properties(fp_with fp_without PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
