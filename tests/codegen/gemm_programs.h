// GEMM programs of every layout and dtype, and a host reference, for the CUDA emitter
// tests.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "schedule/gpu_options.h"

namespace polyfuse::testing {

// `def gemm` over `type` ("f16"/"bf16") with A row- or column-major ("row"/"col") and B
// likewise, sizes symbolic (M, N, K) unless bound by `sizes`.
std::string gemm_source(const std::string& type, bool a_row, bool b_row);

// Compiles `source` with `sizes` bound; the only def.
Program compile_program(const std::string& source, const SizeBindings& sizes = {});

// `def f(...)` with a GEMM C = A * B (f16 unless `type`) feeding `epilogue`, whose extra
// inputs are declared in `extra_inputs`; `a` / `a_ref` declare and read A (e.g. "(K, M) A",
// "A(k, m)" for a column-major A).
std::string fused_source(const std::string& extra_inputs, const std::string& epilogue, const std::string& type = "f16",
                         const std::string& a = "(M, K) A", const std::string& a_ref = "A(m, k)");

// The text of examples/<name>.tc.
std::string example_source(const std::string& name);

// A test name for `example` at `sizes`: "gemm_softmax_K19_M37_N101".
std::string example_test_name(const std::string& example, const SizeBindings& sizes);

// Round to f16 / bf16 and back (round to nearest even), and the 16-bit encodings.
std::uint16_t to_f16_bits(float value);
std::uint16_t to_bf16_bits(float value);
float from_f16_bits(std::uint16_t bits);
float from_bf16_bits(std::uint16_t bits);

// C = A * B in f32 over the decoded 16-bit inputs; A is M×K (a_row) or K×M, B is K×N
// (b_row) or N×K.
std::vector<float> reference_gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                  bool a_row, bool b_row);
// One element C(i, j) of reference_gemm.
float reference_gemm_element(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, bool a_row,
                             bool b_row, int i, int j);

// 54 shapes (M, N, K) that are multiples of nothing: 1x1x1, primes, tile edges +-1, mixes.
std::vector<std::array<int, 3>> odd_shapes();
// M, N, K of `shape`, and for batched programs B = 1 + (M + N) % 3.
SizeBindings odd_shape_sizes(const std::array<int, 3>& shape, bool batched);

// Shapes for kernels generated with bound sizes: each takes other global access widths
// (from the leading dimensions), a K tail after the isolated full k-steps, or none.
std::vector<std::array<int, 3>> bound_shapes();

// 64x64x32 blocks of 32x32x32 warps: small tiles, so that small shapes have many blocks.
GpuOptions small_tiles();

}  // namespace polyfuse::testing
