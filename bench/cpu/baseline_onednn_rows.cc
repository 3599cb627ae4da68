#include "baseline_onednn_rows.h"

#include <omp.h>

#include <dnnl.hpp>
#include <vector>

namespace polyfuse::bench {

const char* to_string(RowOperation operation) {
  switch (operation) {
    case RowOperation::softmax: return "softmax";
    case RowOperation::layernorm: return "layernorm";
  }
  return "?";
}

struct OnednnRows::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::memory::desc data, vector, mean, variance;
  dnnl::primitive primitive;
  RowOperation operation = RowOperation::softmax;
  mutable std::vector<float> statistics;  // the mean and variance a layer norm may write
};

OnednnRows::OnednnRows(int64_t m, int64_t n, RowOperation operation) : state_(new State) {
  using tag = dnnl::memory::format_tag;
  const auto f32 = dnnl::memory::data_type::f32;
  State& s = *state_;
  s.operation = operation;
  s.data = dnnl::memory::desc({m, n}, f32, tag::ab);
  s.vector = dnnl::memory::desc({n}, f32, tag::a);
  if (operation == RowOperation::softmax) {
    const dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, s.data, 1);
    s.primitive = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(desc, s.engine));
    return;
  }
  const dnnl::layer_normalization_forward::desc desc(
      dnnl::prop_kind::forward_inference, s.data, 1e-5f,
      dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
  const dnnl::layer_normalization_forward::primitive_desc pd(desc, s.engine);
  s.mean = pd.mean_desc(), s.variance = pd.variance_desc();
  s.statistics.resize((s.mean.get_size() + s.variance.get_size()) / sizeof(float) + 1);
  s.primitive = dnnl::layer_normalization_forward(pd);
}

OnednnRows::~OnednnRows() = default;

void OnednnRows::operator()(int threads, const float* x, const float* gamma, const float* beta, float* y) const {
  const State& s = *state_;
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);  // oneDNN's OpenMP runtime uses the calling thread's setting
  dnnl::stream stream(s.engine);
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(s.data, s.engine, const_cast<float*>(x))},
                                                {DNNL_ARG_DST, dnnl::memory(s.data, s.engine, y)}};
  if (s.operation == RowOperation::layernorm) {
    args.emplace(DNNL_ARG_SCALE, dnnl::memory(s.vector, s.engine, const_cast<float*>(gamma)));
    args.emplace(DNNL_ARG_SHIFT, dnnl::memory(s.vector, s.engine, const_cast<float*>(beta)));
    if (s.mean.get_size() > 0) {
      float* statistics = s.statistics.data();
      args.emplace(DNNL_ARG_MEAN, dnnl::memory(s.mean, s.engine, statistics));
      args.emplace(DNNL_ARG_VARIANCE, dnnl::memory(s.variance, s.engine, statistics + s.mean.get_size() / sizeof(float)));
    }
  }
  s.primitive.execute(stream, args);
  stream.wait();
  omp_set_num_threads(before);
}

}  // namespace polyfuse::bench
