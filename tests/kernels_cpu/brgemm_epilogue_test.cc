// The BRGEMM's epilogue (BrgemmConfig::epilogue): D := post((C + bias) + R) before the store
// must be what the kernel without it followed by Binary{add} passes (the last with the post op;
// Unary{post} alone) gives, bit for bit: every ISA path, both drivers, several passes over the
// reduction, bias along m and n, a residual R, every layout of C, a separate D, and the packed
// bf16 path.
#include <gtest/gtest.h>

#include <tuple>

#include "reference.h"

namespace polyfuse::cpu::testing {
namespace {

class BrgemmEpilogueTest : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (!isa_supported(GetParam()))
      GTEST_SKIP() << to_string(GetParam()) << " is not supported by this CPU: path not tested";
  }

  // `cfg` with `epilogue`, against `cfg` without it and then the pass; C's leading dimension
  // padded by 2 (the padding must stay as it was), D separate when `separate`.
  void check(BrgemmConfig cfg, BrgemmEpilogue epilogue, bool separate) {
    cfg.isa = GetParam();
    SCOPED_TRACE(shape_name(cfg.m, cfg.n, cfg.k, cfg.batch) + " C " + to_string(cfg.c_layout) + " " +
                 to_string(cfg.dtype) + (cfg.accumulate ? " +=" : " =") + " packing " +
                 std::to_string(int(cfg.packing)) + " bias " + std::to_string(int(epilogue.bias)) +
                 (epilogue.addend ? " + R" : "") + " post " +
                 to_string(epilogue.post) + (separate ? " D separate" : " D = C"));
    const bool c_col = cfg.c_layout == Layout::col_major;
    const int64_t lda = cfg.a_layout == Layout::col_major ? cfg.m : cfg.k, ldb = cfg.n;  // B row-major
    const int64_t ldc = (c_col ? cfg.m : cfg.n) + 2;
    const int64_t size_c = (c_col ? cfg.n : cfg.m) * ldc;
    std::mt19937 rng(static_cast<unsigned>(cfg.m * 31 + cfg.n + int(epilogue.post) * 7 + int(epilogue.bias)));
    const Buffer a = random_buffer(cfg.dtype, cfg.m * cfg.k * cfg.batch, rng);
    const Buffer b = random_buffer(cfg.dtype, cfg.k * ldb * cfg.batch, rng);
    const Buffer c0 = random_buffer(DType::f32, size_c, rng);
    const Buffer bias = random_buffer(DType::f32, std::max(cfg.m, cfg.n), rng);
    const Buffer d0 = random_buffer(DType::f32, size_c, rng);
    const Buffer residual = random_buffer(DType::f32, size_c, rng);

    // Expected: the plain kernel, then the pass into D (C itself, or the separate D).
    const Brgemm plain(cfg);
    std::vector<float> sums = c0.values;
    plain(a.data(), b.data(), sums.data(), lda, ldb, ldc, cfg.m * cfg.k, cfg.k * ldb);
    std::vector<float> expected = separate ? d0.values : c0.values;
    if (!separate) {  // the padding of C keeps C's values, the block gets the pass's
      expected = sums;
    }
    const Operand matrix{cfg.c_layout, DType::f32, Broadcast::matrix};
    std::vector<float> with_bias = sums;
    if (epilogue.bias != BiasAlong::none) {
      const Broadcast along = epilogue.bias == BiasAlong::n ? Broadcast::row_vector : Broadcast::col_vector;
      const Binary pass({.m = cfg.m, .n = cfg.n, .op = BinaryOp::add, .in0 = matrix,
                         .in1 = {Layout::row_major, DType::f32, along}, .out = matrix,
                         .post = epilogue.addend ? UnaryOp::identity : epilogue.post});
      pass(sums.data(), bias.values.data(), epilogue.addend ? with_bias.data() : expected.data(), ldc, 1, ldc);
    }
    if (epilogue.addend) {
      const Binary pass({.m = cfg.m, .n = cfg.n, .op = BinaryOp::add, .in0 = matrix, .in1 = matrix, .out = matrix,
                         .post = epilogue.post});
      pass(with_bias.data(), residual.values.data(), expected.data(), ldc, ldc, ldc);
    } else if (epilogue.bias == BiasAlong::none) {
      const Unary pass({.m = cfg.m, .n = cfg.n, .op = epilogue.post, .in = matrix, .out = matrix});
      pass(sums.data(), expected.data(), ldc, ldc);
    }

    cfg.epilogue = epilogue;
    const Brgemm fused(cfg);
    std::vector<float> c = c0.values, d = d0.values;
    const EpilogueArgs args{.bias = epilogue.bias == BiasAlong::none ? nullptr : bias.values.data(),
                            .addend = epilogue.addend ? residual.values.data() : nullptr,
                            .ld_addend = ldc,
                            .d = separate ? d.data() : nullptr, .ld_d = separate ? ldc : 0};
    fused(a.data(), b.data(), c.data(), lda, ldb, ldc, cfg.m * cfg.k, cfg.k * ldb, args);
    EXPECT_EQ(separate ? d : c, expected);
    if (separate) {
      EXPECT_EQ(c, c0.values) << "C must only be read when D is separate";
    }

    if (cfg.packing == Packing::always) {  // the shared packed B: the same
      PackBuffer packed;
      fused.pack_b(b.data(), ldb, cfg.k * ldb, packed.get(fused.packed_b_bytes()));
      std::vector<float> c2 = c0.values, d2 = d0.values;
      EpilogueArgs args2 = args;
      if (separate) args2.d = d2.data();
      fused(a.data(), PackedB{packed.get(0)}, c2.data(), lda, ldc, cfg.m * cfg.k, args2);
      EXPECT_EQ(separate ? d2 : c2, expected) << "shared packed B";
    }
  }
};

