# cpack-config.cmake - read by cpack when it runs (CPACK_PROJECT_CONFIG_FILE):
# the package takes the exact version of the build (pg_version.txt, written
# at every build by version.cmake), not the one known when CMake configured.
# File name: perfgate_<version>_<distro><release>_<arch>.deb, e.g.
# perfgate_0.2.0_debian12_amd64.deb: a package links the libraries of the
# release it was built on (libgit2-1.5 on Debian 12), so a release carries
# one .deb per distribution and ci/install-perfgate.sh picks the one for
# the machine it runs on.
file(STRINGS "${CPACK_PG_VERSION_TXT}" pg_v LIMIT_COUNT 1)
set(CPACK_PACKAGE_VERSION "${pg_v}")
set(CPACK_DEBIAN_PACKAGE_VERSION "${pg_v}")
set(pg_distro "")
if(EXISTS /etc/os-release)
  file(STRINGS /etc/os-release pg_os REGEX "^(ID|VERSION_ID)=")
  foreach(l IN LISTS pg_os)
    if(l MATCHES "^ID=\"?([a-z0-9.]+)\"?$")
      set(pg_id ${CMAKE_MATCH_1})
    elseif(l MATCHES "^VERSION_ID=\"?([a-z0-9.]+)\"?$")
      set(pg_ver ${CMAKE_MATCH_1})
    endif()
  endforeach()
  if(pg_id)
    set(pg_distro "_${pg_id}${pg_ver}")
  endif()
endif()
execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE pg_arch
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT pg_arch)
  message(FATAL_ERROR "cpack-config.cmake: 'dpkg --print-architecture' failed (not a Debian system?)")
endif()
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${pg_arch})
set(CPACK_DEBIAN_FILE_NAME "perfgate_${pg_v}${pg_distro}_${pg_arch}.deb")
