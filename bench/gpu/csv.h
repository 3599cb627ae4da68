// The CSV file of a run: one header line, then one line per problem, written as the run
// goes (so an interrupted run keeps what it measured). Columns, in order:
//   gpu, driver, cuda_runtime, cublas, cudnn, date, idiom, dtype, M, N, K, batch,
//   l2_flush, repeats, cublas_cudnn_ms, cublaslt_ms, polyfuse_default_ms,
//   polyfuse_best_ms, polyfuse_best_config, speedup_best_vs_cublas_cudnn,
//   speedup_best_vs_cublaslt, speedup_default_vs_cublas_cudnn,
//   speedup_default_vs_cublaslt, cudnn_conv_ms, cudnn_fused_ms, speedup_best_vs_cudnn_conv,
//   speedup_best_vs_cudnn_fused, speedup_default_vs_cudnn_conv,
//   speedup_default_vs_cudnn_fused, layer, check, notes
// A convolution's row (conv_idioms.h) has the cudnn_* columns and `layer` ("res2 3x3: N32
// 56x56 C64 K64 3x3 s1 p1"), and M, N, K of its implicit GEMM (N * P * Q, K, R * S * C);
// a GEMM idiom's has them empty.
// Times are milliseconds (median of the timed launches) with 6 significant digits,
// speedups baseline time / polyfuse time with 4; an unmeasured value is an empty field.
// Fields holding a comma, a quote or a newline are quoted (RFC 4180).
#pragma once

#include <string>
#include <vector>

#include "bench/gpu/results.h"

namespace polyfuse::bench {

// The column names above, in order.
const std::vector<std::string>& csv_columns();

// The header line (no newline).
std::string csv_header();

// One row's line (no newline).
std::string csv_row(const RunEnvironment& environment, const ResultRow& row);

// `field` quoted if it holds a comma, a double quote, CR or LF (quotes doubled).
std::string csv_escape(const std::string& field);

}  // namespace polyfuse::bench
