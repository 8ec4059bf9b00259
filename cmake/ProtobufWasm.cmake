# libprotobuf-lite for the Emscripten build: the same generated C++ as the server, linked against
# the lite runtime that scripts/build-protobuf-wasm.sh compiles with emcc from the Debian source
# package of the installed protoc (nothing is downloaded at build time).
#
# Provides (only when EMSCRIPTEN):
#   flockstep::protobuf_lite_wasm  imported static library + its headers (as system includes)
#   protobuf::libprotobuf-lite     the same (FindProtobuf's native name, so proto/ needs no if())
#   FLOCKSTEP_PROTOC               the host protoc, whose version the runtime matches exactly
#
# Looks in FLOCKSTEP_PROTOBUF_WASM_DIR if set (cache variable), else in
# ${FLOCKSTEP_CACHE:-$HOME/.cache/flockstep}/protobuf-wasm-<protoc version>.
include_guard(GLOBAL)

if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "ProtobufWasm.cmake is for the Emscripten build; natively use find_package(Protobuf)")
endif()

# The Emscripten toolchain searches programs on the host (CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER).
find_program(FLOCKSTEP_PROTOC protoc)
if(NOT FLOCKSTEP_PROTOC)
  message(FATAL_ERROR "protoc not found: install the Debian package protobuf-compiler (scripts/setup.sh does)")
endif()
execute_process(COMMAND ${FLOCKSTEP_PROTOC} --version OUTPUT_VARIABLE _fs_protoc_out
  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _fs_protoc_rc)
string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" FLOCKSTEP_PROTOC_VERSION "${_fs_protoc_out}")
if(NOT _fs_protoc_rc EQUAL 0 OR NOT FLOCKSTEP_PROTOC_VERSION)
  message(FATAL_ERROR "could not read the version of ${FLOCKSTEP_PROTOC} ('${_fs_protoc_out}')")
endif()

if(DEFINED ENV{FLOCKSTEP_CACHE} AND NOT "$ENV{FLOCKSTEP_CACHE}" STREQUAL "")
  set(_fs_cache "$ENV{FLOCKSTEP_CACHE}")
else()
  set(_fs_cache "$ENV{HOME}/.cache/flockstep")
endif()
set(FLOCKSTEP_PROTOBUF_WASM_DIR "${_fs_cache}/protobuf-wasm-${FLOCKSTEP_PROTOC_VERSION}"
  CACHE PATH "libprotobuf-lite built for wasm by scripts/build-protobuf-wasm.sh (include/ + lib/)")

set(_fs_pb_lib "${FLOCKSTEP_PROTOBUF_WASM_DIR}/lib/libprotobuf-lite.a")
if(NOT EXISTS "${_fs_pb_lib}" OR NOT EXISTS "${FLOCKSTEP_PROTOBUF_WASM_DIR}/include/google/protobuf/message_lite.h")
  message(FATAL_ERROR
    "libprotobuf-lite for wasm (protoc ${FLOCKSTEP_PROTOC_VERSION}) not found in ${FLOCKSTEP_PROTOBUF_WASM_DIR}.\n"
    "Run scripts/build-protobuf-wasm.sh (scripts/setup.sh runs it), or set FLOCKSTEP_PROTOBUF_WASM_DIR.")
endif()

if(NOT TARGET flockstep_protobuf_lite_wasm)
  add_library(flockstep_protobuf_lite_wasm STATIC IMPORTED GLOBAL)
  set_target_properties(flockstep_protobuf_lite_wasm PROPERTIES
    IMPORTED_LOCATION "${_fs_pb_lib}"
    # Imported include directories are system includes for consumers: protobuf's own headers do
    # not pass -Wconversion -Werror.
    INTERFACE_INCLUDE_DIRECTORIES "${FLOCKSTEP_PROTOBUF_WASM_DIR}/include")
  add_library(flockstep::protobuf_lite_wasm ALIAS flockstep_protobuf_lite_wasm)
  # The name FindProtobuf gives the native library, so proto/ links one name in both builds.
  if(NOT TARGET protobuf::libprotobuf-lite)
    add_library(protobuf::libprotobuf-lite ALIAS flockstep_protobuf_lite_wasm)
  endif()
endif()
message(STATUS "wasm libprotobuf-lite: ${_fs_pb_lib} (protoc ${FLOCKSTEP_PROTOC_VERSION})")
