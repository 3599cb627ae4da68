# Compiles SOURCE with nvcc for ARCH with -Xptxas -v and fails on errors or any spill.
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/ptxas_spills.cmake")
execute_process(
  COMMAND "${NVCC}" -std=c++17 -arch=${ARCH} -I${INCLUDE} -c "${SOURCE}" -o "${OUTPUT}" -Xptxas -v
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc ${ARCH} failed:\n${out}${err}")
endif()
polyfuse_require_no_spills("${out}${err}" "nvcc ${ARCH}")
