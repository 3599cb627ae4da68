# Compiles SOURCE with nvcc for ARCH with -Xptxas -v and fails on errors or any spill.
execute_process(
  COMMAND "${NVCC}" -std=c++17 -arch=${ARCH} -I${INCLUDE} -c "${SOURCE}" -o "${OUTPUT}" -Xptxas -v
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc ${ARCH} failed:\n${log}")
endif()
string(REGEX MATCHALL "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads" spills "${log}")
list(LENGTH spills n)
if(n EQUAL 0)
  message(FATAL_ERROR "nvcc ${ARCH}: no ptxas -v report found:\n${log}")
endif()
foreach(s ${spills})
  if(NOT s STREQUAL "0 bytes spill stores, 0 bytes spill loads")
    message(FATAL_ERROR "nvcc ${ARCH}: register spills: ${s}\n${log}")
  endif()
endforeach()
message(STATUS "nvcc ${ARCH}: ${n} functions, 0 bytes spill")
