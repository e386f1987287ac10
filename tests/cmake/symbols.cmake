# Symbolization across toolchain layouts: the call-path fixture built by
# gcc and clang, ld.bfd and ld.lld, PIE, non-PIE and static, separate-code
# or not, gc-sections, stripped with a debuglink, and a dlopen'ed library
# (tests/fixtures/symbols/build-layouts.sh lists what it could build).
set(PG_SYM_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/symbols)
set(PG_SYM_OUT ${CMAKE_CURRENT_BINARY_DIR}/fixtures/layouts)
add_custom_command(
  OUTPUT ${PG_SYM_OUT}/layouts.txt
  COMMAND sh ${PG_SYM_SRC}/build-layouts.sh ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/sample/callpath.c
          ${PG_SYM_SRC} ${PG_SYM_OUT}
  DEPENDS ${PG_SYM_SRC}/build-layouts.sh ${PG_SYM_SRC}/dlhost.c ${PG_SYM_SRC}/dllib.c
          ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/sample/callpath.c
  COMMENT "building the toolchain-layout fixtures")
add_custom_target(symbols_layout_fixtures ALL DEPENDS ${PG_SYM_OUT}/layouts.txt)
if(TARGET test_symbols)
  add_dependencies(test_symbols symbols_layout_fixtures)
endif()

