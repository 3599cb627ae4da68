# Runs the planted-bug build of the layout oracle tests (EXE) on one test (FILTER) and passes
# only if that test fails and prints a mismatch line matching EXPECTED: the oracle caught the
# planted layout bug, and for the reason it was planted. Prints the mismatch lines it saw.
execute_process(COMMAND "${EXE}" "--gtest_filter=${FILTER}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "layout mismatch: [^\n]*" mismatches "${out}${err}")
list(LENGTH mismatches count)
if(rc EQUAL 0)
  message(FATAL_ERROR "${FILTER} passed on the planted layout bug: the oracle did not catch it\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "layout mismatch: ${EXPECTED}")
  message(FATAL_ERROR "${FILTER} failed, but without the expected mismatch 'layout mismatch: ${EXPECTED}'\n${out}${err}")
endif()
list(SUBLIST mismatches 0 3 first)
string(REPLACE ";" "\n  " first "${first}")
message(STATUS "caught (${FILTER} failed as it must; first mismatches):\n  ${first}")
