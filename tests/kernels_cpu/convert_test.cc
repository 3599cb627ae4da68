// The bulk f16/bf16 <-> f32 conversions of the packing routines and elementwise stores
// (types.h): F16C and AVX2 where the CPU has them, bit-identical to the scalar conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "polyfuse/cpu/kernels.h"

namespace polyfuse::cpu {
namespace {

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Every one of the 65536 patterns, in runs of every length 0..17 (vector bodies and
// scalar tails at every offset) and as one long run.
template <class Bulk, class Scalar>
void expect_bit_identical(Bulk bulk, Scalar scalar, const char* name) {
  std::vector<uint16_t> all(0x10000);
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> out(all.size() + 1, -7.f);
  bulk(all.data(), int64_t(all.size()), out.data());
  for (uint32_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(bits_of(out[i]), bits_of(scalar(all[i]))) << name << " pattern 0x" << std::hex << i;
  EXPECT_EQ(out.back(), -7.f) << "wrote past n";
  for (int64_t n = 0; n <= 17; ++n)
    for (int64_t start : {int64_t{0x7c00 - 5}, int64_t{0xfe00 - 3}, int64_t{1}}) {
      std::vector<float> run(size_t(n) + 1, -7.f);
      bulk(all.data() + start, n, run.data());
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(bits_of(run[size_t(i)]), bits_of(scalar(all[size_t(start + i)]))) << name << " n " << n;
      EXPECT_EQ(run[size_t(n)], -7.f) << name << " wrote past n = " << n;
    }
}

TEST(BulkConversion, F16MatchesTheScalarConversionOnEveryPattern) {
  if (!bulk_conversions_vectorised())
    std::printf("note: no F16C/AVX2 path on this CPU or ISA cap: the bulk conversion is the scalar loop\n");
  expect_bit_identical([](const uint16_t* s, int64_t n, float* d) { f16_to_f32(s, n, d); },
                       [](uint16_t b) { return f16_to_f32(b); }, "f16");
}

TEST(BulkConversion, Bf16MatchesTheScalarConversionOnEveryPattern) {
  expect_bit_identical([](const uint16_t* s, int64_t n, float* d) { bf16_to_f32(s, n, d); },
                       [](uint16_t b) { return bf16_to_f32(b); }, "bf16");
}

// Narrowing (elementwise.h's stores): every f16 value and its neighbours one f32 ulp away, the
// midpoints between f16 values (ties to even), overflow, subnormals and NaNs with payloads and
// signs, and a spread of other patterns, in runs of every length 0..17 and as one long run:
// the same bits as the scalar conversion.
template <class Bulk, class Scalar>
void expect_narrowing_bit_identical(Bulk bulk, Scalar scalar, const char* name) {
  std::vector<float> values;
  const auto from_bits = [](uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  };
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t wide = bits_of(f16_to_f32(static_cast<uint16_t>(h)));
    for (const uint32_t bits : {wide, wide + 1, wide - 1, wide + 0x1000, wide + 0xfff, wide + 0x1001}) values.push_back(from_bits(bits));
  }
  for (uint32_t bits = 0x7f800001u; bits < 0x7f800001u + 64; ++bits) {  // NaN payloads, both signs
    values.push_back(from_bits(bits));
    values.push_back(from_bits(bits | 0x80000000u));
  }
  values.push_back(from_bits(0x7fc12345u));
  values.push_back(from_bits(0xffbfffffu));
  uint32_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    values.push_back(from_bits(state));
  }
  std::vector<uint16_t> out(values.size() + 1, 0x5555);
  bulk(values.data(), int64_t(values.size()), out.data());
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(out[i], scalar(values[i])) << name << " f32 bits 0x" << std::hex << bits_of(values[i]);
  EXPECT_EQ(out.back(), 0x5555) << "wrote past n";
  for (int64_t n = 0; n <= 17; ++n) {
    std::vector<uint16_t> run(std::size_t(n) + 1, 0x5555);
    bulk(values.data() + 0x7c00 * 6 - 3, n, run.data());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(run[std::size_t(i)], scalar(values[std::size_t(0x7c00 * 6 - 3 + i)])) << name;
    EXPECT_EQ(run[std::size_t(n)], 0x5555) << name << " wrote past n = " << n;
  }
}

TEST(BulkConversion, NarrowingToF16MatchesTheScalarConversion) {
  expect_narrowing_bit_identical([](const float* s, int64_t n, uint16_t* d) { f32_to_f16(s, n, d); },
                                 [](float v) { return f32_to_f16(v); }, "f16");
}

TEST(BulkConversion, NarrowingToBf16MatchesTheScalarConversion) {
  expect_narrowing_bit_identical([](const float* s, int64_t n, uint16_t* d) { f32_to_bf16(s, n, d); },
                                 [](float v) { return f32_to_bf16(v); }, "bf16");
}

// f16_to_f32_lanes (the conversion of generated code's vectorised terms) in a loop the compiler
// may vectorise, and one call at a time: the scalar conversion's bits for every pattern; and so
// with denormal operands read as zero (x86-64's MXCSR.DAZ, as a host that flushes denormals sets
// it): subnormal f16 values come out right, no subnormal f32 is an operand.
TEST(BulkConversion, LanesConversionIsTheScalarConversionOnEveryPattern) {
  const auto check = [](const char* how) {
    std::vector<float> out(0x10000);
    for (uint32_t i = 0; i < 0x10000; ++i) out[i] = f16_to_f32_lanes(static_cast<uint16_t>(i));
    int differing = 0;
    for (uint32_t i = 0; i < 0x10000; ++i) {
      const float one = f16_to_f32_lanes(static_cast<uint16_t>(i)), scalar = f16_to_f32(static_cast<uint16_t>(i));
      differing += bits_of(out[i]) != bits_of(scalar) || bits_of(one) != bits_of(scalar);
    }
    EXPECT_EQ(differing, 0) << how;
  };
  check("default floating-point environment");
#if defined(__x86_64__) || defined(__i386__)
  const unsigned saved = __builtin_ia32_stmxcsr();
  __builtin_ia32_ldmxcsr(saved | 0x8040u);  // DAZ and FTZ
  check("denormals as zero");
  __builtin_ia32_ldmxcsr(saved);
#endif
  EXPECT_EQ(bits_of(f16_to_f32_lanes(uint16_t{0x0001})), 0x33800000u) << "the smallest subnormal, 2^-24";
  EXPECT_EQ(bits_of(f16_to_f32_lanes(uint16_t{0xfc01})), 0xffc02000u) << "a signalling NaN, quieted";
}

// Signalling NaNs widen to quiet NaNs with their payload (what vcvtph2ps does).
TEST(BulkConversion, WidenedNansAreQuietWithTheirPayload) {
  EXPECT_EQ(bits_of(f16_to_f32(uint16_t{0x7c01})), 0x7fc02000u);
  EXPECT_EQ(bits_of(f16_to_f32(uint16_t{0xfdff})), 0xffffe000u);
  EXPECT_EQ(bits_of(f16_to_f32(uint16_t{0x7e00})), 0x7fc00000u);
  EXPECT_EQ(bits_of(f16_to_f32(uint16_t{0x7c00})), 0x7f800000u) << "infinity stays infinity";
}

}  // namespace
}  // namespace polyfuse::cpu
