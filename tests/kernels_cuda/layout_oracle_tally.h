// Shared by the layout oracle tests: a tally of (lane, element) comparisons between what a
// helper did on the emulator and what the oracle (layout_oracle.h) says, keeping the first
// mismatches. Each mismatch line starts with "layout mismatch: <subject>:" and names the lane
// and element, so a failure (and the planted-error tests' expected failures) read the same.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace pfo_test {

class OracleTally {
 public:
  explicit OracleTally(std::string subject) : subject_(std::move(subject)) {}

  // One comparison; `describe()` (called only on a mismatch) says what differs.
  template <class Describe> void check(bool ok, Describe describe) {
    ++checks_;
    if (ok) return;
    if (messages_.size() < kMaxMessages) messages_.push_back("layout mismatch: " + subject_ + ": " + describe());
    ++mismatches_;
  }
  std::size_t checks() const { return checks_; }
  std::size_t mismatches() const { return mismatches_; }

  // Fails the current test with the first mismatches; prints the number of checks either way.
  void expect_no_mismatch() const {
    std::cout << "layout oracle: " << subject_ << ": " << checks_ << " lane x element checks, " << mismatches_
              << " mismatches\n";
    std::string report;
    for (const std::string& m : messages_) report += m + "\n";
    if (mismatches_ > messages_.size()) report += "... and " + std::to_string(mismatches_ - messages_.size()) + " more\n";
    EXPECT_EQ(mismatches_, 0u) << report;
    ::testing::Test::RecordProperty("oracle_checks", static_cast<int>(checks_));
  }

 private:
  static constexpr std::size_t kMaxMessages = 12;
  std::string subject_;
  std::size_t checks_ = 0;
  std::size_t mismatches_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace pfo_test
