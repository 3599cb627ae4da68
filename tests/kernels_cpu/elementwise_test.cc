// Unary and binary primitives against their scalar definitions: every op, layouts
// (incl. transposition), broadcasts, padded leading dimensions, dtype conversions.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "polyfuse/cpu/isa.h"
#include "reference.h"

namespace polyfuse::cpu::testing {
namespace {

int64_t operand_index(const Operand& op, int64_t r, int64_t c, int64_t ld) {
  switch (op.broadcast) {
    case Broadcast::matrix: return index_of(op.layout, r, c, ld);
    case Broadcast::row_vector: return c * ld;
    case Broadcast::col_vector: return r * ld;
    case Broadcast::scalar: return 0;
  }
  return 0;
}

int64_t operand_extent(const Operand& op, int64_t m, int64_t n, int64_t ld) {
  switch (op.broadcast) {
    case Broadcast::matrix: return (op.layout == Layout::col_major ? n : m) * ld;
    case Broadcast::row_vector: return (n - 1) * ld + 1;
    case Broadcast::col_vector: return (m - 1) * ld + 1;
    case Broadcast::scalar: return 1;
  }
  return 1;
}

double tolerance(DType dtype) { return dtype == DType::f32 ? 1e-6 : dtype == DType::f16 ? 2e-3 : 1e-2; }

const std::vector<std::pair<int64_t, int64_t>> kShapes = {{1, 1}, {1, 7}, {7, 1}, {13, 29}, {32, 32}, {130, 17}};

TEST(Unary, EveryOpLayoutAndDtype) {
  for (UnaryOp op : {UnaryOp::zero, UnaryOp::identity, UnaryOp::relu, UnaryOp::sigmoid,
                     UnaryOp::tanh, UnaryOp::gelu, UnaryOp::exp, UnaryOp::neg})
    for (Layout lin : {Layout::col_major, Layout::row_major})
      for (Layout lout : {Layout::col_major, Layout::row_major})
        for (DType din : {DType::f32, DType::bf16})
          for (DType dout : {DType::f32, DType::f16})
            for (auto [m, n] : kShapes) {
              SCOPED_TRACE(std::string(to_string(op)) + " " + std::to_string(m) + "x" + std::to_string(n) +
                           " " + to_string(lin) + "->" + to_string(lout) + " " + to_string(din) + "->" + to_string(dout));
              UnaryConfig cfg;
              cfg.m = m, cfg.n = n, cfg.op = op;
              cfg.in = {lin, din, Broadcast::matrix};
              cfg.out = {lout, dout, Broadcast::matrix};
              const int64_t ld_in = (lin == Layout::col_major ? m : n) + 2;
              const int64_t ld_out = (lout == Layout::col_major ? m : n) + 1;
              std::mt19937 rng(static_cast<unsigned>(m * 31 + n));
              Buffer in = random_buffer(din, operand_extent(cfg.in, m, n, ld_in), rng);
              Buffer out = random_buffer(dout, operand_extent(cfg.out, m, n, ld_out), rng);
              Buffer before = out;
              Unary{cfg}(in.data(), out.data(), ld_in, ld_out);
              std::vector<bool> written(out.values.size(), false);
              for (int64_t r = 0; r < m; ++r)
                for (int64_t c = 0; c < n; ++c) {
                  const int64_t o = index_of(lout, r, c, ld_out);
                  written[o] = true;
                  const float want = apply(op, in.values[index_of(lin, r, c, ld_in)]);
                  const float got = stored_value(dout, out.data(), o);
                  ASSERT_NEAR(got, want, tolerance(dout) * (1 + std::fabs(want))) << "at " << r << "," << c;
                }
              for (size_t i = 0; i < written.size(); ++i)
                if (!written[i]) {
                  ASSERT_EQ(stored_value(dout, out.data(), i), before.values[i]) << "padding " << i;
                }
            }
}

// An f32 transposition (identity, the layouts differ) runs through registers on AVX2 and
// AVX-512 (src/transpose.cc): 16 x 16 or 8 x 8 tiles, the edges element by element. Every path
// the CPU runs gives the exact copy, both directions, at sizes with and without edges, and
// writes nothing outside the matrix.
TEST(Unary, TranspositionOnEveryIsaPath) {
  const char* saved = std::getenv("POLYFUSE_CPU_ISA");
  const std::string restore = saved ? saved : "";
  for (Isa isa : {Isa::generic, Isa::avx2, Isa::avx512, Isa::neon}) {
    if (!isa_supported(isa)) continue;
    ::setenv("POLYFUSE_CPU_ISA", to_string(isa), 1);
    for (Layout lin : {Layout::col_major, Layout::row_major})
      for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{16, 16}, {8, 8}, {512, 32}, {33, 47}, {7, 100}, {64, 9}, {28, 8}, {1, 5}, {17, 1}, {3, 3}}) {
        SCOPED_TRACE(std::string(to_string(isa)) + " " + to_string(lin) + " " + std::to_string(m) + "x" + std::to_string(n));
        const Layout lout = lin == Layout::col_major ? Layout::row_major : Layout::col_major;
        UnaryConfig cfg;
        cfg.m = m, cfg.n = n, cfg.op = UnaryOp::identity;
        cfg.in = {lin, DType::f32, Broadcast::matrix};
        cfg.out = {lout, DType::f32, Broadcast::matrix};
        const int64_t ld_in = (lin == Layout::col_major ? m : n) + 3;
        const int64_t ld_out = (lout == Layout::col_major ? m : n) + 5;
        std::mt19937 rng(static_cast<unsigned>(m * 7 + n));
        Buffer in = random_buffer(DType::f32, operand_extent(cfg.in, m, n, ld_in), rng);
        std::vector<float> out(static_cast<size_t>(operand_extent(cfg.out, m, n, ld_out)), -7.f);
        Unary{cfg}(in.data(), out.data(), ld_in, ld_out);
        std::vector<bool> written(out.size(), false);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < n; ++c) {
            const int64_t o = index_of(lout, r, c, ld_out);
            written[static_cast<size_t>(o)] = true;
            ASSERT_EQ(out[static_cast<size_t>(o)], in.values[static_cast<size_t>(index_of(lin, r, c, ld_in))])
                << "at " << r << "," << c;
          }
        for (size_t i = 0; i < out.size(); ++i)
          if (!written[i]) {
            ASSERT_EQ(out[i], -7.f) << "outside the matrix at " << i;
          }
      }
  }
  if (saved) ::setenv("POLYFUSE_CPU_ISA", restore.c_str(), 1);
  else ::unsetenv("POLYFUSE_CPU_ISA");
}

