# Runs `polyfuse compile EXAMPLE --emit=cuda ARGS -o OUT.cu`, then compiles OUT.cu with
# plain `nvcc -arch=ARCH -c` (no include paths: the file must be self-contained) and fails
# on errors or any register spill reported by ptxas -v.
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${POLYFUSE}" compile "${EXAMPLE}" --emit=cuda ${args} -o "${OUTPUT}.cu"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "polyfuse compile failed:\n${err}")
endif()
execute_process(COMMAND "${NVCC}" -arch=${ARCH} -c "${OUTPUT}.cu" -o "${OUTPUT}.o" -Xptxas -v
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc ${ARCH} failed:\n${log}")
endif()
string(REGEX MATCHALL "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads" spills "${log}")
if(spills STREQUAL "")
  message(FATAL_ERROR "nvcc ${ARCH}: no ptxas -v report:\n${log}")
endif()
foreach(s ${spills})
  if(NOT s STREQUAL "0 bytes spill stores, 0 bytes spill loads")
    message(FATAL_ERROR "nvcc ${ARCH}: register spills: ${s}\n${log}")
  endif()
endforeach()
message(STATUS "nvcc ${ARCH}: ${EXAMPLE} ${ARGS}: 0 bytes spill")
