// Golden-file comparisons for tests: whole-file diffs, rewritten with UPDATE_GOLDEN=1.
//
//   EXPECT_TRUE(polyfuse::testing::matches_golden(dump, "frontend/gemm.ir"));
//
// compares `dump` with tests/golden/frontend/gemm.ir. On a mismatch the failure message
// carries a unified diff (golden → actual). With UPDATE_GOLDEN=1 in the environment the
// golden file is (re)written instead and the check passes.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace polyfuse::testing {

// Absolute path of `relative` inside the source tree (e.g. "examples/gemm.tc"), or inside
// the data root of a relocated copy (runtime/paths: $POLYFUSE_DATA_DIR, or the GPU check
// kit's share/polyfuse).
std::string source_path(std::string_view relative);

// Whole contents of the file at `path`; an empty string if it cannot be read.
std::string read_text_file(const std::string& path);

// Compares `actual` with the golden file tests/golden/<golden_relative>.
::testing::AssertionResult matches_golden(const std::string& actual,
                                          std::string_view golden_relative);

}  // namespace polyfuse::testing