// An identity of one layout is a copy of each row (column-major: column), bit for bit: NaN
// payloads, -0 and subnormals as they are, f16 and bf16 patterns too, nothing outside the block.
TEST(Unary, CopyOfOneLayoutKeepsTheBits) {
  const std::vector<uint32_t> specials = {0x7fc00001u, 0xffa00000u, 0x80000000u, 0x00000001u, 0x7f800000u};
  for (DType dtype : {DType::f32, DType::f16, DType::bf16})
    for (Layout layout : {Layout::row_major, Layout::col_major})
      for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{512, 32}, {7, 100}, {1, 5}, {17, 1}}) {
        SCOPED_TRACE(std::string(to_string(dtype)) + " " + to_string(layout) + " " + std::to_string(m) + "x" +
                     std::to_string(n));
        UnaryConfig cfg;
        cfg.m = m, cfg.n = n, cfg.op = UnaryOp::identity;
        cfg.in = {layout, dtype, Broadcast::matrix};
        cfg.out = {layout, dtype, Broadcast::matrix};
        const int64_t ld_in = (layout == Layout::col_major ? m : n) + 3;
        const int64_t ld_out = (layout == Layout::col_major ? m : n) + 5;
        const std::size_t size = static_cast<std::size_t>(dtype_size(dtype));
        std::vector<unsigned char> in(static_cast<std::size_t>(operand_extent(cfg.in, m, n, ld_in)) * size);
        std::mt19937 rng(static_cast<unsigned>(m * 5 + n));
        for (unsigned char& byte : in) byte = static_cast<unsigned char>(rng());
        for (std::size_t i = 0; i < specials.size() && (i + 1) * 4 <= in.size(); ++i)
          std::memcpy(in.data() + i * 4, &specials[i], 4);
        std::vector<unsigned char> out(static_cast<std::size_t>(operand_extent(cfg.out, m, n, ld_out)) * size, 0xa5);
        Unary{cfg}(in.data(), out.data(), ld_in, ld_out);
        std::vector<bool> written(out.size() / size, false);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < n; ++c) {
            const std::size_t o = static_cast<std::size_t>(index_of(layout, r, c, ld_out));
            written[o] = true;
            ASSERT_EQ(std::memcmp(out.data() + o * size, in.data() + static_cast<std::size_t>(index_of(layout, r, c, ld_in)) * size, size), 0)
                << "at " << r << "," << c;
          }
        for (std::size_t i = 0; i < written.size(); ++i)
          if (!written[i]) {
            for (std::size_t b = 0; b < size; ++b) ASSERT_EQ(out[i * size + b], 0xa5) << "outside the block at " << i;
          }
      }
}

