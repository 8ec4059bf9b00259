# Project-wide compile settings: warnings, determinism flags, sanitizers.
#
# Determinism (house style section 3): -ffp-contract=off everywhere (no fused multiply-add, so
# x86-64 and wasm32 round identically); never -ffast-math or -Ofast.
add_compile_options(-ffp-contract=off -fno-fast-math)
# x86-64 uses SSE2 for double (no x87 excess precision) and wasm32 has IEEE f64 ops, so the
# remaining sources of divergence are FMA contraction (off above) and libm (never called).

# Build time: GCC's variable-tracking-assignments pass (on by default with -g at -O1 and above)
# costs a sixth of the CPU time of the heaviest translation units (docs/building.md, First start:
# server/src/net/ws_session.cpp 43.6 -> 36.3 s, proto/codec/scenario_json.cpp 15.0 -> 12.1 s).
# Without it the RelWithDebInfo build keeps full debug information (types, functions, file:line
# for backtraces); only the locations of local variables in optimised code are tracked less
# precisely (gdb says "<optimized out>" more often). Debug information does not change the code
# GCC generates, so the server runs exactly as fast. Also at the link: the LTO step of
# flockstep_shared generates its code, and its debug information, there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
  add_compile_options(-fno-var-tracking-assignments)
  add_link_options(-fno-var-tracking-assignments)
endif()

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

if(EMSCRIPTEN)
  # Tests and tools run under node: one self-contained .js file each, no fetch() of a .wasm.
  # NODERAWFS: std::filesystem/fopen see the real files (the hygiene test walks shared/).
  # TOTAL_STACK: emscripten 3.1.6 (Debian 12) does not know STACK_SIZE (added in 3.1.25; newer
  # versions still accept TOTAL_STACK). 5 MiB is 3.1.6's default, stated so newer versions,
  # whose default is 64 KiB, behave the same.
  set(FLOCKSTEP_WASM_NODE_LINK_FLAGS -sENVIRONMENT=node -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1
      -sTOTAL_STACK=5242880 -sEXIT_RUNTIME=1 -sNODERAWFS=1)
endif()
