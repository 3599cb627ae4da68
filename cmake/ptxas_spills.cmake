# Included by the nvcc test scripts: checks on a ptxas -v report (`log`, nvcc -Xptxas -v
# output), each failing with `what` and the log.

# Fails unless `log` has at least one line matching `pattern` and every one of them reads
# `zero` (`problem` names what a nonzero one means).
function(polyfuse_require_all_zero log pattern zero problem what)
  string(REGEX MATCHALL "${pattern}" found "${log}")
  if(found STREQUAL "")
    message(FATAL_ERROR "${what}: no ptxas -v report:\n${log}")
  endif()
  foreach(f ${found})
    if(NOT f STREQUAL "${zero}")
      message(FATAL_ERROR "${what}: ${problem}: ${f}\n${log}")
    endif()
  endforeach()
endfunction()

# Every function has 0 bytes of spill stores and loads.
function(polyfuse_require_no_spills log what)
  polyfuse_require_all_zero("${log}" "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads"
                            "0 bytes spill stores, 0 bytes spill loads" "register spills" "${what}")
  message(STATUS "${what}: 0 bytes spill")
endfunction()

# Every function has a 0-byte stack frame: a stack frame means local memory (a register
# array indexed at run time, or spills).
function(polyfuse_require_no_stack_frame log what)
  polyfuse_require_all_zero("${log}" "[0-9]+ bytes stack frame" "0 bytes stack frame" "local memory" "${what}")
endfunction()
