# Precompiled headers (CMake's target_precompile_headers, one per target): the external
# headers nearly every file of the compiler and of the test suites parses — isl's C++
# bindings (30,000 lines), fmt, GoogleTest and the standard library's most used headers —
# parsed once per target instead of once per file. About half of a test file's or a
# compiler file's build was parsing them (2026-12-02, g++ 12: a test file 5.7 s -> 3.7 s,
# codegen/attention_producer.cc 5.8 s -> 3.7 s). Only headers from outside the project: a
# file's own includes and macros come after them exactly as before.
#   POLYFUSE_PRECOMPILED_HEADERS=OFF: none (every file parses its headers itself).
option(POLYFUSE_PRECOMPILED_HEADERS "Precompile the external headers the compiler's and the tests' files share" ON)

set(polyfuse_common_headers
  <isl/cpp.h> <fmt/format.h>
  <algorithm> <cmath> <cstdint> <cstring> <filesystem> <fstream> <functional> <map> <memory>
  <optional> <set> <sstream> <stdexcept> <string> <string_view> <unordered_map> <utility> <variant> <vector>)

# polyfuse_precompile_headers(TARGET... [TESTS] [HEADERS <header>...]): the common headers
# above (with TESTS, GoogleTest's too; and the HEADERS given) precompiled for the C++ files of
# each TARGET.
function(polyfuse_precompile_headers)
  cmake_parse_arguments(PARSE_ARGV 0 arg "TESTS" "" "HEADERS")
  if(NOT POLYFUSE_PRECOMPILED_HEADERS)
    return()
  endif()
  set(headers ${polyfuse_common_headers})
  if(arg_TESTS)
    list(APPEND headers <gtest/gtest.h>)
  endif()
  list(APPEND headers ${arg_HEADERS})
  # (C++ files only; `>` inside a generator expression is spelt $<ANGLE-R>)
  list(TRANSFORM headers REPLACE "^<(.*)>$" "$<$<COMPILE_LANGUAGE:CXX>:<\\1$<ANGLE-R>>")
  foreach(target ${arg_UNPARSED_ARGUMENTS})
    target_precompile_headers(${target} PRIVATE ${headers})
  endforeach()
endfunction()
