// GEMM programs of every layout and dtype, and a host reference, for the CUDA emitter
// tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/frontend.h"

namespace polyfuse::testing {

// `def gemm` over `type` ("f16"/"bf16") with A row- or column-major ("row"/"col") and B
// likewise, sizes symbolic (M, N, K) unless bound by `sizes`.
std::string gemm_source(const std::string& type, bool a_row, bool b_row);

// Compiles `source` with `sizes` bound; the only def.
Program compile_program(const std::string& source, const SizeBindings& sizes = {});

// Round to f16 / bf16 and back (round to nearest even), and the 16-bit encodings.
std::uint16_t to_f16_bits(float value);
std::uint16_t to_bf16_bits(float value);
float from_f16_bits(std::uint16_t bits);
float from_bf16_bits(std::uint16_t bits);

// C = A * B in f32 over the decoded 16-bit inputs; A is M×K (a_row) or K×M, B is K×N
// (b_row) or N×K.
std::vector<float> reference_gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                  bool a_row, bool b_row);

}  // namespace polyfuse::testing
