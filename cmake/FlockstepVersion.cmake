# One project version (project(... VERSION) in the top-level CMakeLists.txt) and the build's
# provenance, written to a generated header that the programs print with --version and the
# server exports as flockstep_build_info{version,commit} on /metrics.
#
# The git commit is read at configure time (re-run cmake to refresh it); outside a git checkout
# (a source tarball, a container build without .git) it is "unknown".
find_package(Git QUIET)
set(FLOCKSTEP_GIT_COMMIT "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE _flockstep_commit OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _flockstep_git_rc ERROR_QUIET)
  if(_flockstep_git_rc EQUAL 0 AND _flockstep_commit MATCHES "^[0-9a-f]+$")
    set(FLOCKSTEP_GIT_COMMIT "${_flockstep_commit}")
  endif()
endif()
set(FLOCKSTEP_BUILD_TYPE "${CMAKE_BUILD_TYPE}")
if(FLOCKSTEP_BUILD_TYPE STREQUAL "")
  set(FLOCKSTEP_BUILD_TYPE "unknown")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_info.hpp.in
  ${PROJECT_BINARY_DIR}/generated/flockstep/build_info.hpp @ONLY)

add_library(flockstep_build_info INTERFACE)
add_library(flockstep::build_info ALIAS flockstep_build_info)
target_include_directories(flockstep_build_info INTERFACE $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)
