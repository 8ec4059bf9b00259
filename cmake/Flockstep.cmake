# Project-wide compile settings: warnings, determinism flags, sanitizers.
#
# Determinism (house style section 3): -ffp-contract=off everywhere (no fused multiply-add, so
# x86-64 and wasm32 round identically); never -ffast-math or -Ofast.
add_compile_options(-ffp-contract=off -fno-fast-math)
# x86-64 uses SSE2 for double (no x87 excess precision) and wasm32 has IEEE f64 ops, so the
# remaining sources of divergence are FMA contraction (off above) and libm (never called).

# Build time: the optimised build (RelWithDebInfo: the release and ci presets, what runs) carries
# line tables and function names (-g1), not GCC's full debug information (-g): backtraces,
# profilers (perf, valgrind) and sanitizer reports keep function, file and line; only gdb's view
# of local variables and types in this optimised code goes, which the Debug preset (dev) keeps.
# Full -g costs 12 % more compile time in the heaviest translation unit
# (server/src/net/ws_session.cpp: 41.2 user s with -g, 36.1 with -g1) and objects twice as large
# (37 MB against 18 MB), which ccache and the linker pay for on every build. Debug information
# does not change the code GCC generates, so the server runs exactly as fast. Also at the link:
# the LTO step of flockstep_shared generates its code, and its debug information, there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -g1 -DNDEBUG")
  if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
    add_link_options(-g1)
  endif()
endif()

# Link-time optimisation of flockstep_shared (shared/CMakeLists.txt). It is worth 4.8 % of the
# 10,000-boid flock tick's instructions and 5.3 % of the arena's (callgrind, 2026-11-27), and it
# costs 17-23 CPU s at every link of an executable (GCC compiles the whole library again there).
# Only the binaries whose speed is shipped or measured need it: the server and the benchmarks.
# With FLOCKSTEP_FAT_LTO (the ci preset, what scripts/test.sh builds) the library's objects are
# "fat" (GIMPLE and machine code), and the tests, the bot and the bench tools link the machine
# code with -fno-lto, skipping that step: 137 CPU s of links become 4, for 27 CPU s more
# compiling (docs/building.md). Their code is the same source compiled with the same determinism
# flags, and the golden-hash tests pin its bits. Off in the release preset: scripts/run.sh
# builds only the server, which would pay for the machine code and never use it.
option(FLOCKSTEP_LTO "Link-time optimisation of flockstep_shared in optimised GCC builds" ON)
option(FLOCKSTEP_FAT_LTO "Fat LTO objects: tests and tools link flockstep_shared without the LTO step" OFF)
if(FLOCKSTEP_LTO AND NOT EMSCRIPTEN AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU"
   AND CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo)$")
  set(FLOCKSTEP_SHARED_LTO ON)
else()
  set(FLOCKSTEP_SHARED_LTO OFF)
endif()
# flockstep_link_without_lto(TARGET): TARGET, which is not timed, links flockstep_shared's
# machine code (no LTO step) where the objects carry it.
function(flockstep_link_without_lto target)
  if(FLOCKSTEP_SHARED_LTO AND FLOCKSTEP_FAT_LTO)
    target_link_options(${target} PRIVATE -fno-lto)
  endif()
endfunction()

# Build time: unity builds (CMake's UNITY_BUILD) for the product's libraries in the presets that
# build from scratch most often (release/ci, what scripts/run.sh and CI build; wasm, where every
# em++ call also pays for its Python driver). One translation unit of many sources parses the
# common headers (Beast, Asio, protobuf, nlohmann_json, the standard library) once and
# instantiates and optimises each shared template once instead of once per source: the server's
# library took 221 CPU s as 26 translation units and 110 s as one (docs/building.md, First start).
# The dev preset keeps one translation unit per source, so editing a file recompiles that file
# only. Sources in one unity file share a scope: file-local names (anonymous namespaces, static
# functions) must differ between the sources of a library, which the unity presets check by
# compiling.
option(FLOCKSTEP_UNITY_BUILD "Compile the product libraries as unity builds (faster cold builds)" OFF)

# flockstep_unity(TARGET [BATCH n] [ALONE source...]): TARGET as unity build(s) of n sources each
# (0: one unity file for all) when FLOCKSTEP_UNITY_BUILD is on; ALONE sources stay their own
# translation unit (a very large one compiles beside the unity file on the second core).
function(flockstep_unity target)
  cmake_parse_arguments(U "" "BATCH" "ALONE" ${ARGN})
  if(NOT FLOCKSTEP_UNITY_BUILD)
    return()
  endif()
  if(NOT DEFINED U_BATCH)
    set(U_BATCH 0)
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${U_BATCH})
  if(U_ALONE)
    set_source_files_properties(${U_ALONE} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()

add_library(flockstep_warnings INTERFACE)
add_library(flockstep::warnings ALIAS flockstep_warnings)
target_compile_options(flockstep_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
  -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
  -Wdouble-promotion -Wimplicit-fallthrough)
# GCC's -Wpsabi notice (how a 32-byte vector would be passed without AVX) concerns only calls
# that are not inlined; the lane types of shared/math/lanes.hpp are always inlined.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(flockstep_warnings INTERFACE -Wno-psabi)
endif()
# No -Wnull-dereference: GCC 12 reports it from inlined protobuf-generated code at -O2 even
# through SYSTEM include dirs (flow-based false positives), which -Werror turns into failures.
if(FLOCKSTEP_WERROR)
  target_compile_options(flockstep_warnings INTERFACE -Werror)
endif()

if(FLOCKSTEP_SANITIZE AND NOT EMSCRIPTEN)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
# The sanitize preset (the test command's sanitizer stage) compiles flockstep_shared at -O1
# (shared/CMakeLists.txt): the simulation tests spend their time in that library, and ASan code at
# -O0 keeps every local on an instrumented stack. Measured on the 2-core VM (2026-11-27): the
# shared suite under ctest -j2 took 98 s of wall time instead of about 230 (186 against 456 CPU
# s), for about 100 CPU s more compiling of the library's four unity units. The checks are the
# same (-O1 is ASan's recommended level); the dev preset keeps -O0 for the debugger.
option(FLOCKSTEP_SANITIZE_OPTIMIZE_SHARED "Compile flockstep_shared at -O1 in sanitizer builds" OFF)

if(EMSCRIPTEN)
  # Tests and tools run under node: one self-contained .js file each, no fetch() of a .wasm.
  # NODERAWFS: std::filesystem/fopen see the real files (the hygiene test walks shared/).
  # TOTAL_STACK: emscripten 3.1.6 (Debian 12) does not know STACK_SIZE (added in 3.1.25; newer
  # versions still accept TOTAL_STACK). 5 MiB is 3.1.6's default, stated so newer versions,
  # whose default is 64 KiB, behave the same.
  set(FLOCKSTEP_WASM_NODE_LINK_FLAGS -sENVIRONMENT=node -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1
      -sTOTAL_STACK=5242880 -sEXIT_RUNTIME=1 -sNODERAWFS=1)
endif()
