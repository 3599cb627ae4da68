// The summary of a run: one line per (idiom, element type, polyfuse variant, baseline)
// with the geomean, min and max speedup and the share of sizes >= 1.0, and issue 7's
// goal beside the lines that have one:
//
//   gemm_bias_relu  f16  polyfuse_best    vs cublas_cudnn: geomean 1.234x  min 0.950x
//     max 1.600x  >=1.0 on 87% of 100 sizes  | goal (H100, f16) >= 1.30x: MISSED by ...
//
// (one line each; wrapped here). Lines follow all_idioms(), then conv_idioms() (against
// cudnn_conv and cudnn_fused), and all_dtypes() order.
#pragma once

#include <string>
#include <vector>

#include "bench/gpu/results.h"

namespace polyfuse::bench {

// The summary lines of `rows` (each ends with a newline), preceded by a header that
// names the GPU, the command and the method, and a note when the GPU is not an H100
// (the goals are stated for one).
std::string summary_text(const RunEnvironment& environment, const std::vector<ResultRow>& rows);

// Only the statistic lines (no header): the part tests and the README quote.
std::vector<std::string> summary_lines(const std::vector<ResultRow>& rows);

}  // namespace polyfuse::bench
