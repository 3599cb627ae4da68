// BRGEMM against the double-precision reference: every ISA path forced in turn, over
// shapes with 1, primes and non-multiples of every register block, all layouts, padded
// leading dimensions, batch strides, dtypes, and both drivers (direct and packed).
#include <gtest/gtest.h>

#include <tuple>

#include "reference.h"

namespace polyfuse::cpu::testing {
namespace {

class BrgemmTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (!isa_supported(GetParam()))
      GTEST_SKIP() << to_string(GetParam()) << " is not supported by this CPU: path not tested";
  }

  // Runs one configuration with leading-dimension padding `pad` and batch gap `gap`
  // and compares with the reference.
  void check(BrgemmConfig cfg, int64_t pad = 0, int64_t gap = 0) {
    cfg.isa = GetParam();
    SCOPED_TRACE(shape_name(cfg.m, cfg.n, cfg.k, cfg.batch) + " A " + to_string(cfg.a_layout) +
                 " B " + to_string(cfg.b_layout) + " C " + to_string(cfg.c_layout) + " " +
                 to_string(cfg.dtype) + (cfg.accumulate ? " +=" : " =") + " pad " +
                 std::to_string(pad) + " packing " + std::to_string(int(cfg.packing)));
    const bool a_col = cfg.a_layout == Layout::col_major;
    const bool b_col = cfg.b_layout == Layout::col_major;
    const bool c_col = cfg.c_layout == Layout::col_major;
    const int64_t lda = (a_col ? cfg.m : cfg.k) + pad;
    const int64_t ldb = (b_col ? cfg.k : cfg.n) + pad;
    const int64_t ldc = (c_col ? cfg.m : cfg.n) + pad;
    const int64_t size_a = (a_col ? cfg.k : cfg.m) * lda + gap;
    const int64_t size_b = (b_col ? cfg.n : cfg.k) * ldb + gap;
    const int64_t size_c = (c_col ? cfg.n : cfg.m) * ldc;
    std::mt19937 rng(static_cast<unsigned>(cfg.m * 7919 + cfg.n * 131 + cfg.k * 17 + cfg.batch));
    Buffer a = random_buffer(cfg.dtype, size_a * cfg.batch, rng);
    Buffer b = random_buffer(cfg.dtype, size_b * cfg.batch, rng);
    Buffer c = random_buffer(DType::f32, size_c, rng);
    std::vector<float> expected = c.values;
    reference_brgemm(cfg, a.values, b.values, expected, lda, ldb, ldc, size_a, size_b);

    const Brgemm kernel(cfg);
    EXPECT_EQ(kernel.isa(), GetParam());
    std::vector<float> got = c.values;
    kernel(a.data(), b.data(), got.data(), lda, ldb, ldc, size_a, size_b);
    // Outside the M x N block (the padding) C must be untouched: the reference keeps it.
    EXPECT_LE(max_abs_diff(got, expected), f32_tolerance(cfg.k * cfg.batch));
  }
};

const std::vector<int64_t> kEdgeSizes = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 33, 48};

TEST_P(BrgemmTest, F32ColumnMajorEdgeShapesDirectAndPacked) {
  for (Packing packing : {Packing::never, Packing::always})
    for (int64_t m : kEdgeSizes)
      for (int64_t n : {int64_t{1}, int64_t{5}, int64_t{6}, int64_t{7}, int64_t{12}, int64_t{13}, int64_t{25}})
        for (int64_t k : {int64_t{1}, int64_t{3}, int64_t{16}}) {
          BrgemmConfig cfg;
          cfg.m = m, cfg.n = n, cfg.k = k, cfg.packing = packing;
          check(cfg);
        }
}

TEST_P(BrgemmTest, F32AllLayoutsWithPaddedLeadingDimensions) {
  for (Layout la : {Layout::col_major, Layout::row_major})
    for (Layout lb : {Layout::col_major, Layout::row_major})
      for (Layout lc : {Layout::col_major, Layout::row_major})
        for (Packing packing : {Packing::automatic, Packing::always})
          for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{19, 11, 9},
                                 {32, 12, 32}, {1, 29, 4}, {37, 1, 23}}) {
            BrgemmConfig cfg;
            cfg.m = m, cfg.n = n, cfg.k = k, cfg.a_layout = la, cfg.b_layout = lb;
            cfg.c_layout = lc, cfg.packing = packing;
            check(cfg, 3);
          }
}

