# packaging.cmake - what an installed perfgate carries besides the binary
# and docs/, and `make deb` (CPack's DEB generator):
#   share/man/man1/perfgate.1.gz, perfgate-<command>.1.gz   from --help (man.cmake)
#   share/bash-completion/completions/perfgate              (perfgate.bash)
#   share/perfgate/ci/                                      the GitHub action, the GitLab
#                                                           template and their scripts
#   share/doc/perfgate/copyright, changelog.gz
# The package's runtime dependencies are what dpkg-shlibdeps derives from
# the libraries the binary links (libcjson1, libc6), plus libgit2,
# libcapstone4 (annotate), libdw1 and libelf1 (symbolization, annotate,
# doctor), libncursesw6 (top's terminal view) and zlib1g (reading git
# objects), which are loaded when first used (below); libiberty is linked
# statically).
set(PERFGATE_DEB_MAINTAINER "perfgate developers <perfgate@users.noreply.github.com>"
    CACHE STRING "Maintainer field of the Debian package (name <address>)")

add_executable(pg-manpage ${CMAKE_SOURCE_DIR}/packaging/manpage.c)
file(GLOB PG_DOC_PAGES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
set(PG_MAN_DIR ${CMAKE_BINARY_DIR}/man/man1) # MANPATH=build/man finds them
add_custom_command(
  OUTPUT ${PG_MAN_DIR}/stamp
  COMMAND ${CMAKE_COMMAND} -DPERFGATE=$<TARGET_FILE:perfgate> -DTOOL=$<TARGET_FILE:pg-manpage>
          -DSRC=${CMAKE_SOURCE_DIR} -DOUT=${PG_MAN_DIR} -DDOCDIR=${CMAKE_INSTALL_FULL_DOCDIR}
          "-DSUMMARY=${PROJECT_DESCRIPTION}" -DVERSION_TXT=${CMAKE_BINARY_DIR}/pg_version.txt
          -P ${CMAKE_SOURCE_DIR}/packaging/man.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${PG_MAN_DIR}/stamp
  DEPENDS perfgate pg-manpage ${PG_DOC_PAGES} ${CMAKE_SOURCE_DIR}/packaging/man.cmake
          ${CMAKE_SOURCE_DIR}/packaging/version.cmake ${CMAKE_BINARY_DIR}/pg_version.txt
  VERBATIM)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/changelog.gz
  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DVERSION_TXT=${CMAKE_BINARY_DIR}/pg_version.txt
          "-DMAINTAINER=${PERFGATE_DEB_MAINTAINER}" -DOUT=${CMAKE_BINARY_DIR}/changelog.gz
          -P ${CMAKE_SOURCE_DIR}/packaging/changelog.cmake
  DEPENDS ${CMAKE_BINARY_DIR}/pg_version.txt ${CMAKE_SOURCE_DIR}/packaging/changelog.cmake
  VERBATIM)
add_custom_target(pg_docs_generated ALL DEPENDS ${PG_MAN_DIR}/stamp ${CMAKE_BINARY_DIR}/changelog.gz)

install(DIRECTORY ${PG_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "*.1.gz")
install(FILES ${CMAKE_SOURCE_DIR}/packaging/perfgate.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME perfgate)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/packaging/copyright
              ${CMAKE_BINARY_DIR}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# the CI files keep their layout: the action finds ../perfgate-ci.sh and
# ../install-deps.sh beside it, the GitLab template uses PERFGATE_SRC/ci/
install(PROGRAMS ${CMAKE_SOURCE_DIR}/ci/perfgate-ci.sh ${CMAKE_SOURCE_DIR}/ci/install-deps.sh
                 ${CMAKE_SOURCE_DIR}/ci/install-perfgate.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate/ci)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/ci/github ${CMAKE_SOURCE_DIR}/ci/gitlab
        DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate/ci
        FILES_MATCHING PATTERN "*.yml" PATTERN "*.yaml")

# `make deb`: cpack -G DEB in a build configured with CMAKE_INSTALL_PREFIX=/usr
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perfgate)
set(CPACK_PACKAGE_VENDOR "perfgate developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "perfgate runs benchmarks under Linux perf_event counters and sampling,
stores the results as JSON baselines in git, and fails CI when a change is
a real performance regression (robust statistics, differential flame
graphs, one pull/merge request comment). It ships man pages, bash
completion, and the GitHub action and GitLab CI template under
/usr/share/perfgate/ci.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PERFGATE_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libgit2, capstone, libdw and libelf are loaded with dlopen() when first
# used (CMakeLists.txt), so dpkg-shlibdeps does not see them: depend on the
# packages of the libraries the build compiled against, by hand
# (pkg-config prefix:library name)
set(PG_DLOPEN_DEPENDS "")
foreach(pg_pair LIBGIT2:git2 CAPSTONE:capstone LIBDW_libdw:dw LIBDW_libelf:elf)
  string(REPLACE ":" ";" pg_pair "${pg_pair}")
  list(GET pg_pair 0 pg_mod)
  list(GET pg_pair 1 pg_lib)
  get_filename_component(pg_so "${${pg_mod}_LIBDIR}/lib${pg_lib}.so" REALPATH)
  execute_process(COMMAND dpkg-query -S "${pg_so}" OUTPUT_VARIABLE pg_owner
                  RESULT_VARIABLE pg_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(pg_rc EQUAL 0 AND pg_owner MATCHES "^([a-z0-9.+-]+)(:[a-z0-9]+)?: ")
    list(APPEND PG_DLOPEN_DEPENDS "${CMAKE_MATCH_1} (>= ${${pg_mod}_VERSION})")
  endif()
endforeach()
# ncursesw (cli/cmd_top.c): its .so is a linker script and Debian 12
# registers its files under /lib, so the package is named from the ABI
string(REGEX MATCH "^[0-9]+" pg_nc_abi "${NCURSES_VERSION}")
string(REGEX MATCH "^[0-9]+\\.[0-9]+" pg_nc_ver "${NCURSES_VERSION}")
list(APPEND PG_DLOPEN_DEPENDS "libncursesw${pg_nc_abi} (>= ${pg_nc_ver})")
# zlib (baselines/repostate.c): registered under /lib as well; Debian's
# zlib1g versions carry the epoch 1
list(APPEND PG_DLOPEN_DEPENDS "zlib1g (>= 1:${ZLIB_VERSION})")
list(JOIN PG_DLOPEN_DEPENDS ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "git")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "valgrind, bash-completion")
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# the version (and so the file name) is the build's, read when cpack runs
set(CPACK_PG_VERSION_TXT ${CMAKE_BINARY_DIR}/pg_version.txt)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/packaging/cpack-config.cmake)
include(CPack)
