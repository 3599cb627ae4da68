// Programs that must fail: every tests/frontend/errors/*.tc starts with a comment
//   # expect: LINE:COL: error: MESSAGE
// naming its first diagnostic exactly. The test compiles each one and compares.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "frontend/frontend.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> error_programs() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(polyfuse::testing::source_path("tests/frontend/errors")))
    if (entry.path().extension() == ".tc") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ErrorPrograms, FolderIsNotEmpty) { EXPECT_GE(error_programs().size(), 20u); }

TEST(ErrorPrograms, EachFailsWithItsExpectedMessage) {
  for (const std::string& name : error_programs()) {
    SCOPED_TRACE(name);
    std::string text = polyfuse::testing::read_text_file(
        polyfuse::testing::source_path("tests/frontend/errors/" + name));
    std::string first_line = text.substr(0, text.find('\n'));
    const std::string prefix = "# expect: ";
    ASSERT_EQ(first_line.rfind(prefix, 0), 0u) << "first line must be '# expect: ...'";
    std::string expected = first_line.substr(prefix.size());
    std::string actual = "(compiled without error)";
    try {
      compile_source(SourceFile{name, text});
    } catch (const UserError& error) {
      const Diagnostic& d = error.diagnostics().front();
      actual = fmt::format("{}:{}: error: {}", d.line, d.col, d.message);
    }
    EXPECT_EQ(actual, expected);
  }
}

}  // namespace
}  // namespace polyfuse
