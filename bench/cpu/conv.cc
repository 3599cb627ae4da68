#include "conv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "baseline_onednn_conv.h"
#include "codegen/cpu_emit.h"
#include "frontend/frontend.h"
#include "runtime/cpu/cpu_module.h"
#include "schedule/cpu_target.h"

namespace polyfuse::bench {
namespace {

double geomean_of(const std::vector<double>& v) {
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return v.empty() ? 0 : std::exp(log_sum / double(v.size()));
}

// `text` (a conv_tc_source layer) with its filter stored [taps.., c, k] (RSCK; CK for a 1x1
// layer), the order the BRGEMM reads it in: no reordering copy inside the call.
std::string with_rsck_filter(std::string text) {
  const auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("bench conv: no '" + from + "' in\n" + text);
    text.replace(at, from.size(), to);
  };
  if (text.find("F(k, c)") != std::string::npos) {
    replace("(K, C) F", "(C, K) F");
    replace("F(k, c)", "F(c, k)");
  } else if (text.find("F(g, k, r, s, c)") != std::string::npos) {  // grouped: [G][taps.., c, k]
    replace("(G, K, R, R, C) F", "(G, R, R, C, K) F");
    replace("F(g, k, r, s, c)", "F(g, r, s, c, k)");
  } else {
    replace("(K, R, R, C) F", "(R, R, C, K) F");
    replace("F(k, r, s, c)", "F(r, s, c, k)");
  }
  return text;
}

}  // namespace

std::vector<ConvShape> conv_shapes(bool quick, int64_t batch) {
  // ResNet-50 (NHWC): each stage's 3x3 and its 1x1 layers (the stride-2 3x3 of stage 3).
  std::vector<ConvShape> all = resnet50_conv_layers(batch);
  all.push_back({"odd 3x3", 1, 19, 23, 37, 53, 3, 1, 1});
  all.push_back({"odd C=3 s2", 1, 27, 25, 3, 29, 3, 2, 1});
  for (const ConvShape& s : resnext50_grouped_layers(batch))
    if (s.name == "rx3 3x3 g32") all.push_back(s);
  if (!quick) return all;
  std::vector<ConvShape> some;
  for (const ConvShape& s : all)
    if (s.name == "res2 3x3" || s.name == "res5 3x3" || s.name == "res4 1x1" || s.name == "odd 3x3" ||
        s.name == "rx3 3x3 g32")
      some.push_back(s);
  return some;
}