TEST_P(BrgemmTest, F32BatchReduceWithStridesAndOverwrite) {
  for (int64_t batch : {1, 2, 3, 8})
    for (bool accumulate : {true, false})
      for (Packing packing : {Packing::never, Packing::always}) {
        BrgemmConfig cfg;
        cfg.m = 35, cfg.n = 14, cfg.k = 10, cfg.batch = batch;
        cfg.accumulate = accumulate, cfg.packing = packing;
        check(cfg, 1, 5);  // batch members 5 elements apart beyond their extent
      }
}

// An outer batch (a convolution's outer filter taps) is the same as one call per outer entry,
// the first overwriting when accumulate is false, bit for bit: the same sums in the same
// order. C column-major (A read in place) and row-major (the swapped plan: B read in place).
TEST_P(BrgemmTest, F32OuterBatchIsOneCallPerOuterEntry) {
  for (Layout c_layout : {Layout::col_major, Layout::row_major})
    for (bool accumulate : {true, false})
      for (auto [m, n, k, batch, outer] : {std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>{28, 8, 8, 3, 3},
                                           {37, 13, 5, 2, 4}, {16, 12, 1, 1, 2}, {5, 3, 7, 3, 1}}) {
        BrgemmConfig cfg;
        cfg.m = m, cfg.n = n, cfg.k = k, cfg.batch = batch, cfg.accumulate = accumulate;
        cfg.c_layout = c_layout, cfg.packing = Packing::never, cfg.isa = GetParam();
        // C row-major: the swapped plan reads B in place (row-major B); A row-major then.
        cfg.a_layout = c_layout == Layout::col_major ? Layout::col_major : Layout::row_major;
        cfg.b_layout = Layout::row_major;
        SCOPED_TRACE(shape_name(m, n, k, batch) + " outer " + std::to_string(outer) + " C " + to_string(c_layout) +
                     (accumulate ? " +=" : " ="));
        const int64_t lda = (cfg.a_layout == Layout::col_major ? m : k) + 2, ldb = n + 1;
        const int64_t ldc = (c_layout == Layout::col_major ? m : n) + 3;
        const int64_t size_a = k * m + 2 * k + 2 * m + 5, size_b = k * ldb + 3;  // one batch member, with gaps
        const int64_t outer_a = size_a * batch + 11, outer_b = size_b * batch + 7;
        std::mt19937 rng(static_cast<unsigned>(m * 31 + n * 7 + outer));
        Buffer a = random_buffer(DType::f32, outer_a * outer, rng), b = random_buffer(DType::f32, outer_b * outer, rng);
        Buffer c = random_buffer(DType::f32, (c_layout == Layout::col_major ? n : m) * ldc, rng);
        std::vector<float> expected = c.values, got = c.values;
        BrgemmConfig plain = cfg;
        const Brgemm first(plain);
        plain.accumulate = true;
        const Brgemm rest(plain);
        for (int64_t o = 0; o < outer; ++o)
          (o == 0 ? first : rest)(a.values.data() + o * outer_a, b.values.data() + o * outer_b, expected.data(), lda,
                                  ldb, ldc, size_a, size_b);
        cfg.outer_batch = outer, cfg.outer_stride_a = outer_a, cfg.outer_stride_b = outer_b;
        const Brgemm kernel(cfg);
        kernel(a.values.data(), b.values.data(), got.data(), lda, ldb, ldc, size_a, size_b);
        EXPECT_EQ(got, expected);
        std::vector<float> reference = c.values;  // and against the double-precision reference, per outer entry
        for (int64_t o = 0; o < outer; ++o) {
          BrgemmConfig one = cfg;
          one.outer_batch = 1, one.accumulate = accumulate || o > 0;
          std::vector<float> a_o(a.values.begin() + o * outer_a, a.values.begin() + (o + 1) * outer_a);
          std::vector<float> b_o(b.values.begin() + o * outer_b, b.values.begin() + (o + 1) * outer_b);
          reference_brgemm(one, a_o, b_o, reference, lda, ldb, ldc, size_a, size_b);
        }
        EXPECT_LE(max_abs_diff(got, reference), f32_tolerance(k * batch * outer));
      }
}

