// main() of every GoogleTest binary of polyfuse. A test is reported skipped only through
// the process's exit code: 77 (CTest's SKIP_RETURN_CODE, set by polyfuse_discover_tests in
// tests/CMakeLists.txt) when every test the process ran was skipped with GTEST_SKIP (no
// CUDA device, no AVX-512 on this CPU, ...) and none failed. CTest never decides from the
// output, so a test whose failure message happens to say "no CUDA device" fails.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (status == 0 && unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count()) return 77;
  return status;
}
