// Convolutions in polyfuse-bench-cpu (issue 24 item 4, CPU part): NHWC input, KRSC filter,
// f32 — polyfuse's CPU target (BRGEMM over the filter taps; a 1x1 convolution is a GEMM)
// next to oneDNN's convolution_forward (src/dst NHWC as polyfuse sees them, the weights
// reordered once, outside the timing, into the layout oneDNN prefers), plain and with bias
// + ReLU fused (post-op), each checked against the other. polyfuse twice: the program with
// the KRSC filter (reordered into [taps, c, k] inside every call) and the same program with
// the filter declared RSCK ("rsck": the order its BRGEMM reads, prepared outside the timing
// as oneDNN's weights are, so no copy in the call).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/gpu/conv_shapes.h"
#include "measure.h"

namespace polyfuse::bench {

// ResNet-50's 3x3 and 1x1 layers at batch `batch` (a reduced set when `quick`), odd shapes, and
// ResNeXt-50's stage-3 grouped 3x3 (32 groups of 8 channels).
std::vector<ConvShape> conv_shapes(bool quick, int64_t batch);

// polyfuse / oneDNN GFLOP/s of one (shape, fused, threads).
struct ConvRatio {
  int threads = 1;
  bool fused = false;
  double vs_onednn = 0;
  double rsck_vs_onednn = 0;  // the filter declared RSCK
  double const_vs_onednn = 0; // the KRSC filter a constant input (packed on the first call, kept)
  bool grouped = false;       // a grouped layer: its own summary ratios
};

// Times polyfuse and oneDNN on `shape`, checks them against each other, prints one line.
ConvRatio bench_conv(const ConvShape& shape, bool fused, int threads, const Budget& budget);

// The section: every shape, plain and fused, on each thread count; returns the summary's
// ratios ("conv_vs_onednn_1thr=0.83 conv_bias_relu_vs_onednn_1thr=0.85 ..."; the grouped
// layer's as conv_grouped.., apart).
std::string bench_conv_section(bool quick, const std::vector<int>& thread_counts, const Budget& budget);

}  // namespace polyfuse::bench