// Binary's f32 rows run 4, 8 or 16 lanes wide (the baseline loop compiled for AVX2 and AVX-512):
// every op, every broadcast of the second operand (and a broadcast first one), post ops (on
// AVX-512 the transcendental ones run in the binary operation's pass), rows with tails, and
// inputs with NaN, infinities, -0 and subnormals give the same bits on every path the CPU runs.
TEST(Binary, EveryIsaPathGivesTheSameBits) {
  const char* saved = std::getenv("POLYFUSE_CPU_ISA");
  const std::string restore = saved ? saved : "";
  const int64_t m = 7, n = 37;
  std::vector<float> x(static_cast<size_t>(m * n)), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = std::sin(float(i) * 0.7f) * 3.f;
    y[i] = std::cos(float(i) * 1.3f) * 2.f;
  }
  const float specials[] = {NAN, INFINITY, -INFINITY, -0.f, 0.f, 1e-40f, -1e-40f, 3.4e38f};
  for (size_t i = 0; i < 8; ++i) x[i * 11] = specials[i], y[i * 13 + 3] = specials[(i + 3) % 8];
  for (BinaryOp op : {BinaryOp::add, BinaryOp::sub, BinaryOp::mul, BinaryOp::div, BinaryOp::max, BinaryOp::min})
    for (auto [first, second] : {std::pair{Broadcast::matrix, Broadcast::matrix}, {Broadcast::matrix, Broadcast::row_vector},
                                 {Broadcast::matrix, Broadcast::col_vector}, {Broadcast::matrix, Broadcast::scalar},
                                 {Broadcast::col_vector, Broadcast::matrix}})
      for (UnaryOp post : {UnaryOp::identity, UnaryOp::relu, UnaryOp::exp, UnaryOp::tanh, UnaryOp::gelu,
                           UnaryOp::sigmoid, UnaryOp::rsqrt}) {
        SCOPED_TRACE(std::string(to_string(op)) + " " + std::to_string(int(first)) + " " + std::to_string(int(second)) +
                     " " + to_string(post));
        BinaryConfig cfg;
        cfg.m = m, cfg.n = n, cfg.op = op, cfg.post = post;
        cfg.in0 = {Layout::row_major, DType::f32, first};
        cfg.in1 = {Layout::row_major, DType::f32, second};
        cfg.out = {Layout::row_major, DType::f32, Broadcast::matrix};
        const int64_t ld0 = first == Broadcast::matrix ? n : 1, ld1 = second == Broadcast::matrix ? n : 1;
        std::vector<std::vector<uint32_t>> results;
        // (exp, gelu, sigmoid: vector_math.h's functions on AVX2 and AVX-512, the same bits on both;
        // the generic path's libm differs from them by design, and tanh is libmvec's 8- and 16-lane
        // functions: compared only with the two passes on the same path below)
        const bool transcendental = post != UnaryOp::identity && post != UnaryOp::relu && post != UnaryOp::rsqrt;
        for (Isa isa : {Isa::generic, Isa::avx2, Isa::avx512, Isa::neon}) {
          if (!isa_supported(isa)) continue;
          ::setenv("POLYFUSE_CPU_ISA", to_string(isa), 1);
          std::vector<float> out(x.size(), -7.f);
          Binary{cfg}(x.data(), y.data(), out.data(), ld0, ld1, n);
          BinaryConfig without_post = cfg;  // the same path in two passes: the operation, then post
          without_post.post = UnaryOp::identity;
          std::vector<float> two_passes(x.size(), -7.f);
          Binary{without_post}(x.data(), y.data(), two_passes.data(), ld0, ld1, n);
          Unary{{.m = m, .n = n, .op = post, .in = cfg.out, .out = cfg.out}}(two_passes.data(), two_passes.data(), n, n);
          for (size_t i = 0; i < out.size(); ++i)
            ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(two_passes[i]))
                << to_string(isa) << " at " << i << ": " << out[i] << " vs " << two_passes[i] << " in two passes";
          if (post == UnaryOp::tanh || (transcendental && isa != Isa::avx2 && isa != Isa::avx512)) continue;
          std::vector<uint32_t> bits(out.size());
          std::memcpy(bits.data(), out.data(), out.size() * sizeof(float));
          if (!results.empty()) {
            for (size_t i = 0; i < bits.size(); ++i) ASSERT_EQ(bits[i], results.front()[i]) << to_string(isa) << " at " << i;
          }
          results.push_back(std::move(bits));
        }
      }
  if (saved) ::setenv("POLYFUSE_CPU_ISA", restore.c_str(), 1);
  else ::unsetenv("POLYFUSE_CPU_ISA");
}

