#include "baseline_onednn.h"

#include <omp.h>

#include <dnnl.hpp>

namespace polyfuse::bench {

const char* to_string(FusedEpilogue epilogue) {
  switch (epilogue) {
    case FusedEpilogue::bias_relu: return "bias_relu";
    case FusedEpilogue::bias_gelu: return "bias_gelu";
    case FusedEpilogue::residual: return "residual";
    case FusedEpilogue::none: return "none";
    case FusedEpilogue::bias: return "bias";
  }
  return "?";
}

struct OnednnMatmul::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::memory::desc a, b, bias, d;
  dnnl::matmul primitive;
  FusedEpilogue epilogue;
};

OnednnMatmul::OnednnMatmul(int64_t m, int64_t n, int64_t k, FusedEpilogue epilogue, int64_t batch)
    : state_(new State) {
  using tag = dnnl::memory::format_tag;
  const auto f32 = dnnl::memory::data_type::f32;
  State& s = *state_;
  s.epilogue = epilogue;
  if (batch > 1) {
    s.a = dnnl::memory::desc({batch, m, k}, f32, tag::abc);
    s.b = dnnl::memory::desc({batch, k, n}, f32, tag::abc);
    s.bias = dnnl::memory::desc({1, 1, n}, f32, tag::abc);
    s.d = dnnl::memory::desc({batch, m, n}, f32, tag::abc);
  } else {
    s.a = dnnl::memory::desc({m, k}, f32, tag::ab);
    s.b = dnnl::memory::desc({k, n}, f32, tag::ab);
    s.bias = dnnl::memory::desc({1, n}, f32, tag::ab);
    s.d = dnnl::memory::desc({m, n}, f32, tag::ab);
  }
  dnnl::post_ops post_ops;
  if (epilogue == FusedEpilogue::bias_relu) post_ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (epilogue == FusedEpilogue::bias_gelu) post_ops.append_eltwise(1.f, dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
  if (epilogue == FusedEpilogue::residual) post_ops.append_sum(1.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(post_ops);
  const bool bias = epilogue == FusedEpilogue::bias_relu || epilogue == FusedEpilogue::bias_gelu ||
                    epilogue == FusedEpilogue::bias;
  const dnnl::matmul::desc desc = bias ? dnnl::matmul::desc(s.a, s.b, s.bias, s.d) : dnnl::matmul::desc(s.a, s.b, s.d);
  s.primitive = dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, s.engine));
}

OnednnMatmul::~OnednnMatmul() = default;

void OnednnMatmul::operator()(int threads, const float* a, const float* b, const float* bias, float* d) const {
  const State& s = *state_;
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);  // oneDNN's OpenMP runtime uses the calling thread's setting
  dnnl::stream stream(s.engine);
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, dnnl::memory(s.a, s.engine, const_cast<float*>(a))},
      {DNNL_ARG_WEIGHTS, dnnl::memory(s.b, s.engine, const_cast<float*>(b))},
      {DNNL_ARG_DST, dnnl::memory(s.d, s.engine, d)}};
  if (s.epilogue == FusedEpilogue::bias_relu || s.epilogue == FusedEpilogue::bias_gelu ||
      s.epilogue == FusedEpilogue::bias)
    args.emplace(DNNL_ARG_BIAS, dnnl::memory(s.bias, s.engine, const_cast<float*>(bias)));
  s.primitive.execute(stream, args);
  stream.wait();
  omp_set_num_threads(before);
}

}  // namespace polyfuse::bench
