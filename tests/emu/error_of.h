// error_of(f): runs f, which must throw polyfuse::emu::EmulationError, and returns its message
// (a test failure, and "", when nothing is thrown).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "polyfuse_emu/emulator.h"

namespace polyfuse::emu::testing {

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const EmulationError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no EmulationError thrown";
  return {};
}

// Every one of `parts` occurs in `message`.
inline ::testing::AssertionResult mentions(const std::string& message, std::initializer_list<const char*> parts) {
  for (const char* p : parts)
    if (message.find(p) == std::string::npos) return ::testing::AssertionFailure() << "no \"" << p << "\" in: " << message;
  return ::testing::AssertionSuccess();
}

}  // namespace polyfuse::emu::testing
