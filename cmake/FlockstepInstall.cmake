# Install rules and the exported CMake package, so another C++ game can
#
#   find_package(Flockstep 0.9 REQUIRED)
#   target_link_libraries(game PRIVATE flockstep::shared)
#
# and get the behaviour + simulation library, its headers and the compile options its
# determinism needs (-ffp-contract=off, no fast math: house style section 3). Also installs the
# server, the bot and the scenarios. Tested by tests/packaging (install into a temporary prefix,
# build and run tests/packaging/consumer against it).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FLOCKSTEP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Flockstep)

# shared/CMakeLists.txt points its include directory at the source tree; the installed package
# must point at the install prefix instead.
set_property(TARGET flockstep_shared PROPERTY INTERFACE_INCLUDE_DIRECTORIES
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/shared/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_property(TARGET flockstep_shared PROPERTY EXPORT_NAME shared)
# Whoever compiles against the headers (inline code, templates) must round like the library:
# no fused multiply-add contraction, no fast math. Inside this project the same flags are global.
target_compile_options(flockstep_shared INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang,AppleClang>:-ffp-contract=off -fno-fast-math>)
# In optimised GCC builds the archive holds link-time-optimisation objects (shared/CMakeLists.txt);
# GCC's linker plugin, on by default, compiles them at the consumer's link with or without -flto,
# so a consumer needs the same GCC (tests/packaging checks a plain consumer build links and
# computes the golden hash). The ci preset's objects are fat (FLOCKSTEP_FAT_LTO, cmake/Flockstep.cmake):
# they also carry machine code, which a consumer linking with -fno-lto uses instead.

# flockstep_shared links flockstep_warnings privately (warning flags only); a static library's
# export still names it, so it is exported too (it adds nothing to a consumer's compile line).
install(TARGETS flockstep_shared flockstep_warnings EXPORT FlockstepTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/shared/include/flockstep DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT development FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/generated/flockstep/build_info.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flockstep COMPONENT development)
install(EXPORT FlockstepTargets NAMESPACE flockstep:: DESTINATION ${FLOCKSTEP_INSTALL_CMAKEDIR}
  FILE FlockstepTargets.cmake COMPONENT development)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/FlockstepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/FlockstepConfig.cmake INSTALL_DESTINATION ${FLOCKSTEP_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/FlockstepConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/FlockstepConfig.cmake ${PROJECT_BINARY_DIR}/FlockstepConfigVersion.cmake
  DESTINATION ${FLOCKSTEP_INSTALL_CMAKEDIR} COMPONENT development)

if(NOT EMSCRIPTEN)
  install(TARGETS flockstep-server flockstep-bot RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/flockstep/scenarios
    COMPONENT runtime FILES_MATCHING PATTERN "*.json")
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${CMAKE_INSTALL_DATADIR}/flockstep/schemas
    COMPONENT runtime OPTIONAL)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/flockstep COMPONENT runtime)
endif()
