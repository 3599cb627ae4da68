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
set(ptxas_log "${out}${err}")

# With MODEL (one fused kernel): `--emit=config`'s register model (codegen/register_model.h)
# against ptxas -v. The model may be above ptxas's count by at most MODEL_OVER and below it by
# at most MODEL_UNDER registers, and says the kernel fits its block's limit (no spill above).
if(MODEL)
  execute_process(COMMAND "${POLYFUSE}" compile "${EXAMPLE}" --emit=config ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE config ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "polyfuse compile --emit=config failed:\n${err}")
  endif()
  if(NOT config MATCHES "registers: ([0-9]+) per thread by the register model .*allows ([0-9]+) to each of")
    message(FATAL_ERROR "--emit=config has no register model line:\n${config}")
  endif()
  set(model ${CMAKE_MATCH_1})
  set(limit ${CMAKE_MATCH_2})
  if(NOT ptxas_log MATCHES "Used ([0-9]+) registers")
    message(FATAL_ERROR "no register count in the ptxas -v report:\n${ptxas_log}")
  endif()
  set(used ${CMAKE_MATCH_1})
  math(EXPR over "${model} - ${used}")
  math(EXPR under "${used} - ${model}")
  if(model GREATER limit OR over GREATER MODEL_OVER OR under GREATER MODEL_UNDER)
    message(FATAL_ERROR "nvcc ${ARCH}: ${EXAMPLE} ${ARGS}: the register model says ${model} (limit ${limit}), ptxas -v "
                        "${used}: allowed ${MODEL_OVER} above and ${MODEL_UNDER} below\n${config}")
  endif()
  message(STATUS "nvcc ${ARCH}: ${EXAMPLE} ${ARGS}: register model ${model}, ptxas ${used}, limit ${limit}")
endif()
