# ctest script (cmake -P): builds tests/sim/standalone/roundtrip.cu with plain
# `nvcc -cudart shared` at test time, runs it with LD_LIBRARY_PATH=SIMCUDA_LIB_DIR, and checks that
# it loaded the simulated libcudart, that data survived the round trip, and that a D2H copy
# behind 10 kernels returned no earlier than 10 x KERNEL_NS.
# Inputs: NVCC SOURCE WORK_DIR SIMCUDA_LIB_DIR KERNEL_NS SOVERSION, PRELOAD (ASan runtime or "").
# Must never use project compile flags (the program stands for one built outside the project).
foreach(var NVCC SOURCE WORK_DIR SIMCUDA_LIB_DIR KERNEL_NS SOVERSION)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_standalone.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(exe "${WORK_DIR}/roundtrip")
execute_process(
  COMMAND "${NVCC}" -cudart shared -DCUDART_SOVERSION=${SOVERSION} -o "${exe}" "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 150)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc -cudart shared failed (${rc}):\n${out}\n${err}")
endif()

# The program's own environment only: no sanitizer build flags reach it; the ASan runtime is
# preloaded when the simulated libraries were built with it.
set(env "LD_LIBRARY_PATH=${SIMCUDA_LIB_DIR}" "BRRR_SIM_KERNEL_NS=${KERNEL_NS}")
if(PRELOAD)
  list(APPEND env "LD_PRELOAD=${PRELOAD}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env ${env} "${exe}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the standalone program failed (${rc}):\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "standalone program output:\n${out}")

if(NOT out MATCHES "cudart=([^\n]*)")
  message(FATAL_ERROR "the program did not report which libcudart it loaded:\n${out}")
endif()
get_filename_component(loaded_dir "${CMAKE_MATCH_1}" DIRECTORY)
get_filename_component(loaded_dir "${loaded_dir}" REALPATH)
get_filename_component(sim_dir "${SIMCUDA_LIB_DIR}" REALPATH)
if(NOT loaded_dir STREQUAL sim_dir)
  message(FATAL_ERROR "the program loaded ${CMAKE_MATCH_1}, not the simulated libcudart in ${sim_dir}")
endif()

if(NOT out MATCHES "checksum_sent=([0-9]+) checksum_received=([0-9]+)")
  message(FATAL_ERROR "no checksums in the output:\n${out}")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
  message(FATAL_ERROR "data changed in the H2D/D2D/D2H round trip: sent ${CMAKE_MATCH_1}, "
                      "received ${CMAKE_MATCH_2}")
endif()

if(NOT out MATCHES "d2h_after_kernels_ns=([0-9]+)")
  message(FATAL_ERROR "no D2H timing in the output:\n${out}")
endif()
math(EXPR minimum "10 * ${KERNEL_NS}")
if(CMAKE_MATCH_1 LESS minimum)
  message(FATAL_ERROR "the D2H copy returned ${CMAKE_MATCH_1} ns after 10 kernels of "
                      "${KERNEL_NS} ns were launched: it did not wait for them")
endif()
