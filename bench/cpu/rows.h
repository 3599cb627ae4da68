// Section 8 of polyfuse-bench-cpu: the reductions and matmul chains the GPU path fuses (issue 26:
// every idiom gets its CPU row), f32, row-major — polyfuse's CPU target next to oneDNN:
//   rows_softmax, rows_layernorm  examples/softmax.tc and layernorm_rows.tc over M x N: oneDNN's
//                                 softmax_forward and layer_normalization_forward (scale, shift)
//   gemm_softmax                  examples/gemm_softmax.tc at s x s x s: oneDNN's matmul then its
//                                 softmax; OpenBLAS sgemm then oneDNN's softmax
//   mlp                           examples/mlp.tc (the hidden layer f32): Y = relu(X W1 + b1) W2 + b2
//                                 with K = H = N = s: oneDNN's matmul with bias + ReLU, then with
//                                 bias; OpenBLAS sgemm + a pass, twice
// The rows' rates count a nominal 5 (softmax) or 8 (layernorm) operations per element: they
// compare the implementations, not the machine's peak; the chains count 2 M N K per matmul.
#pragma once

#include <cstdint>

#include "baseline_onednn_rows.h"
#include "measure.h"
#include "report.h"

namespace polyfuse::bench {

// `operation` over m x n on `threads` threads (section "rows_<operation>").
void bench_rows(RowOperation operation, int64_t m, int64_t n, int threads, const Budget& budget, Report& report);

// GEMM + row softmax at s x s x s (section "gemm_softmax").
void bench_gemm_softmax(int64_t s, int threads, const Budget& budget, Report& report);

// The two-layer MLP with M = m and K = H = N = s (section "mlp").
void bench_mlp(int64_t m, int64_t s, int threads, const Budget& budget, Report& report);

}  // namespace polyfuse::bench
