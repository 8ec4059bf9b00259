# ctest driver (cmake -P): clang-format --dry-run --Werror on every C++ file of the project
# (.cpp/.hpp/.h/.cc under the source folders; build trees and node_modules are not sources).
# -D SOURCE_DIR=...
# The whole tree is formatted, so the check has no list to keep up to date: a new file is
# checked the moment it exists.
find_program(CLANG_FORMAT NAMES clang-format clang-format-14)
if(NOT CLANG_FORMAT)
  message(FATAL_ERROR "clang-format not found: install the Debian package clang-format (scripts/setup.sh does)")
endif()
set(files)
foreach(dir IN ITEMS bench client proto sdk server shared tests tools)
  file(GLOB_RECURSE found RELATIVE ${SOURCE_DIR}
    ${SOURCE_DIR}/${dir}/*.cpp ${SOURCE_DIR}/${dir}/*.hpp ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cc)
  list(FILTER found EXCLUDE REGEX "(^|/)(node_modules|build)/")
  list(APPEND files ${found})
endforeach()
list(LENGTH files n)
# The project has well over 200 C++ files: a glob that finds a handful means the check is looking
# in the wrong place, not that the tree shrank.
if(n LESS 200)
  message(FATAL_ERROR "format check found only ${n} C++ files under ${SOURCE_DIR}: wrong SOURCE_DIR?")
endif()
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files}
  WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${err}\nNot formatted (run: clang-format -i FILE). Checked ${n} files.")
endif()
message(STATUS "clang-format: ${n} files formatted")