TEST_P(BrgemmTest, F32SeedConfigurations) {
  // tensor-operation-backend §5.3: 32 x 32 x 32 blocks, batch 1 (gemm) and 8 (brgemm),
  // and the primitives seed's 16 x 6 x 1 / 16 x 6 x 64 microkernel settings.
  for (auto [m, n, k, batch] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{32, 32, 32, 1},
                                {32, 32, 32, 8}, {16, 6, 1, 1}, {16, 6, 64, 1}}) {
    BrgemmConfig cfg;
    cfg.m = m, cfg.n = n, cfg.k = k, cfg.batch = batch;
    check(cfg);
  }
}

TEST_P(BrgemmTest, F32CacheBlockBoundaries) {
  // K beyond kc, M beyond mc and N beyond nc in the packed driver.
  const int64_t big = emulated() ? 1 : 2;
  BrgemmConfig cfg;
  cfg.m = 130 * big + 3, cfg.n = 61 * big, cfg.k = 300 * big + 7, cfg.batch = 2;
  cfg.packing = Packing::always;
  check(cfg);
  cfg.c_layout = Layout::row_major, cfg.a_layout = Layout::row_major;
  check(cfg, 2);
  if (!emulated()) {
    BrgemmConfig wide;
    wide.m = 40, wide.n = 4200, wide.k = 20, wide.packing = Packing::always;
    check(wide);
  }
}

TEST_P(BrgemmTest, LowPrecisionInputsAccumulateInF32) {
  for (DType dtype : {DType::f16, DType::bf16})
    for (Layout la : {Layout::col_major, Layout::row_major})
      for (Layout lc : {Layout::col_major, Layout::row_major})
        for (auto [m, n, k, batch] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{33, 13, 7, 1},
                                      {32, 32, 32, 4}, {5, 3, 1, 2}, {17, 25, 64, 1}}) {
          BrgemmConfig cfg;
          cfg.m = m, cfg.n = n, cfg.k = k, cfg.batch = batch, cfg.dtype = dtype;
          cfg.a_layout = la, cfg.c_layout = lc, cfg.b_layout = Layout::row_major;
          check(cfg, 1, 2);
        }
}

// B packed once (Brgemm::pack_b) and shared by two row blocks of different heights: the
// same panels as packing per call, so C must match it bit for bit.
TEST_P(BrgemmTest, SharedPackedBMatchesPackingPerCall) {
  for (DType dtype : {DType::f32, DType::bf16})
    for (Layout lc : {Layout::row_major, Layout::col_major}) {
      BrgemmConfig cfg;
      cfg.n = 29, cfg.k = 600 + 7, cfg.batch = 2, cfg.dtype = dtype, cfg.isa = GetParam();
      cfg.a_layout = cfg.b_layout = Layout::row_major, cfg.c_layout = lc;
      cfg.accumulate = false, cfg.packing = Packing::always;
      SCOPED_TRACE(std::string(to_string(dtype)) + " C " + to_string(lc));
      const int64_t rows[2] = {37, 16};  // a block and a shorter last block
      const int64_t m = rows[0] + rows[1], lda = cfg.k, ldb = cfg.n + 3;
      const int64_t ldc = lc == Layout::row_major ? cfg.n : m;
      std::mt19937 rng(7);
      const Buffer a = random_buffer(dtype, m * lda * cfg.batch, rng);
      const Buffer b = random_buffer(dtype, cfg.k * ldb * cfg.batch, rng);
      std::vector<float> per_call(static_cast<size_t>(m * cfg.n), -1.0f), shared = per_call;
      PackBuffer packed;
      for (int block = 0, row = 0; block < 2; row += rows[block++]) {
        BrgemmConfig block_cfg = cfg;
        block_cfg.m = rows[block];
        const Brgemm kernel(block_cfg);
        if (block == 0) kernel.pack_b(b.data(), ldb, cfg.k * ldb, packed.get(kernel.packed_b_bytes()));
        const auto* a_block = static_cast<const uint8_t*>(a.data()) + row * lda * dtype_size(dtype);
        const int64_t c_at = lc == Layout::row_major ? row * ldc : row;
        kernel(a_block, b.data(), per_call.data() + c_at, lda, ldb, ldc, m * lda, cfg.k * ldb);
        kernel(a_block, PackedB{packed.get(0)}, shared.data() + c_at, lda, ldc, m * lda);
      }
      EXPECT_EQ(per_call, shared);
      EXPECT_NE(per_call[0], -1.0f);
    }
  BrgemmConfig direct;
  direct.m = direct.n = direct.k = 8, direct.isa = GetParam(), direct.packing = Packing::never;
  EXPECT_THROW(Brgemm(direct).packed_b_bytes(), ConfigError);
}