// binary_max and binary_min (the generated loops' max and min, a select of bits) are Binary's max
// and min, x > y ? x : y and x < y ? x : y, bit for bit: NaN on either side, signed zeros,
// infinities and subnormals; and vectorised in a loop they give the same bits as one at a time.
TEST(Binary, TheGeneratedLoopsMaxAndMinAreBinarysBitForBit) {
  const float values[] = {NAN, -NAN, INFINITY, -INFINITY, -0.f, 0.f, 1e-40f, -1e-40f, 3.4e38f, -2.5f, 1.f, 7.f};
  std::vector<float> x, y;
  for (float a : values)
    for (float b : values) x.push_back(a), y.push_back(b);
  const int64_t n = static_cast<int64_t>(x.size());
  for (BinaryOp op : {BinaryOp::max, BinaryOp::min}) {
    SCOPED_TRACE(to_string(op));
    std::vector<float> called(x.size()), looped(x.size());
    BinaryConfig cfg;
    cfg.m = 1, cfg.n = n, cfg.op = op;
    cfg.in0 = cfg.in1 = cfg.out = {Layout::row_major, DType::f32, Broadcast::matrix};
    Binary{cfg}(x.data(), y.data(), called.data(), n, n, n);
    for (int64_t i = 0; i < n; ++i) looped[i] = op == BinaryOp::max ? binary_max(x[i], y[i]) : binary_min(x[i], y[i]);
    for (int64_t i = 0; i < n; ++i) {
      const float ternary = op == BinaryOp::max ? (x[i] > y[i] ? x[i] : y[i]) : (x[i] < y[i] ? x[i] : y[i]);
      EXPECT_EQ(std::bit_cast<uint32_t>(looped[i]), std::bit_cast<uint32_t>(ternary)) << x[i] << ", " << y[i];
      EXPECT_EQ(std::bit_cast<uint32_t>(called[i]), std::bit_cast<uint32_t>(ternary)) << x[i] << ", " << y[i];
    }
  }
}

