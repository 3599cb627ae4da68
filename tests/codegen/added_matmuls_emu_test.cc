// Two matmuls whose results the epilogue adds, as one accumulator (codegen/added_matmuls.h):
// the second k-loop continues the first one's f32 sum, so the fused kernel keeps the plain
// GEMM's 64x64 warp tile. On the emulator against the exact reference: reductions of
// different odd lengths (K != L, neither a multiple of the k-step), odd M and N, every A/B
// layout, rings of 1..4 shared stages, a bias and a ReLU after the add. And where it does not
// apply: the kernel keeps two accumulators.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/cuda_emitter.h"
#include "emu_harness.h"
#include "gemm_programs.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

// D = relu(A*B + E*F + bias) with A, E of layout `a_row` and B, F of `b_row`; A*B reduces
// over K, E*F over L.
std::string added_source(bool a_row, bool b_row) {
  const auto a = [a_row](const char* name, const char* k) {
    return std::make_pair(a_row ? fmt::format("f16(M, {}) {}", k, name) : fmt::format("f16({}, M) {}", k, name),
                          a_row ? fmt::format("{}(m, {})", name, k[0] == 'K' ? "k" : "l")
                                : fmt::format("{}({}, m)", name, k[0] == 'K' ? "k" : "l"));
  };
  const auto b = [b_row](const char* name, const char* k) {
    return std::make_pair(b_row ? fmt::format("f16({}, N) {}", k, name) : fmt::format("f16(N, {}) {}", k, name),
                          b_row ? fmt::format("{}({}, n)", name, k[0] == 'K' ? "k" : "l")
                                : fmt::format("{}(n, {})", name, k[0] == 'K' ? "k" : "l"));
  };
  const auto [a_decl, a_read] = a("A", "K");
  const auto [b_decl, b_read] = b("B", "K");
  const auto [e_decl, e_read] = a("E", "L");
  const auto [f_decl, f_read] = b("F", "L");
  return fmt::format("def added({}, {}, {}, {}, f16(N) bias) -> (f16(M, N) D) {{\n"
                     "  C1(m, n) +=! {} * {}\n"
                     "  C2(m, n) +=! {} * {}\n"
                     "  D(m, n) = relu(C1(m, n) + C2(m, n) + bias(n))\n}}\n",
                     a_decl, b_decl, e_decl, f_decl, a_read, b_read, e_read, f_read);
}

// M, N, K, L: odd, K != L, one past a block tile; a K shorter than the ring.
const std::vector<std::array<int, 4>> shapes = {{67, 131, 97, 40}, {130, 65, 33, 161}};

GpuOptions ring_of(int stages) {
  GpuOptions o;  // 128x128x32 blocks of 64x64 warps
  o.stages = stages;
  return o;
}

void check(const std::string& what, const std::string& source, const GpuOptions& o, const std::array<int, 4>& shape) {
  const Program kernel_program = compile_program(source);
  EXPECT_NE(emit_config_text(kernel_program, o).find("accumulators: one for C1 + C2"), std::string::npos) << what;
  {
    const auto [m, n, k, l] = shape;
    Program program = compile_program(source, SizeBindings{{"M", m}, {"N", n}, {"K", k}, {"L", l}});
    EmuRun run = run_on_emulator(program, o, 1, &kernel_program);
    EXPECT_TRUE(run.check.ok) << fmt::format("{}, M={} N={} K={} L={}: ", what, m, n, k, l) << run.check.to_string();
    EXPECT_EQ(run.stats.counter("global_bytes_stored"), static_cast<std::uint64_t>(m) * n * 2) << "only D is stored";
    std::printf("%s M=%d N=%d K=%d L=%d: %.3g of the tolerance used\n", what.c_str(), m, n, k, l,
                run.check.max_tolerance_used);
  }
}

// One kernel build and one shape each (CI time); StagesEmu runs examples/add_gemms.tc on
// rings of 3..5 stages too.
TEST(AddedMatmulsEmu, EveryLayout) {
  for (bool a_row : {true, false})
    for (bool b_row : {true, false})
      check(fmt::format("A, E {} B, F {}", a_row ? "row" : "col", b_row ? "row" : "col"), added_source(a_row, b_row),
            ring_of(2), shapes[a_row == b_row ? 0 : 1]);
}

TEST(AddedMatmulsEmu, RingsOf1And4Stages) {
  check("1 stage", added_source(true, false), ring_of(1), shapes[0]);
  check("4 stages", added_source(false, true), ring_of(4), shapes[1]);
}

// The example at 4096 on sm_80: one accumulator, the plain GEMM's 64x64 warp tile.
TEST(AddedMatmuls, TheExampleKeepsTheGemmWarpTile) {
  GpuOptions o;
  o.arch = Arch::sm_80;
  o.choose_warp = true;
  const std::string config =
      emit_config_text(compile_program(example_source("add_gemms"), {{"M", 4096}, {"N", 4096}, {"K", 4096}}), o);
  EXPECT_NE(config.find("warp 64x64x32"), std::string::npos) << config;
  EXPECT_NE(config.find("accumulators: one for C1 + C2, the k-steps of C1 then C2's into one f32 tile"), std::string::npos)
      << config;
}

// Not an add of the two results alone, a stored result, or split-K: two accumulators.
TEST(AddedMatmuls, OtherwiseTwoAccumulators) {
  const std::string two = "def f(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F) -> (f16(M, N) D) {\n"
                          "  C1(m, n) +=! A(m, k) * B(k, n)\n"
                          "  C2(m, n) +=! E(m, k) * F(k, n)\n";
  GpuOptions split;
  split.split_k = 2;
  split.block = {64, 64, 32};
  split.warp = {32, 32, 16};
  struct Case {
    std::string what, source;
    GpuOptions options;
    SizeBindings sizes;
  };
  for (const Case& c : std::vector<Case>{
           {"a difference", two + "  D(m, n) = C1(m, n) - C2(m, n)\n}\n", GpuOptions{}, {}},
           {"C1 read twice", two + "  D(m, n) = C1(m, n) + C2(m, n) + C1(m, n)\n}\n", GpuOptions{}, {}},
           {"split-K", two + "  D(m, n) = C1(m, n) + C2(m, n)\n}\n", split, {}},
           {"C1 stored", "def f(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F) -> (f16(M, N) C1, f16(M, N) D) {\n"
                         "  C1(m, n) +=! A(m, k) * B(k, n)\n  C2(m, n) +=! E(m, k) * F(k, n)\n"
                         "  D(m, n) = C1(m, n) + C2(m, n)\n}\n", GpuOptions{}, {}},
           {"swiglu", example_source("swiglu"), GpuOptions{}, {}}}) {
    const std::string config = emit_config_text(compile_program(c.source, c.sizes), c.options);
    EXPECT_NE(config.find("tiles: "), std::string::npos) << c.what << ":\n" << config;
    EXPECT_EQ(config.find("accumulators: one for"), std::string::npos) << c.what << ":\n" << config;
  }
}

}  // namespace
}  // namespace polyfuse
