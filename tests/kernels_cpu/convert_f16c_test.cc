// f16_to_f32_inline compiled for F16C (this file is built with -mf16c on x86-64, as generated
// code is with -march=native): the scalar conversion's bits for every f16 pattern. Skipped,
// with the reason, on a CPU without F16C.
#include <gtest/gtest.h>

#include <cstring>

#include "polyfuse/cpu/types.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace polyfuse::cpu::testing {
namespace {

bool cpu_has_f16c() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
#else
  return false;
#endif
}

TEST(InlineConversion, F16WithF16cIsTheScalarConversionOnEveryPattern) {
#if !defined(__F16C__)
  GTEST_SKIP() << "this file was not compiled for F16C (not x86-64): the inline conversion is the scalar one";
#else
  if (!cpu_has_f16c()) GTEST_SKIP() << "this CPU has no F16C: the F16C conversion cannot run here";
  int differing = 0;
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float inline_value = f16_to_f32_inline(static_cast<uint16_t>(bits));
    const float scalar = f16_to_f32(static_cast<uint16_t>(bits));
    if (std::memcmp(&inline_value, &scalar, sizeof scalar) != 0) ++differing;
  }
  EXPECT_EQ(differing, 0);
#endif
}

}  // namespace
}  // namespace polyfuse::cpu::testing
