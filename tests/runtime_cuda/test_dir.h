// A fresh, empty directory per test under $TMPDIR, removed when the test ends.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace pf_runtime_test {

struct ScopedDirectory {
  std::filesystem::path path;
  explicit ScopedDirectory(const std::string& tag) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::temp_directory_path() / ("polyfuse-test-" + std::to_string(getpid()) + "-" +
                                                     info->test_suite_name() + "-" + info->name() + "-" + tag);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScopedDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScopedDirectory(const ScopedDirectory&) = delete;
  ScopedDirectory& operator=(const ScopedDirectory&) = delete;
};

}  // namespace pf_runtime_test
