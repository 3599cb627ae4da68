# Precompiled headers (CMake's target_precompile_headers): the external headers nearly every
# file of the compiler and of the test suites parses — isl's C++ bindings (30,000 lines), fmt,
# GoogleTest and the standard library's most used headers — parsed once instead of once per
# file. About half of a test file's or a compiler file's build was parsing them (2026-12-02,
# g++ 12: a test file 5.7 s -> 3.7 s, codegen/attention_producer.cc 5.8 s -> 3.7 s). Only
# headers from outside the project: a file's own includes and macros come after them exactly
# as before.
#   POLYFUSE_PRECOMPILED_HEADERS=OFF: none (every file parses its headers itself).
#
# A header precompiled for one target costs as much as compiling a file (about 7 s with
# g++), so the test suites' targets share them: one per kind of compile that the compilers
# tell apart (position-independent executable or library code; the macros and options that
# imported libraries give, such as fmt's, GoogleTest's and OpenMP's), built by a small host
# target of that kind
# (CMake's REUSE_FROM waits for the whole target it reuses from). -Werror=invalid-pch: a
# header that a compile cannot use is a build error (GCC would silently parse the headers
# again; clang refuses it anyway).
option(POLYFUSE_PRECOMPILED_HEADERS "Precompile the external headers the compiler's and the tests' files share" ON)

set(polyfuse_common_headers
  <isl/cpp.h> <fmt/format.h>
  <algorithm> <cmath> <cstdint> <cstring> <filesystem> <fstream> <functional> <map> <memory>
  <optional> <set> <sstream> <stdexcept> <string> <string_view> <unordered_map> <utility> <variant> <vector>)

# Sets `out` to the imported targets that `target` links, directly or through the targets it
# links, and that change how the precompiled headers compile: those that give their users
# compile options (OpenMP's -fopenmp), and those of `precompiled` (the libraries whose headers
# are precompiled) that give them macros (fmt's FMT_SHARED, GoogleTest's GTEST_HAS_PTHREAD).
function(polyfuse_imported_compile_settings target precompiled out)
  set(pending ${target})
  set(seen "")
  set(found "")
  while(pending)
    list(POP_FRONT pending current)
    if(current IN_LIST seen OR NOT TARGET ${current})
      continue()
    endif()
    list(APPEND seen ${current})
    get_target_property(aliased ${current} ALIASED_TARGET)
    if(aliased)
      if(current IN_LIST precompiled)
        list(APPEND precompiled ${aliased})
      endif()
      list(APPEND pending ${aliased})
      continue()
    endif()
    get_target_property(imported ${current} IMPORTED)
    if(imported)
      get_target_property(definitions ${current} INTERFACE_COMPILE_DEFINITIONS)
      get_target_property(options ${current} INTERFACE_COMPILE_OPTIONS)
      if(options OR (definitions AND current IN_LIST precompiled))
        list(APPEND found ${current})
      endif()
    endif()
    # Usage requirements come through the target's own links and every linked target's
    # interface links, not through links that are for the linker only.
    set(links "")
    if(current STREQUAL target)
      get_target_property(links ${current} LINK_LIBRARIES)
    endif()
    get_target_property(interface_links ${current} INTERFACE_LINK_LIBRARIES)
    foreach(link ${links} ${interface_links})
      if(TARGET "${link}")
        list(APPEND pending ${link})
      endif()
    endforeach()
  endwhile()
  list(SORT found)
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# polyfuse_precompile_headers(TARGET... [TESTS] [SHARED] [HEADERS <header>...]): the common
# headers above (with TESTS, GoogleTest's too; and the HEADERS given) precompiled for the C++
# files of each TARGET. With SHARED, targets that compile alike reuse one precompiled header
# (call it after the targets' target_link_libraries).
function(polyfuse_precompile_headers)
  cmake_parse_arguments(PARSE_ARGV 0 arg "TESTS;SHARED" "" "HEADERS")
  if(NOT POLYFUSE_PRECOMPILED_HEADERS)
    return()
  endif()
  set(headers ${polyfuse_common_headers})
  set(precompiled_libraries fmt::fmt)
  if(arg_TESTS)
    list(APPEND headers <gtest/gtest.h>)
    list(APPEND precompiled_libraries GTest::gtest GTest::GTest)
  endif()
  list(APPEND headers ${arg_HEADERS})
  # (C++ files only; `>` inside a generator expression is spelt $<ANGLE-R>)
  set(header_list ${headers})
  list(TRANSFORM headers REPLACE "^<(.*)>$" "$<$<COMPILE_LANGUAGE:CXX>:<\\1$<ANGLE-R>>")
  foreach(target ${arg_UNPARSED_ARGUMENTS})
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror=invalid-pch>)
    if(NOT arg_SHARED)
      target_precompile_headers(${target} PRIVATE ${headers})
      continue()
    endif()
    # The kind of compile: executable (-fPIE) or library (-fPIC) code, and the macros of
    # the imported libraries the headers read.
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set(kind executable)
    else()
      set(kind library)
    endif()
    polyfuse_imported_compile_settings(${target} "${precompiled_libraries}" host_links)
    # and the target's own options (the tests' -O1: GCC 12 crashed on an -O3 file with a
    # header precompiled at -O1, although it accepts the header).
    get_target_property(options ${target} COMPILE_OPTIONS)
    if(NOT options)
      set(options "")
    endif()
    string(MD5 key "${kind};${host_links};${options};${header_list}")
    string(SUBSTRING "${key}" 0 8 key)
    set(host polyfuse_precompiled_headers_${kind}_${key})
    if(NOT TARGET ${host})
      set(source "${CMAKE_BINARY_DIR}/polyfuse_precompiled_headers_host.cc")
      if(NOT EXISTS "${source}")
        file(WRITE "${source}" "// The host of a shared precompiled header (cmake/precompiled_headers.cmake).\nint main() { return 0; }\n")
      endif()
      if(kind STREQUAL "executable")
        add_executable(${host} "${source}")
      else()
        add_library(${host} OBJECT "${source}")
      endif()
      target_link_libraries(${host} PRIVATE ${host_links})
      set_property(TARGET ${host} PROPERTY COMPILE_OPTIONS "${options}")
      target_precompile_headers(${host} PRIVATE ${headers})
    endif()
    target_precompile_headers(${target} REUSE_FROM ${host})
  endforeach()
endfunction()
