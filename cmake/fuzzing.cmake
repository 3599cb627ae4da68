# POLYFUSE_FUZZ=ON: the libFuzzer build (scripts/test.d/40-fuzz.sh). Every library is
# compiled with coverage instrumentation for libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer (-fsanitize=fuzzer-no-link,...); tests/fuzz adds the
# libFuzzer driver (-fsanitize=fuzzer) to the fuzz target only. Needs clang.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "POLYFUSE_FUZZ=ON needs clang (libFuzzer); configure with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ in a separate build folder")
endif()
if(NOT POLYFUSE_BUILD_TESTS)
  message(FATAL_ERROR "POLYFUSE_FUZZ=ON needs POLYFUSE_BUILD_TESTS=ON (the fuzz target is in tests/fuzz)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                    -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)
