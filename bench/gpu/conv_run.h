// The convolution problems of a run (plan_conv_problems): polyfuse's kernel of each
// compiled through the runtime API (the .tc of conv_idioms.h), then per problem: random
// inputs, cuDNN's algorithm search on them, and each variant checked (the host reference
// on sampled elements, then the first variant that passed) and timed: cudnn_conv, then
// cudnn_fused where the idiom has an epilogue, then polyfuse (its default options:
// polyfuse_best = polyfuse_default). The row's notes name cuDNN's algorithms and how
// polyfuse ran the def (polyfuse_path.h).
#pragma once

#include <string>
#include <vector>

#include "bench/gpu/plan.h"
#include "bench/gpu/polyfuse_runner.h"
#include "bench/gpu/results.h"
#include "bench/gpu/variants.h"

namespace polyfuse::bench {

// One compile job per problem, in the same order (the default options, for `arch`).
std::vector<CompileJob> conv_compile_jobs(const std::vector<ConvProblem>& problems, const std::string& arch);

// Checks then times every variant of `problem`; `job` is its compiled polyfuse kernel.
ResultRow measure_conv_problem(const ConvProblem& problem, const CompileJob& job, RunContext& context);

// The progress line of one measured convolution problem.
std::string conv_progress_line(const ConvProblem& problem, size_t layers, const ResultRow& row);

}  // namespace polyfuse::bench
