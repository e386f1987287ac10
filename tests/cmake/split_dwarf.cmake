# A -gsplit-dwarf program gets its inlined frames and source lines from the
# .dwo files, as llvm-addr2line -i gives them; a missing .dwo and
# zstd-compressed debug sections that libelf cannot read are said
# (tests/record/test-split-dwarf.sh).
add_test(NAME split_dwarf COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test-split-dwarf.sh)
set_tests_properties(split_dwarf PROPERTIES ENVIRONMENT "${PG_TEST_ENV}" TIMEOUT 600
                     SKIP_RETURN_CODE 77)
