# man.cmake - write perfgate.1.gz and perfgate-<command>.1.gz into OUT from
# the help text of the perfgate binary just built (pg-manpage turns it into
# roff), so the pages say what --help says. The commands and their one-line
# summaries are the ones `perfgate help` lists; each page's EXAMPLES come
# from docs/<command>.md unless the help text has its own.
#   cmake -DPERFGATE=BIN -DTOOL=pg-manpage -DSRC=DIR -DOUT=DIR -DDOCDIR=PATH
#         -DSUMMARY=TEXT -DVERSION_TXT=FILE -P man.cmake
# The page date: pg_source_date() (version.cmake).
foreach(v PERFGATE TOOL SRC OUT DOCDIR SUMMARY VERSION_TXT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "man.cmake: -D${v}=... is required")
  endif()
endforeach()
file(STRINGS "${VERSION_TXT}" version LIMIT_COUNT 1)

include(${CMAKE_CURRENT_LIST_DIR}/version.cmake)
pg_source_date(date "${SRC}" "%Y-%m-%d")

execute_process(COMMAND "${PERFGATE}" help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "man.cmake: '${PERFGATE} help' failed (${rc})")
endif()
# the "commands:" list: "  name   summary" lines up to the next blank line
string(REGEX MATCH "\ncommands:\n([^\n]+\n)+" block "${help}")
string(REGEX MATCHALL "\n  [a-z][a-z0-9-]* +[^\n]+" entries "${block}")
set(commands "")
foreach(e IN LISTS entries)
  string(REGEX MATCH "^\n  ([a-z][a-z0-9-]*) +(.+)$" _ "${e}")
  list(APPEND commands ${CMAKE_MATCH_1})
  set(summary_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
endforeach()
if(NOT commands)
  message(FATAL_ERROR "man.cmake: 'perfgate help' lists no commands")
endif()

file(MAKE_DIRECTORY "${OUT}")
file(GLOB old "${OUT}/*.1" "${OUT}/*.1.gz")
if(old)
  file(REMOVE ${old})
endif()

# pg_page(NAME SUMMARY HELP args... [DOC page.md] [SEE pages...]): NAME.1.gz
# from `perfgate <HELP args>`; DOC: the docs page (EXAMPLES, SEE ALSO)
function(pg_page name summary)
  cmake_parse_arguments(P "" "DOC" "HELP;SEE" ${ARGN})
  set(args --name ${name} --summary "${summary}" --version "${version}" --date "${date}")
  if(P_DOC AND EXISTS "${SRC}/docs/${P_DOC}")
    list(APPEND args --examples "${SRC}/docs/${P_DOC}" --doc "${DOCDIR}/${P_DOC}")
  endif()
  foreach(s IN LISTS P_SEE)
    list(APPEND args --see-also "${s}")
  endforeach()
  execute_process(COMMAND "${PERFGATE}" ${P_HELP}
                  COMMAND "${TOOL}" ${args}
                  OUTPUT_FILE "${OUT}/${name}.1" RESULTS_VARIABLE rcs)
  foreach(rc IN LISTS rcs)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "man.cmake: ${name}.1: 'perfgate ${P_HELP} | pg-manpage' failed (${rcs})")
    endif()
  endforeach()
  # gzip -n: no name or time stamp in the header (reproducible, Debian policy 12.1)
  execute_process(COMMAND gzip -9nf "${OUT}/${name}.1" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "man.cmake: gzip ${name}.1 failed")
  endif()
endfunction()

set(see "")
foreach(c IN LISTS commands)
  list(APPEND see "perfgate-${c}(1)")
endforeach()
pg_page(perfgate "${SUMMARY}" HELP help SEE ${see} "perf(1)")
foreach(c IN LISTS commands)
  pg_page(perfgate-${c} "${summary_${c}}" HELP help ${c} DOC ${c}.md SEE "perfgate(1)")
endforeach()
