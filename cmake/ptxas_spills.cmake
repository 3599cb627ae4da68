# Included by the nvcc test scripts.
# polyfuse_require_no_spills: fails unless `log` (nvcc -Xptxas -v output) has a ptxas
# report and every function in it has 0 bytes of spill stores and loads.
function(polyfuse_require_no_spills log what)
  string(REGEX MATCHALL "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads" spills "${log}")
  if(spills STREQUAL "")
    message(FATAL_ERROR "${what}: no ptxas -v report:\n${log}")
  endif()
  foreach(s ${spills})
    if(NOT s STREQUAL "0 bytes spill stores, 0 bytes spill loads")
      message(FATAL_ERROR "${what}: register spills: ${s}\n${log}")
    endif()
  endforeach()
  list(LENGTH spills n)
  message(STATUS "${what}: ${n} functions, 0 bytes spill")
endfunction()

# Fails unless every function in `log` (nvcc -Xptxas -v output) has a 0-byte stack frame:
# a stack frame means local memory (a register array indexed at run time, or spills).
function(polyfuse_require_no_stack_frame log what)
  string(REGEX MATCHALL "[0-9]+ bytes stack frame" frames "${log}")
  if(frames STREQUAL "")
    message(FATAL_ERROR "${what}: no ptxas -v report:\n${log}")
  endif()
  foreach(f ${frames})
    if(NOT f STREQUAL "0 bytes stack frame")
      message(FATAL_ERROR "${what}: ${f} (local memory)\n${log}")
    endif()
  endforeach()
endfunction()
