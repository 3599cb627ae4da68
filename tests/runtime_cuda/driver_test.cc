// The driver is loaded lazily: without libcuda.so.1 (or without a device) everything but
// launching works, and asking for the device says "no CUDA device" and why.
#include <gtest/gtest.h>

#include <cstdlib>

#include "polyfuse/errors.h"
#include "runtime/cuda/driver.h"

namespace {
using namespace polyfuse::cuda;

TEST(Driver, WithoutDeviceRequireDriverSaysNoCudaDevice) {
  if (driver()) GTEST_SKIP() << "a CUDA device is present: " << device_description();
  std::string why;
  EXPECT_EQ(driver(&why), nullptr);
  EXPECT_FALSE(why.empty());
  try {
    require_driver();
    FAIL() << "no NoDeviceError";
  } catch (const polyfuse::NoDeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device: ", 0), 0u) << e.what();
  }
  EXPECT_FALSE(device_compute_capability().has_value());
  EXPECT_EQ(device_description().rfind("no CUDA device", 0), 0u);
}

TEST(Driver, MissingLibraryIsReportedNotFatal) {
  // A library path that cannot exist is reported as the reason (checked in a child
  // process: the driver is loaded once per process).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("POLYFUSE_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
        std::string why;
        const bool none = driver(&why) == nullptr && why.find("/nonexistent/libcuda.so.1") != std::string::npos;
        std::exit(none ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Driver, WithDeviceReportsItsArchitecture) {
  if (!driver()) GTEST_SKIP() << device_description();
  const std::optional<int> cc = device_compute_capability();
  ASSERT_TRUE(cc.has_value());
  EXPECT_GE(*cc, 50);
  EXPECT_NO_THROW(ensure_context());
}

}  // namespace