ConvRatio bench_conv(const ConvShape& shape, bool fused, int threads, const Budget& budget) {
  // The input read at stride * h + r - pad (zero outside), the filter KRSC (KC for a 1x1
  // layer); fused: + bias(k), relu.
  const std::string text =
      conv_tc_source(shape, fused ? ConvEpilogue::bias_relu : ConvEpilogue::none, "f32", "conv");
  SizeBindings used;
  for (const auto& size : conv_size_bindings(shape, text)) used[size.first] = size.second;
  const Program program = compile_source(SourceFile{"conv.tc", text}, used).programs.at(0);
  CpuScheduleOptions options;
  options.target = detect_cpu_target();
  options.threads = threads;
  const cpu_runtime::CpuModule ours = cpu_runtime::CpuModule::load(emit_cpu(program, options), cpu_entry_name(program.name));
  const Program program_rsck =
      compile_source(SourceFile{"conv_rsck.tc", with_rsck_filter(text)}, used).programs.at(0);
  const cpu_runtime::CpuModule ours_rsck =
      cpu_runtime::CpuModule::load(emit_cpu(program_rsck, options), cpu_entry_name(program_rsck.name));
  // The filter a constant input, as oneDNN's weights are reordered once outside the timing: the
  // generated code packs it on the first call and keeps it (CpuScheduleOptions::constant_inputs).
  CpuScheduleOptions constant_options = options;
  constant_options.constant_inputs = {"F"};
  const cpu_runtime::CpuModule ours_const =
      cpu_runtime::CpuModule::load(emit_cpu(program, constant_options), cpu_entry_name(program.name));

  const auto input = random_floats(std::size_t(shape.n * shape.h * shape.w * shape.c), 21);
  const int64_t channels = shape.c / shape.groups, outputs = shape.k / shape.groups;  // a group's
  const auto filter = random_floats(std::size_t(shape.k * shape.r * shape.r * channels), 22);
  const auto bias = random_floats(std::size_t(shape.k), 23);
  const OnednnConv onednn(threads, shape.n, shape.h, shape.w, shape.c, shape.k, shape.r, shape.stride, shape.pad, fused,
                          filter.data(), bias.data(), shape.groups);
  std::vector<float> out_ours(std::size_t(shape.n * shape.p() * shape.q() * shape.k)), out_onednn(out_ours.size());
  // The filter as RSCK, per group (prepared once, outside the timing, as oneDNN's weights are).
  std::vector<float> filter_rsck(filter.size());
  const int64_t taps = shape.r * shape.r, per_group = outputs * taps * channels;
  for (int64_t g = 0; g < shape.groups; ++g)
    for (int64_t k = 0; k < outputs; ++k)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t c = 0; c < channels; ++c)
          filter_rsck[std::size_t(g * per_group + (t * channels + c) * outputs + k)] =
              filter[std::size_t(g * per_group + (k * taps + t) * channels + c)];
  std::vector<float> out_rsck(out_ours.size()), out_const(out_ours.size());
  std::vector<void*> buffers = {const_cast<float*>(input.data()), const_cast<float*>(filter.data())};
  if (fused) buffers.push_back(const_cast<float*>(bias.data()));
  buffers.push_back(out_ours.data());
  std::vector<void*> buffers_rsck = buffers;
  buffers_rsck[1] = filter_rsck.data();
  buffers_rsck.back() = out_rsck.data();
  std::vector<void*> buffers_const = buffers;
  buffers_const.back() = out_const.data();
  ours_const.forget_constants();  // (the same pointer may have held another shape's filter)
  // Check once, polyfuse against oneDNN (sums of C * R * R products of values in [-1, 1)).
  ours(buffers.data());
  ours_rsck(buffers_rsck.data());
  ours_const(buffers_const.data());
  onednn(input.data(), out_onednn.data());
  double worst = 0;
  for (std::size_t i = 0; i < out_ours.size(); ++i)
    worst = std::max({worst, double(std::fabs(out_ours[i] - out_onednn[i])),
                      double(std::fabs(out_rsck[i] - out_onednn[i])), double(std::fabs(out_const[i] - out_onednn[i]))});

  const double g_ours = gflops([&] { ours(buffers.data()); }, shape.flops(), budget);
  const double g_rsck = gflops([&] { ours_rsck(buffers_rsck.data()); }, shape.flops(), budget);
  const double g_const = gflops([&] { ours_const(buffers_const.data()); }, shape.flops(), budget);
  const double g_onednn = gflops([&] { onednn(input.data(), out_onednn.data()); }, shape.flops(), budget);
  const ConvRatio ratio{threads, fused, g_ours / g_onednn, g_rsck / g_onednn, g_const / g_onednn, shape.groups > 1};
  const std::string warning =
      worst > 1e-5 * double(channels * shape.r * shape.r) ? fmt::format("  WARNING: differs from oneDNN by {:g}", worst) : "";
  std::printf("  %-12s N%lld %3lldx%-3lld C%-4lld K%-4lld %lldx%lld s%lld g%-2lld %-9s %2d thr  polyfuse %7.1f  rsck %7.1f  "
              "const %7.1f  onednn %7.1f (%5.2fx, rsck %5.2fx, const %5.2fx) [%s]%s\n",
              shape.name.c_str(), (long long)shape.n, (long long)shape.h, (long long)shape.w, (long long)shape.c,
              (long long)shape.k, (long long)shape.r, (long long)shape.r, (long long)shape.stride, (long long)shape.groups,
              fused ? "bias_relu" : "plain", threads, g_ours, g_rsck, g_const, g_onednn, ratio.vs_onednn,
              ratio.rsck_vs_onednn, ratio.const_vs_onednn,
              onednn.implementation(), warning.c_str());
  return ratio;
}

std::string bench_conv_section(bool quick, const std::vector<int>& thread_counts, const Budget& budget) {
  std::printf("Convolutions (f32, NHWC, KRSC; polyfuse's CPU target, oneDNN convolution_forward with bias + relu "
              "post-ops when fused, its weights reordered once outside the timing; rsck: polyfuse with the filter "
              "stored RSCK; const: KRSC declared a constant input, packed on the first call and kept):\n");
  std::vector<ConvRatio> ratios;
  for (int threads : thread_counts)
    for (const ConvShape& shape : conv_shapes(quick, quick ? 1 : 2))
      for (bool fused : {false, true}) ratios.push_back(bench_conv(shape, fused, threads, budget));
  std::string summary;
  for (bool grouped : {false, true})
    for (int threads : thread_counts)
      for (bool fused : {false, true}) {
        std::vector<double> of, of_rsck, of_const;
        for (const ConvRatio& r : ratios)
          if (r.threads == threads && r.fused == fused && r.grouped == grouped) {
            of.push_back(r.vs_onednn);
            of_rsck.push_back(r.rsck_vs_onednn);
            of_const.push_back(r.const_vs_onednn);
          }
        if (of.empty()) continue;
        const std::string kind = std::string(grouped ? "_grouped" : "") + (fused ? "_bias_relu" : "");
        summary += fmt::format(" conv{}_vs_onednn_{}thr={:.2f}", kind, threads, geomean_of(of));
        summary += fmt::format(" conv_rsck{}_vs_onednn_{}thr={:.2f}", kind, threads, geomean_of(of_rsck));
        summary += fmt::format(" conv_const{}_vs_onednn_{}thr={:.2f}", kind, threads, geomean_of(of_const));
      }
  return summary;
}

}  // namespace polyfuse::bench