// B packed in parts (pack_b's part of parts: threads packing together) writes the same bytes
// as one pack_b: row- and column-major C (B' = B or A' = B^T), f32 and bf16, a batch of 2 and
// K over several kc blocks, 1 to 5 parts (more parts than some regions have panels: empty
// parts). A part outside [0, parts) is refused.
TEST_P(BrgemmTest, SharedPackedBInPartsIsTheSame) {
  for (DType dtype : {DType::f32, DType::bf16})
    for (Layout lc : {Layout::row_major, Layout::col_major}) {
      BrgemmConfig cfg;
      cfg.m = 37, cfg.n = 29, cfg.k = 600 + 7, cfg.batch = 2, cfg.dtype = dtype, cfg.isa = GetParam();
      cfg.a_layout = cfg.b_layout = Layout::row_major, cfg.c_layout = lc;
      cfg.packing = Packing::always;
      SCOPED_TRACE(std::string(to_string(dtype)) + " C " + to_string(lc));
      const Brgemm kernel(cfg);
      const int64_t ldb = cfg.n + 3, bytes = kernel.packed_b_bytes();
      std::mt19937 rng(11);
      const Buffer b = random_buffer(dtype, cfg.k * ldb * cfg.batch, rng);
      std::vector<uint8_t> whole(static_cast<size_t>(bytes), 0xAB);
      kernel.pack_b(b.data(), ldb, cfg.k * ldb, whole.data());
      for (int64_t parts = 1; parts <= 5; ++parts) {
        std::vector<uint8_t> shared(static_cast<size_t>(bytes), 0xAB);
        for (int64_t part = parts; part-- > 0;) kernel.pack_b(b.data(), ldb, cfg.k * ldb, shared.data(), part, parts);
        EXPECT_EQ(shared, whole) << parts << " parts";
      }
      EXPECT_THROW(kernel.pack_b(b.data(), ldb, cfg.k * ldb, whole.data(), 2, 2), ConfigError);
      EXPECT_THROW(kernel.pack_b(b.data(), ldb, cfg.k * ldb, whole.data(), 0, 0), ConfigError);
    }
}

TEST_P(BrgemmTest, ReportsTheForcedPathAndBlock) {
  BrgemmConfig cfg;
  cfg.m = cfg.n = cfg.k = 8;
  cfg.isa = GetParam();
  const Brgemm kernel(cfg);
  EXPECT_EQ(kernel.isa(), GetParam());
  const int64_t expected_m = GetParam() == Isa::avx512 ? 32 : GetParam() == Isa::generic ? 8 : 16;
  const int64_t expected_n = GetParam() == Isa::avx512 ? 12 : GetParam() == Isa::generic ? 4 : 6;
  EXPECT_EQ(kernel.block_m(), expected_m);
  EXPECT_EQ(kernel.block_n(), expected_n);
}

INSTANTIATE_TEST_SUITE_P(Isa, BrgemmTest, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(BrgemmNativeBf16, Avx512Bf16DotProductPath) {
  if (!cpu_has_avx512_bf16())
    GTEST_SKIP() << "no AVX-512-BF16 on this CPU: the vdpbf16ps path is not tested";
  BrgemmConfig cfg;
  cfg.m = 45, cfg.n = 27, cfg.k = 33, cfg.batch = 3, cfg.dtype = DType::bf16;
  cfg.isa = Isa::avx512;
  std::mt19937 rng(5);
  Buffer a = random_buffer(DType::bf16, cfg.m * cfg.k * cfg.batch, rng);
  Buffer b = random_buffer(DType::bf16, cfg.k * cfg.n * cfg.batch, rng);
  std::vector<float> c(cfg.m * cfg.n, 0.5f), expected = c;
  reference_brgemm(cfg, a.values, b.values, expected, cfg.m, cfg.k, cfg.m, cfg.m * cfg.k,
                   cfg.k * cfg.n);
  const Brgemm kernel(cfg);
  kernel(a.data(), b.data(), c.data(), cfg.m, cfg.k, cfg.m, cfg.m * cfg.k, cfg.k * cfg.n);
  EXPECT_LE(max_abs_diff(c, expected), f32_tolerance(cfg.k * cfg.batch));
}

}  // namespace
}  // namespace polyfuse::cpu::testing
