# Runs `polyfuse compile EXAMPLE --emit=cuda ARGS -o OUT.cu`, then compiles OUT.cu with
# plain `nvcc -arch=ARCH -c` (no include paths: the file must be self-contained) and fails
# on errors, any register spill or any stack frame (local memory) reported by ptxas -v.
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/ptxas_spills.cmake")
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${POLYFUSE}" compile "${EXAMPLE}" --emit=cuda ${args} -o "${OUTPUT}.cu"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "polyfuse compile failed:\n${err}")
endif()
execute_process(COMMAND "${NVCC}" -arch=${ARCH} -c "${OUTPUT}.cu" -o "${OUTPUT}.o" -Xptxas -v
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc ${ARCH} failed:\n${out}${err}")
endif()
polyfuse_require_no_spills("${out}${err}" "nvcc ${ARCH}: ${EXAMPLE} ${ARGS}")
polyfuse_require_no_stack_frame("${out}${err}" "nvcc ${ARCH}: ${EXAMPLE} ${ARGS}")
