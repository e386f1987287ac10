# version.cmake - perfgate's exact version, from the first of:
#   1. git, when the source directory is the top of a git work tree:
#      `git describe --tags --match 'v[0-9]*'`: on the tag vX.Y.Z "X.Y.Z",
#      N commits after it "X.Y.Z+N.gSHA"; no such tag: "<VERSION>+gSHA";
#      uncommitted changes add ".dirty" (or "+dirty" on the tag itself);
#   2. packaging/archival.txt as `git archive` writes it (export-subst in
#      .gitattributes): the same describe output and commit, so a release
#      tarball knows its version without git;
#   3. the VERSION file (a tarball made any other way).
# The result is a Debian upstream version (digits first; [0-9A-Za-z.+~]):
# "+N.gSHA" sorts after the tag and before the next release (deb-version(7)).
#
# Script mode: cmake -DSRC=DIR [-DOUT=FILE.c] [-DOUT_TXT=FILE] -P version.cmake
# writes `const char pg_version[] = "...";` to OUT and the bare version to
# OUT_TXT, each only when it changed (so nothing rebuilds for nothing), and
# prints the version when neither is given.

# pg_version_from_describe(OUT DESC SHA DIRTY BASE): DESC is `git describe
# --long` output ("v1.2.0-5-gabc1234") or empty, SHA the abbreviated commit.
function(pg_version_from_describe out desc sha dirty base)
  if(desc MATCHES "^v([0-9][0-9A-Za-z.~]*)-([0-9]+)-g([0-9a-f]+)$")
    set(v ${CMAKE_MATCH_1})
    if(CMAKE_MATCH_2 STREQUAL "0")
      if(dirty)
        string(APPEND v "+dirty")
      endif()
    else()
      string(APPEND v "+${CMAKE_MATCH_2}.g${CMAKE_MATCH_3}")
      if(dirty)
        string(APPEND v ".dirty")
      endif()
    endif()
  else()
    set(v "${base}+g${sha}")
    if(dirty)
      string(APPEND v ".dirty")
    endif()
  endif()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

# pg_git_own(OUT SRC): TRUE when SRC is the top of its own git work tree
# (PG_GIT set). Only this tree's own repository counts: a tarball unpacked
# inside another project's work tree must not take that project's version.
function(pg_git_own out src)
  set(${out} FALSE PARENT_SCOPE)
  find_program(PG_GIT git)
  if(NOT PG_GIT)
    return()
  endif()
  execute_process(COMMAND ${PG_GIT} -C "${src}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${src}" realsrc)
    if(top STREQUAL realsrc)
      set(${out} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

# pg_version(OUT SRC): the version of the source tree SRC (rules above).
function(pg_version out src)
  file(STRINGS "${src}/VERSION" base LIMIT_COUNT 1)
  string(STRIP "${base}" base)
  if(NOT base MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
    message(FATAL_ERROR "${src}/VERSION must hold a version X.Y.Z, not '${base}'")
  endif()
  pg_git_own(own "${src}")
  if(own)
    execute_process(COMMAND ${PG_GIT} -C "${src}" rev-parse --short=7 HEAD
                    OUTPUT_VARIABLE sha RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0) # else: no commit yet
      execute_process(COMMAND ${PG_GIT} -C "${src}" describe --tags --long --match "v[0-9]*"
                      OUTPUT_VARIABLE desc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      execute_process(COMMAND ${PG_GIT} -C "${src}" status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE st ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      set(dirty FALSE)
      if(st)
        set(dirty TRUE)
      endif()
      pg_version_from_describe(v "${desc}" "${sha}" ${dirty} "${base}")
      set(${out} "${v}" PARENT_SCOPE)
      return()
    endif()
  endif()
  if(EXISTS "${src}/packaging/archival.txt")
    file(STRINGS "${src}/packaging/archival.txt" lines)
    set(node "")
    set(desc "")
    foreach(l IN LISTS lines)
      if(l MATCHES "^node: ([0-9a-f]+)$")
        set(node ${CMAKE_MATCH_1})
      elseif(l MATCHES "^describe-name: (v[0-9].*)$")
        set(desc ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(node)
      string(SUBSTRING "${node}" 0 7 sha)
      # %(describe) gives the short form on the tag itself ("v1.2.0")
      if(desc MATCHES "^v[0-9][0-9A-Za-z.~]*$")
        set(desc "${desc}-0-g${sha}")
      endif()
      pg_version_from_describe(v "${desc}" "${sha}" FALSE "${base}")
      set(${out} "${v}" PARENT_SCOPE)
      return()
    endif()
  endif()
  set(${out} "${base}" PARENT_SCOPE)
endfunction()

# pg_source_date(OUT SRC FORMAT): the date a build of SRC carries (man page,
# changelog): SOURCE_DATE_EPOCH's when set (reproducible builds), else the
# HEAD commit's in a git checkout, else now. FORMAT is string(TIMESTAMP)'s.
function(pg_source_date out src format)
  pg_git_own(own "${src}")
  if(own AND NOT DEFINED ENV{SOURCE_DATE_EPOCH})
    execute_process(COMMAND ${PG_GIT} -C "${src}" log -1 --format=%ct
                    OUTPUT_VARIABLE epoch RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND epoch MATCHES "^[0-9]+$")
      set(ENV{SOURCE_DATE_EPOCH} ${epoch})
    endif()
  endif()
  string(TIMESTAMP d "${format}" UTC) # honours SOURCE_DATE_EPOCH
  set(${out} "${d}" PARENT_SCOPE)
endfunction()

# write FILE with CONTENT unless it already holds exactly that
function(pg_write_if_changed file content)
  if(EXISTS "${file}")
    file(READ "${file}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${file}" "${content}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT SRC)
    message(FATAL_ERROR "usage: cmake -DSRC=DIR [-DOUT=FILE.c] [-DOUT_TXT=FILE] -P version.cmake")
  endif()
  pg_version(v "${SRC}")
  if(OUT)
    pg_write_if_changed("${OUT}" "/* generated by packaging/version.cmake */\nconst char pg_version[] = \"${v}\";\n")
  endif()
  if(OUT_TXT)
    pg_write_if_changed("${OUT_TXT}" "${v}\n")
  endif()
  if(NOT OUT AND NOT OUT_TXT)
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${v}")
  endif()
endif()