// f16 and bf16 operands and outputs run the f32 rows' code on the widened operands (converted
// once, then the same vector path, the post in the same pass): the bits of the f32 Binary on the
// widened values, rounded once to the output's dtype.
TEST(Binary, NarrowOperandsGiveTheF32PathsBitsRoundedOnce) {
  const int64_t m = 5, n = 45;
  std::mt19937 rng(11);
  for (DType narrow : {DType::f16, DType::bf16})
    for (BinaryOp op : {BinaryOp::sub, BinaryOp::div, BinaryOp::max})
      for (Broadcast second : {Broadcast::matrix, Broadcast::col_vector, Broadcast::row_vector})
        for (UnaryOp post : {UnaryOp::identity, UnaryOp::exp, UnaryOp::gelu})
          for (DType out_type : {DType::f32, narrow}) {
            SCOPED_TRACE(std::string(to_string(narrow)) + " " + to_string(op) + " " + std::to_string(int(second)) + " " +
                         to_string(post) + " -> " + to_string(out_type));
            BinaryConfig cfg;
            cfg.m = m, cfg.n = n, cfg.op = op, cfg.post = post;
            cfg.in0 = {Layout::row_major, narrow, Broadcast::matrix};
            cfg.in1 = {Layout::row_major, DType::f32, second};
            cfg.out = {Layout::row_major, out_type, Broadcast::matrix};
            const int64_t ld1 = second == Broadcast::matrix ? n : 1;
            Buffer x = random_buffer(narrow, m * n, rng);
            Buffer y = random_buffer(DType::f32, second == Broadcast::matrix ? m * n : second == Broadcast::col_vector ? m : n, rng);
            Buffer got = random_buffer(out_type, m * n, rng);
            Binary{cfg}(x.data(), y.data(), got.data(), n, ld1, n);
            BinaryConfig wide = cfg;  // the same operation on the widened values, into f32
            wide.in0.dtype = DType::f32, wide.out.dtype = DType::f32;
            std::vector<float> want(static_cast<size_t>(m * n));
            Binary{wide}(x.values.data(), y.data(), want.data(), n, ld1, n);
            for (size_t i = 0; i < want.size(); ++i) {
              const float rounded = out_type == DType::f32 ? want[i]
                                    : out_type == DType::f16 ? f16_to_f32(f32_to_f16(want[i]))
                                                             : bf16_to_f32(f32_to_bf16(want[i]));
              ASSERT_EQ(std::bit_cast<uint32_t>(stored_value(out_type, got.data(), static_cast<int64_t>(i))),
                        std::bit_cast<uint32_t>(rounded))
                  << "at " << i;
            }
          }
}

TEST(Unary, InPlaceReluOnABlock) {
  UnaryConfig cfg;
  cfg.m = 32, cfg.n = 32, cfg.op = UnaryOp::relu;
  std::mt19937 rng(3);
  Buffer x = random_buffer(DType::f32, 40 * 32, rng);
  std::vector<float> want = x.values;
  for (int64_t c = 0; c < 32; ++c)
    for (int64_t r = 0; r < 32; ++r) want[r + c * 40] = std::max(0.f, want[r + c * 40]);
  Unary{cfg}(x.data(), x.data(), 40, 40);
  EXPECT_EQ(std::vector<float>(static_cast<float*>(x.data()), static_cast<float*>(x.data()) + 40 * 32), want);
}

