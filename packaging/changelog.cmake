# changelog.cmake - the Debian changelog of the package (Debian policy 12.7:
# /usr/share/doc/perfgate/changelog.gz of a native package, deb-changelog(5)
# format): one entry for the version built, pointing at the project's history.
#   cmake -DSRC=DIR -DVERSION_TXT=FILE -DMAINTAINER=TEXT -DOUT=changelog.gz -P changelog.cmake
include(${CMAKE_CURRENT_LIST_DIR}/version.cmake)
file(STRINGS "${VERSION_TXT}" version LIMIT_COUNT 1)
pg_source_date(date "${SRC}" "%a, %d %b %Y %H:%M:%S +0000")
get_filename_component(dir "${OUT}" DIRECTORY)
get_filename_component(name "${OUT}" NAME_WLE)
file(WRITE "${dir}/${name}" "perfgate (${version}) unstable; urgency=medium

  * perfgate ${version}: the git history and tags of the perfgate
    repository are its change log.

 -- ${MAINTAINER}  ${date}
")
execute_process(COMMAND gzip -9nf "${dir}/${name}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "changelog.cmake: gzip failed")
endif()
