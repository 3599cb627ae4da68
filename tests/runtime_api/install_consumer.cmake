# runtime_api.install_consumer: installs the build tree into a temporary prefix, then
# configures, builds and runs tests/runtime_api/consumer against it.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_SOURCE=... -DGENERATOR=... -DEXAMPLE=... -P install_consumer.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok\n${out}")
endfunction()

run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(file include/polyfuse/polyfuse.h lib/cmake/polyfuse/polyfuseConfig.cmake)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "the installed tree lacks ${file}")
  endif()
endforeach()
run("configure the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run("build the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("run the consumer" "${WORK_DIR}/build/consumer" "${EXAMPLE}")