TEST(Binary, EveryOpWithBroadcastsAndLayouts) {
  const std::vector<Operand> operands = {
      {Layout::col_major, DType::f32, Broadcast::matrix}, {Layout::row_major, DType::f32, Broadcast::matrix},
      {Layout::col_major, DType::f32, Broadcast::row_vector}, {Layout::col_major, DType::f32, Broadcast::col_vector},
      {Layout::col_major, DType::f32, Broadcast::scalar}, {Layout::col_major, DType::bf16, Broadcast::matrix}};
  for (BinaryOp op : {BinaryOp::add, BinaryOp::sub, BinaryOp::mul, BinaryOp::div, BinaryOp::max, BinaryOp::min})
    for (const Operand& in0 : operands)
      for (const Operand& in1 : operands)
        for (Layout lout : {Layout::col_major, Layout::row_major})
          for (auto [m, n] : kShapes) {
            SCOPED_TRACE(std::string(to_string(op)) + " " + std::to_string(m) + "x" + std::to_string(n) + " in0 " +
                         std::to_string(int(in0.broadcast)) + to_string(in0.layout) + to_string(in0.dtype) + " in1 " +
                         std::to_string(int(in1.broadcast)) + to_string(in1.layout) + to_string(in1.dtype) + " out " +
                         to_string(lout));
            BinaryConfig cfg;
            cfg.m = m, cfg.n = n, cfg.op = op, cfg.in0 = in0, cfg.in1 = in1;
            cfg.out = {lout, DType::f32, Broadcast::matrix};
            const int64_t ld0 = in0.broadcast == Broadcast::matrix ? (in0.layout == Layout::col_major ? m : n) + 1 : 2;
            const int64_t ld1 = in1.broadcast == Broadcast::matrix ? (in1.layout == Layout::col_major ? m : n) + 3 : 1;
            const int64_t ldo = lout == Layout::col_major ? m : n;
            std::mt19937 rng(static_cast<unsigned>(m + n * 3));
            Buffer a = random_buffer(in0.dtype, operand_extent(in0, m, n, ld0), rng);
            Buffer b = random_buffer(in1.dtype, operand_extent(in1, m, n, ld1), rng);
            for (size_t i = 0; i < b.values.size(); ++i)  // keep div away from 0
              if (std::fabs(b.values[i]) < 0.1f) { store_value(in1.dtype, b.data(), i, 0.5f); b.values[i] = 0.5f; }
            std::vector<float> out(m * n, -7.f);
            Binary{cfg}(a.data(), b.data(), out.data(), ld0, ld1, ldo);
            for (int64_t r = 0; r < m; ++r)
              for (int64_t c = 0; c < n; ++c) {
                const float want = apply(op, a.values[operand_index(in0, r, c, ld0)], b.values[operand_index(in1, r, c, ld1)]);
                ASSERT_NEAR(out[index_of(lout, r, c, ldo)], want, 1e-6 * (1 + std::fabs(want))) << r << "," << c;
              }
          }
}

// Rows that continue one another in every operand run as one long row: 32 rows of 8 (a grouped
// convolution's block of groups x channels), contiguous or broadcast, the same bits as the same
// operation on an output whose rows are apart (row by row); a row vector does not continue
// itself and stays row by row.
TEST(Binary, ContiguousRowsRunAsOneRow) {
  const int64_t m = 32, n = 8;
  for (Layout layout : {Layout::row_major, Layout::col_major})
    for (Broadcast b1 : {Broadcast::matrix, Broadcast::scalar, Broadcast::row_vector, Broadcast::col_vector})
      for (UnaryOp post : {UnaryOp::identity, UnaryOp::relu, UnaryOp::gelu}) {
        SCOPED_TRACE(std::string(to_string(layout)) + " in1 " + std::to_string(int(b1)) + " " + to_string(post));
        BinaryConfig cfg;
        cfg.m = m, cfg.n = n, cfg.op = BinaryOp::add, cfg.post = post;
        cfg.in0 = {layout, DType::f32, Broadcast::matrix};
        cfg.in1 = {layout, DType::f32, b1};
        cfg.out = {layout, DType::f32, Broadcast::matrix};
        const int64_t ld = layout == Layout::row_major ? n : m;  // contiguous
        const int64_t ld1 = b1 == Broadcast::matrix ? ld : 1;
        std::mt19937 rng(7);
        Buffer a = random_buffer(DType::f32, m * n, rng);
        Buffer b = random_buffer(DType::f32, operand_extent(cfg.in1, m, n, ld1), rng);
        std::vector<float> out(static_cast<size_t>(m * n), -7.f), apart(static_cast<size_t>(m * (n + 1) + n), -7.f);
        Binary{cfg}(a.data(), b.data(), out.data(), ld, ld1, ld);
        Binary{cfg}(a.data(), b.data(), apart.data(), ld, ld1, ld + 1);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < n; ++c)
            ASSERT_EQ(out[static_cast<size_t>(index_of(layout, r, c, ld))],
                      apart[static_cast<size_t>(index_of(layout, r, c, ld + 1))])
                << r << "," << c;
      }
}

