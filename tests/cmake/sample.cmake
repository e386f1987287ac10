# Sampled call graphs: fixture programs with known call paths, built
# exactly as the tests need them (own flags, no sanitizers, no -Werror), the
# stripped/split-debuginfo variants, and the speed bench driver.
set(PG_SAMPLE_FIX_DIR ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
set(PG_SAMPLE_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/sample)
file(MAKE_DIRECTORY ${PG_SAMPLE_FIX_DIR})

function(pg_sample_fixture name src)
  cmake_parse_arguments(F "" "" "FLAGS;LIBS;LINKFLAGS" ${ARGN})
  add_executable(${name} ${PG_SAMPLE_SRC}/${src})
  if(NOT F_FLAGS)
    set(F_FLAGS -O1 -g -fno-omit-frame-pointer)
  endif()
  # replace the directory-wide options (-Werror, sanitizers, frame pointers)
  set_target_properties(${name} PROPERTIES
    COMPILE_OPTIONS "${F_FLAGS}"
    LINK_OPTIONS "-Wl,--build-id;${F_LINKFLAGS}"
    RUNTIME_OUTPUT_DIRECTORY ${PG_SAMPLE_FIX_DIR})
  if(F_LIBS)
    target_link_libraries(${name} PRIVATE ${F_LIBS})
  endif()
endfunction()

pg_sample_fixture(sample_callpath callpath.c)
pg_sample_fixture(sample_threads threads.c LIBS Threads::Threads)
pg_sample_fixture(sample_forkexec forkexec.c)
pg_sample_fixture(sample_child child.c)
pg_sample_fixture(sample_nofp nofp.c FLAGS -O1 -g -fomit-frame-pointer)
pg_sample_fixture(sample_deep deep.c)
pg_sample_fixture(sample_jit jit.c)
pg_sample_fixture(sample_short short.c FLAGS -O1 LINKFLAGS -static -nostdlib)
pg_sample_fixture(sample_inline_vdso inline_vdso.c)
pg_sample_fixture(sample_strip_src strip.c)
pg_sample_fixture(sample_decoy decoy.c)

# C++ demangling end to end, when a C++ compiler is installed (the test skips otherwise)
find_program(PG_SAMPLE_CXX NAMES g++ c++ clang++)
if(PG_SAMPLE_CXX)
  add_custom_command(
    OUTPUT ${PG_SAMPLE_FIX_DIR}/sample_cxx
    COMMAND ${PG_SAMPLE_CXX} -O1 -g -fno-omit-frame-pointer -o ${PG_SAMPLE_FIX_DIR}/sample_cxx
            ${PG_SAMPLE_SRC}/cxx.cpp
    DEPENDS ${PG_SAMPLE_SRC}/cxx.cpp
    COMMENT "building the C++ sampling fixture")
  add_custom_target(sample_cxx_fixture ALL DEPENDS ${PG_SAMPLE_FIX_DIR}/sample_cxx)
  set(PG_SAMPLE_CXX_TARGET sample_cxx_fixture)
endif()

add_custom_command(
  OUTPUT ${PG_SAMPLE_FIX_DIR}/sample_stripped ${PG_SAMPLE_FIX_DIR}/sample_debuglink
         ${PG_SAMPLE_FIX_DIR}/sample_wronglink ${PG_SAMPLE_FIX_DIR}/sample_gdebuglink
         ${PG_SAMPLE_FIX_DIR}/sample_gwronglink
  COMMAND sh ${PG_SAMPLE_SRC}/split-debug.sh $<TARGET_FILE:sample_strip_src>
          ${PG_SAMPLE_FIX_DIR} $<TARGET_FILE:sample_decoy>
  DEPENDS sample_strip_src sample_decoy ${PG_SAMPLE_SRC}/split-debug.sh
  COMMENT "splitting debuginfo of the stripped sampling fixtures")
add_custom_target(sample_split_fixtures ALL
  DEPENDS ${PG_SAMPLE_FIX_DIR}/sample_stripped ${PG_SAMPLE_FIX_DIR}/sample_debuglink
          ${PG_SAMPLE_FIX_DIR}/sample_wronglink ${PG_SAMPLE_FIX_DIR}/sample_gdebuglink
          ${PG_SAMPLE_FIX_DIR}/sample_gwronglink)

# bench driver for bench/sample-overhead.sh, bench/symbolize-speed.sh and
# bench/symbolize-same.sh
add_executable(pg-sample-bench ${PG_SAMPLE_SRC}/bench_driver.c)
target_link_libraries(pg-sample-bench PRIVATE pgcore)
set_target_properties(pg-sample-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PG_SAMPLE_FIX_DIR})

set(PG_SAMPLE_FIXTURES sample_callpath sample_threads sample_forkexec sample_child sample_nofp
    sample_deep sample_jit sample_short sample_inline_vdso sample_split_fixtures pg-sample-bench
    ${PG_SAMPLE_CXX_TARGET})
foreach(t test_sample test_symbolize)
  if(TARGET ${t})
    add_dependencies(${t} ${PG_SAMPLE_FIXTURES})
  endif()
endforeach()

# libFuzzer target for the record decoder (cmake -DPERFGATE_FUZZ=ON with clang)
if(PERFGATE_FUZZ)
  # the sampling sources again, with coverage instrumentation for libFuzzer
  set(PG_SAMPLE_FUZZ_SRC records.c symbolize.c sym_aspace.c sym_modules.c sym_frames.c unwind.c
      demangle.c kallsyms.c jitmap.c fold.c)
  list(TRANSFORM PG_SAMPLE_FUZZ_SRC PREPEND ${CMAKE_SOURCE_DIR}/runner/)
  add_library(pgsamplefuzz STATIC ${PG_SAMPLE_FUZZ_SRC})
  target_compile_options(pgsamplefuzz PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
  target_link_libraries(pgsamplefuzz PUBLIC pgcore)
  add_executable(fuzz_records ${PG_SAMPLE_SRC}/fuzz_records.c)
  target_compile_options(fuzz_records PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_records PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_records PRIVATE pgsamplefuzz pgcore)
endif()
