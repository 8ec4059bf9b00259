# ctest driver (cmake -P): install this build into a temporary prefix, configure and build
# tests/packaging/consumer against it with find_package(Flockstep), run it.
# -D BUILD_DIR, SOURCE_DIR, WORK_DIR, CXX_COMPILER, GOLDEN (tests/shared/sim/golden_hashes.hpp)
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER GOLDEN)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_consumer.cmake: -D${v}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("$ ${ARGN}\n${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

# The one golden constant the library's tests pin (flock(500), 2000 ticks).
file(STRINGS ${GOLDEN} line REGEX "kFlock500 = 0x[0-9a-fA-F]+")
string(REGEX MATCH "0x[0-9a-fA-F]+" expected "${line}")
if(NOT expected)
  message(FATAL_ERROR "kFlock500 not found in ${GOLDEN}")
endif()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/flockstep/sim/world.hpp include/flockstep/behavior/steering.hpp
          lib/cmake/Flockstep/FlockstepConfig.cmake lib/cmake/Flockstep/FlockstepConfigVersion.cmake
          bin/flockstep-server share/flockstep/scenarios/arena.json)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# Nothing from the source or build tree may be on the consumer's paths: only the prefix.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/packaging/consumer -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer ${expected})
file(REMOVE_RECURSE ${WORK_DIR})