// BinaryConfig::post: out := post(in0 op in1), in f32, rounded once to the output's dtype: the
// same values as the binary op then the unary (an f32 output), on every post op, contiguous and
// strided outputs (the staged path), and an f16 output rounded once (not after the sum too).
TEST(Binary, PostOpAppliedBeforeTheStore) {
  for (UnaryOp post : {UnaryOp::identity, UnaryOp::relu, UnaryOp::gelu, UnaryOp::sigmoid, UnaryOp::neg,
                       UnaryOp::silu, UnaryOp::abs})
    for (Layout lout : {Layout::row_major, Layout::col_major})
      for (auto [m, n] : kShapes) {
        SCOPED_TRACE(std::string(to_string(post)) + " " + to_string(lout) + " " + std::to_string(m) + "x" + std::to_string(n));
        BinaryConfig cfg;
        cfg.m = m, cfg.n = n, cfg.op = BinaryOp::add, cfg.post = post;
        cfg.in0 = {Layout::row_major, DType::f32, Broadcast::matrix};
        cfg.in1 = {Layout::col_major, DType::f32, Broadcast::row_vector};
        cfg.out = {lout, DType::f32, Broadcast::matrix};
        std::mt19937 rng(static_cast<unsigned>(m * 5 + n));
        Buffer a = random_buffer(DType::f32, m * n, rng);
        Buffer bias = random_buffer(DType::f32, n, rng);
        const int64_t ldo = lout == Layout::col_major ? m : n;
        std::vector<float> out(static_cast<size_t>(m * n), -7.f);
        Binary{cfg}(a.data(), bias.data(), out.data(), n, 1, ldo);
        UnaryConfig ucfg;  // the two-pass reference: add into f32, then the unary in place
        ucfg.m = m, ucfg.n = n, ucfg.op = post;
        ucfg.in = ucfg.out = {lout, DType::f32, Broadcast::matrix};
        BinaryConfig add = cfg;
        add.post = UnaryOp::identity;
        std::vector<float> want(out.size(), -7.f);
        Binary{add}(a.data(), bias.data(), want.data(), n, 1, ldo);
        Unary{ucfg}(want.data(), want.data(), ldo, ldo);
        for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want[i]) << i;
      }
  BinaryConfig half;  // f16 output: relu(x + y) rounded once
  half.m = 1, half.n = 1, half.op = BinaryOp::add, half.post = UnaryOp::gelu;
  half.in0 = half.in1 = {Layout::row_major, DType::f32, Broadcast::matrix};
  half.out = {Layout::row_major, DType::f16, Broadcast::matrix};
  const float x = 1.0f, y = 0.0004f;  // x + y is not an f16 value
  uint16_t got = 0;
  Binary{half}(&x, &y, &got, 1, 1, 1);
  EXPECT_EQ(got, f32_to_f16(apply(UnaryOp::gelu, x + y)));
  BinaryConfig zero = half;
  zero.post = UnaryOp::zero;
  EXPECT_THROW(Binary{zero}, ConfigError);
}

TEST(Elementwise, RejectsBadShapesAndBroadcastOutputs) {
  UnaryConfig u;
  u.m = 0, u.n = 3;
  EXPECT_THROW({ try { Unary{u}; } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "UnaryConfig.m: must be > 0 (got 0)"); throw; } }, ConfigError);
  BinaryConfig b;
  b.m = 2, b.n = 2, b.out.broadcast = Broadcast::row_vector;
  EXPECT_THROW({ try { Binary{b}; } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "BinaryConfig.out.broadcast: the output must be a matrix"); throw; } }, ConfigError);
}

}  // namespace
}  // namespace polyfuse::cpu::testing