TEST_P(BrgemmEpilogueTest, MatchesTheKernelThenThePassBitForBit) {
  const std::tuple<int64_t, int64_t, int64_t, int64_t> shapes[] = {
      {19, 13, 9, 3},   // direct: one pass
      {37, 29, 607, 2}  // packed: several passes over k (kc) and the batch
  };
  for (auto [m, n, k, batch] : shapes)
    for (Layout lc : {Layout::row_major, Layout::col_major})
      for (BiasAlong bias : {BiasAlong::none, BiasAlong::m, BiasAlong::n})
        for (UnaryOp post : {UnaryOp::identity, UnaryOp::relu, UnaryOp::gelu, UnaryOp::tanh})
          for (bool addend : {false, true})
          for (bool separate : {false, true})
            for (bool accumulate : {false, true}) {
              BrgemmConfig cfg;
              cfg.m = m, cfg.n = n, cfg.k = k, cfg.batch = batch;
              // (the direct driver streams A' along m: A column-major for a column-major C)
              cfg.a_layout = lc, cfg.b_layout = Layout::row_major, cfg.c_layout = lc;
              cfg.accumulate = accumulate;
              cfg.packing = k > 100 ? Packing::always : Packing::never;
              check(cfg, {bias, addend, post}, separate);
            }
}

TEST_P(BrgemmEpilogueTest, PackedLowPrecisionInputs) {
  for (BiasAlong bias : {BiasAlong::m, BiasAlong::n})
    for (Layout lc : {Layout::row_major, Layout::col_major}) {
      BrgemmConfig cfg;
      cfg.m = 33, cfg.n = 14, cfg.k = 40, cfg.batch = 2, cfg.dtype = DType::bf16;
      cfg.a_layout = cfg.b_layout = Layout::row_major, cfg.c_layout = lc, cfg.accumulate = false;
      cfg.packing = Packing::always;
      check(cfg, {bias, true, UnaryOp::relu}, true);
    }
}

TEST_P(BrgemmEpilogueTest, RefusesWhatItCannotDo) {
  BrgemmConfig cfg;
  cfg.m = cfg.n = cfg.k = 8, cfg.isa = GetParam();
  cfg.epilogue.post = UnaryOp::zero;
  EXPECT_THROW(Brgemm{cfg}, ConfigError);
  cfg.epilogue = {BiasAlong::n, false, UnaryOp::relu};
  const Brgemm kernel(cfg);
  std::vector<float> a(64), b(64), c(64);
  EXPECT_THROW(kernel(a.data(), b.data(), c.data(), 8, 8, 8, 0, 0, EpilogueArgs{}), ConfigError);
  cfg.epilogue = {BiasAlong::none, true, UnaryOp::identity};
  const Brgemm with_addend(cfg);
  EXPECT_THROW(with_addend(a.data(), b.data(), c.data(), 8, 8, 8, 0, 0, EpilogueArgs{}), ConfigError);
}

INSTANTIATE_TEST_SUITE_P(Isa, BrgemmEpilogueTest, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace polyfuse::cpu::testing
