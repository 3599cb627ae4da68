#include "baseline_onednn_conv.h"

#include <omp.h>

#include <dnnl.hpp>
#include <string>
#include <unordered_map>

namespace polyfuse::bench {

struct OnednnConv::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::memory::desc src, dst;
  dnnl::memory weights, bias;
  dnnl::convolution_forward primitive;
  int threads = 1;
  bool bias_relu = false;
  std::string implementation;  // a copy: the primitive descriptor owns its text
};

OnednnConv::OnednnConv(int threads, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t stride,
                       int64_t pad, bool bias_relu, const float* weights, const float* bias, int64_t groups)
    : state_(new State) {
  // the primitive splits its work for the threads of its creation (see the header)
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  using tag = dnnl::memory::format_tag;
  const auto f32 = dnnl::memory::data_type::f32;
  State& s = *state_;
  s.threads = threads;
  s.bias_relu = bias_relu;
  const int64_t p = (h + 2 * pad - r) / stride + 1, q = (w + 2 * pad - r) / stride + 1;
  s.src = dnnl::memory::desc({n, c, h, w}, f32, tag::nhwc);
  s.dst = dnnl::memory::desc({n, k, p, q}, f32, tag::nhwc);
  const dnnl::memory::dims weight_dims =
      groups == 1 ? dnnl::memory::dims{k, c, r, r} : dnnl::memory::dims{groups, k / groups, c / groups, r, r};
  const dnnl::memory::desc given(weight_dims, f32, groups == 1 ? tag::ohwi : tag::gohwi);
  const dnnl::memory::desc any(weight_dims, f32, tag::any);
  const dnnl::memory::desc bias_md({k}, f32, tag::x);
  dnnl::post_ops post_ops;
  if (bias_relu) post_ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(post_ops);
  const dnnl::convolution_forward::desc desc =
      bias_relu ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                                  s.src, any, bias_md, s.dst, {stride, stride}, {pad, pad}, {pad, pad})
                : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                                  s.src, any, s.dst, {stride, stride}, {pad, pad}, {pad, pad});
  const dnnl::convolution_forward::primitive_desc pd(desc, attr, s.engine);
  s.primitive = dnnl::convolution_forward(pd);
  s.implementation = pd.impl_info_str();
  // The weights into the primitive's layout, once.
  dnnl::stream stream(s.engine);
  dnnl::memory from(given, s.engine, const_cast<float*>(weights));
  s.weights = dnnl::memory(pd.weights_desc(), s.engine);
  dnnl::reorder(from, s.weights).execute(stream, from, s.weights);
  if (bias_relu) {
    s.bias = dnnl::memory(bias_md, s.engine);
    float* to = static_cast<float*>(s.bias.get_data_handle());
    for (int64_t i = 0; i < k; ++i) to[i] = bias[i];
  }
  stream.wait();
  omp_set_num_threads(before);
}

OnednnConv::~OnednnConv() = default;

const char* OnednnConv::implementation() const { return state_->implementation.c_str(); }

void OnednnConv::operator()(const float* src, float* dst) const {
  const State& s = *state_;
  const int before = omp_get_max_threads();
  omp_set_num_threads(s.threads);  // oneDNN's OpenMP runtime uses the calling thread's setting
  dnnl::stream stream(s.engine);
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(s.src, s.engine, const_cast<float*>(src))},
                                                {DNNL_ARG_WEIGHTS, s.weights},
                                                {DNNL_ARG_DST, dnnl::memory(s.dst, s.engine, dst)}};
  if (s.bias_relu) args.emplace(DNNL_ARG_BIAS, s.bias);
  s.primitive.execute(stream, args);
  stream.wait();
  omp_set_num_threads(before);
}

}  // namespace polyfuse::bench
