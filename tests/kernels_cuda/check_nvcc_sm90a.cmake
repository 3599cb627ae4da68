# The static checks of Hopper kernels (issue 17 item 4), run as a ctest script:
#   cmake -DNVCC=... -DSOURCE=k.cu -DINCLUDE=kernels/cuda -DOUTPUT=k.o [-DEXPECT_DIAGNOSTIC=C7511]
#         -P check_nvcc_sm90a.cmake
# Compiles SOURCE with nvcc -gencode arch=compute_90a,code=sm_90a and ptxas -v, and fails on a
# compile error, on any register spill, and on any ptxas diagnostic: a warning, or an info line
# with a diagnostic code, such as
#   (C7510/C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized ...
#   (C7517) warpgroup.wait is injected ... to allow use of registers defined by GMMA
# (CUDA 13 reports these as "ptxas info"). Prints the resource line of every kernel.
# With EXPECT_DIAGNOSTIC the script checks itself on a planted kernel: it passes only when
# ptxas reports that code.
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/ptxas_spills.cmake")
execute_process(
  COMMAND "${NVCC}" -std=c++17 -gencode arch=compute_90a,code=sm_90a -I${INCLUDE} -c "${SOURCE}" -o "${OUTPUT}"
          -Xptxas -v
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc sm_90a failed:\n${log}")
endif()

# Every ptxas line that is a warning or carries a diagnostic code.
string(REPLACE ";" "," text "${log}")
string(REPLACE "\n" ";" lines "${text}")
set(diagnostics "")
foreach(line IN LISTS lines)
  if(line MATCHES "^ptxas" AND (line MATCHES "[Ww]arning" OR line MATCHES "\\(C[0-9][0-9][0-9][0-9]\\)"))
    string(APPEND diagnostics "${line}\n")
  endif()
endforeach()

if(DEFINED EXPECT_DIAGNOSTIC)
  if(NOT diagnostics MATCHES "\\(${EXPECT_DIAGNOSTIC}\\)")
    message(FATAL_ERROR "the planted kernel ${SOURCE} was expected to make ptxas report ${EXPECT_DIAGNOSTIC}, "
                        "it reported:\n${diagnostics}")
  endif()
  message(STATUS "ptxas reports the planted ${EXPECT_DIAGNOSTIC}:\n${diagnostics}")
  return()
endif()
if(NOT diagnostics STREQUAL "")
  message(FATAL_ERROR "ptxas diagnostics for sm_90a (wgmma serialised, waits injected, or warnings):\n"
                      "${diagnostics}\nfull log:\n${log}")
endif()
polyfuse_require_no_spills("${log}" "nvcc sm_90a")

# Resources per kernel: "kernel: N registers, M bytes smem" from the ptxas report.
set(kernel "")
foreach(line IN LISTS lines)
  if(line MATCHES "Compiling entry function '([^']+)'")
    set(kernel "${CMAKE_MATCH_1}")
  elseif(line MATCHES "Used ([0-9]+) registers" AND NOT kernel STREQUAL "")
    string(REGEX REPLACE "^ptxas info *: *" "" usage "${line}")
    message(STATUS "${kernel}: ${usage}")
    set(kernel "")
  endif()
endforeach()
