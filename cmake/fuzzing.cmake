# POLYFUSE_FUZZ=ON: the sanitizer build (scripts/sanitize-build; scripts/test.d/30-sanitizers.sh
# and 40-fuzz.sh). Everything is compiled with AddressSanitizer and UndefinedBehaviorSanitizer;
# tests/fuzz adds libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link) to the
# libraries the fuzz target links (front end, schedule, codegen: not the emulator, whose
# tests it would slow) and the libFuzzer driver (-fsanitize=fuzzer) to the fuzz target only.
# Needs clang.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "POLYFUSE_FUZZ=ON needs clang (libFuzzer); configure with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ in a separate build folder")
endif()
if(NOT POLYFUSE_BUILD_TESTS)
  message(FATAL_ERROR "POLYFUSE_FUZZ=ON needs POLYFUSE_BUILD_TESTS=ON (the fuzz target is in tests/fuzz)")
endif()
add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                    -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)
