// The examples as the CPU-target tests use them: read from examples/, with their
// element types rewritten, and bound to a shape.
#pragma once

#include <string>

#include "frontend/frontend.h"
#include "runtime/api/run_program.h"

namespace polyfuse::testing {

// The example names of examples/*.tc that the CPU target compiles through its blocked plan, in a
// fixed order (those with row reductions after the matmul with loop-nest stages among the
// blocked ones). CpuExamples.EveryExampleIsListed checks that every examples/*.tc is in exactly
// one of the lists here.
const std::vector<std::string>& example_names();

// The examples with row reductions and no matmul (softmax, LayerNorm, cross-entropy): the CPU target's
// blocked plan runs each reduction as a plain loop nest (codegen/cpu_loop_nest.h) between blocked
// pointwise stages.
const std::vector<std::string>& loop_nest_examples();

// The convolutions (examples/conv2d*.tc, issue 24): BRGEMM over the filter taps on the CPU target,
// run at the shapes of tests/support/conv_shapes.h (conv_examples_test.cc).
const std::vector<std::string>& convolution_examples();

// The general contractions (examples/tensordot.tc, issue 23): a BRGEMM over grouped indices
// on the CPU target (codegen/cpu_contraction.h), run in contraction_cpu_test.cc.
const std::vector<std::string>& contraction_examples();

// Attention (examples/attention.tc): its two products as BRGEMMs between loop-nest stages for
// the row statistics, sizes B, S, T, D (run_examples_test.cc's CpuExamples.Attention*).
const std::vector<std::string>& attention_examples();


// The source of each statement of `program` ("y(m) +=! S0_exp(m, k) * v(k)"), in order;
// `with_ids`: each after its id ("S0_scale: C(m, n) = C_sum(m, n) * 0.125").
std::vector<std::string> statement_sources(const Program& program, bool with_ids = false);

// The text of examples/<name>.tc with every tensor type (f16, bf16, f32) replaced by
// `dtype`, or unchanged when `dtype` is empty.
std::string example_text(const std::string& name, const std::string& dtype = "");

// The first def of `text`, with `sizes` bound.
Program compile_text(const std::string& text, const SizeBindings& sizes,
                     const std::string& file = "test.tc");

// A run on the CPU target: the default CPU, no timed repeats, random inputs from `seed`,
// checked against the exact reference.
RunRequest cpu_run_request(std::uint64_t seed = 1);

// A CPU schedule switch that must not change the bits (CpuScheduleOptions::pointwise_loops,
// ::inline_temporaries): `program`'s outputs with `option` on, on 1 and 3 threads (every stage of
// more than one block on them), equal those with it off on 1 thread, bit for bit; every run is
// checked against the exact reference (gtest expectations; inputs from `seed`).
void expect_option_keeps_the_bits(const Program& program, bool CpuScheduleOptions::*option, std::uint64_t seed);

// compile_text's program run once on the CPU target (the default CPU, no timed repeats),
// checked against the exact reference.
RunReport run_text_on_cpu(const std::string& text, const SizeBindings& sizes, const std::string& file = "test.tc");

}  // namespace polyfuse::testing
