#include "bench/gpu/baselines_cudnn_conv.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "bench/gpu/cuda_util.h"

#if POLYFUSE_BENCH_HAVE_CUDNN
#include "bench/gpu/cudnn_status.h"
#endif

namespace polyfuse::bench {

#if POLYFUSE_BENCH_HAVE_CUDNN
namespace {

// The workspace the search may use: algorithms that need more are left out of it.
constexpr std::size_t max_workspace_bytes = std::size_t(1) << 30;

std::string algorithm_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return fmt::format("algorithm {}", static_cast<int>(algo));
  }
}

std::string describe(const cudnnConvolutionFwdAlgoPerf_t& perf) {
  return fmt::format("{}, {}, {} B workspace", algorithm_name(perf.algo),
                     perf.mathType == CUDNN_DEFAULT_MATH ? "default math" : "tensor ops", perf.memory);
}

}  // namespace

struct CudnnConv::Impl {
  ConvShape shape;
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t input = nullptr;   // N, C, H, W in NHWC order
  cudnnTensorDescriptor_t output = nullptr;  // N, K, P, Q in NHWC order
  cudnnTensorDescriptor_t bias = nullptr;    // 1, K, 1, 1
  cudnnFilterDescriptor_t filter = nullptr;  // K, C, R, S in NHWC order: KRSC
  cudnnConvolutionDescriptor_t convolution = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> found;  // succeeded, fastest first
  int measured = 0;                                  // algorithms the search returned
  int fused = -1;                                    // index into found for the fused call
  DeviceMemory workspace;

  const cudnnConvolutionFwdAlgoPerf_t& best() const {
    if (found.empty()) throw BenchError("CudnnConv: find_algorithm was not called or found nothing");
    return found.front();
  }
};

CudnnConv::CudnnConv(const ConvShape& shape, DType dtype) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.shape = shape;
  const cudnnDataType_t type = cudnn_data_type(dtype);
  auto i = [](std::int64_t value) { return static_cast<int>(value); };
  check_cudnn(cudnnCreateTensorDescriptor(&d.input), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateTensorDescriptor(&d.output), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateTensorDescriptor(&d.bias), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateFilterDescriptor(&d.filter), "cudnnCreateFilterDescriptor");
  check_cudnn(cudnnCreateConvolutionDescriptor(&d.convolution), "cudnnCreateConvolutionDescriptor");
  check_cudnn(cudnnCreateActivationDescriptor(&d.relu), "cudnnCreateActivationDescriptor");
  check_cudnn(cudnnSetTensor4dDescriptor(d.input, CUDNN_TENSOR_NHWC, type, i(shape.n), i(shape.c), i(shape.h),
                                         i(shape.w)),
              "cudnnSetTensor4dDescriptor (input)");
  check_cudnn(cudnnSetTensor4dDescriptor(d.output, CUDNN_TENSOR_NHWC, type, i(shape.n), i(shape.k), i(shape.p()),
                                         i(shape.q())),
              "cudnnSetTensor4dDescriptor (output)");
  check_cudnn(cudnnSetTensor4dDescriptor(d.bias, CUDNN_TENSOR_NHWC, type, 1, i(shape.k), 1, 1),
              "cudnnSetTensor4dDescriptor (bias)");
  check_cudnn(cudnnSetFilter4dDescriptor(d.filter, type, CUDNN_TENSOR_NHWC, i(shape.k), i(shape.c / shape.groups),
                                         i(shape.r), i(shape.r)),
              "cudnnSetFilter4dDescriptor");
  check_cudnn(cudnnSetConvolution2dDescriptor(d.convolution, i(shape.pad), i(shape.pad), i(shape.stride),
                                              i(shape.stride), 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  check_cudnn(cudnnSetConvolutionGroupCount(d.convolution, i(shape.groups)), "cudnnSetConvolutionGroupCount");
  check_cudnn(cudnnSetConvolutionMathType(d.convolution, CUDNN_TENSOR_OP_MATH), "cudnnSetConvolutionMathType");
  check_cudnn(cudnnSetActivationDescriptor(d.relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
              "cudnnSetActivationDescriptor");
}

CudnnConv::~CudnnConv() {
  Impl& d = *impl_;
  if (d.relu) cudnnDestroyActivationDescriptor(d.relu);
  if (d.convolution) cudnnDestroyConvolutionDescriptor(d.convolution);
  if (d.filter) cudnnDestroyFilterDescriptor(d.filter);
  if (d.bias) cudnnDestroyTensorDescriptor(d.bias);
  if (d.output) cudnnDestroyTensorDescriptor(d.output);
  if (d.input) cudnnDestroyTensorDescriptor(d.input);
  if (d.handle) cudnnDestroy(d.handle);
}

ConvDescriptorFacts CudnnConv::facts() const {
  const Impl& d = *impl_;
  ConvDescriptorFacts facts;
  auto& o = facts.output;
  check_cudnn(cudnnGetConvolution2dForwardOutputDim(d.convolution, d.input, d.filter, &o[0], &o[1], &o[2], &o[3]),
              "cudnnGetConvolution2dForwardOutputDim");
  cudnnDataType_t type{};
  int dims[4];
  auto& os = facts.output_strides;
  check_cudnn(cudnnGetTensor4dDescriptor(d.output, &type, &dims[0], &dims[1], &dims[2], &dims[3], &os[0], &os[1],
                                         &os[2], &os[3]),
              "cudnnGetTensor4dDescriptor");
  auto& is = facts.input_strides;
  check_cudnn(cudnnGetTensor4dDescriptor(d.input, &type, &dims[0], &dims[1], &dims[2], &dims[3], &is[0], &is[1],
                                         &is[2], &is[3]),
              "cudnnGetTensor4dDescriptor");
  auto& c = facts.convolution;
  cudnnConvolutionMode_t mode{};
  cudnnDataType_t compute{};
  check_cudnn(cudnnGetConvolution2dDescriptor(d.convolution, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &mode, &compute),
              "cudnnGetConvolution2dDescriptor");
  facts.cross_correlation = mode == CUDNN_CROSS_CORRELATION;
  facts.f32_compute = compute == CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format{};
  auto& f = facts.filter;
  check_cudnn(cudnnGetFilter4dDescriptor(d.filter, &type, &format, &f[0], &f[1], &f[2], &f[3]),
              "cudnnGetFilter4dDescriptor");
  facts.nhwc_filter = format == CUDNN_TENSOR_NHWC;
  check_cudnn(cudnnGetConvolutionGroupCount(d.convolution, &facts.groups), "cudnnGetConvolutionGroupCount");
  return facts;
}

void CudnnConv::find_algorithm(const void* input, const void* filter, void* output) {
  Impl& d = *impl_;
  if (!d.handle) check_cudnn(cudnnCreate(&d.handle), "cudnnCreate");
  // The search's workspace: the largest any algorithm asks for, up to max_workspace_bytes.
  std::size_t bytes = 0;
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    std::size_t need = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(d.handle, d.input, d.filter, d.convolution, d.output,
                                                static_cast<cudnnConvolutionFwdAlgo_t>(a), &need) ==
            CUDNN_STATUS_SUCCESS &&
        need <= max_workspace_bytes)
      bytes = std::max(bytes, need);
  }
  d.workspace = DeviceMemory(std::max<std::size_t>(bytes, 256));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  int returned = 0;
  check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(d.handle, d.input, input, d.filter, filter, d.convolution,
                                                     d.output, output, static_cast<int>(perf.size()), &returned,
                                                     perf.data(), d.workspace.data(), d.workspace.bytes()),
              "cudnnFindConvolutionForwardAlgorithmEx");
  d.measured = returned;
  d.found.clear();
  for (int a = 0; a < returned; ++a)  // cuDNN returns them fastest first
    if (perf[static_cast<size_t>(a)].status == CUDNN_STATUS_SUCCESS) d.found.push_back(perf[static_cast<size_t>(a)]);
  if (d.found.empty())
    throw Unsupported(fmt::format("cudnnFindConvolutionForwardAlgorithmEx: none of {} algorithms ran", returned));
  d.fused = -1;
}

std::string CudnnConv::algorithm() const {
  if (impl_->found.empty()) return "";
  return fmt::format("{} (fastest of {} measured)", describe(impl_->found.front()), impl_->measured);
}

void CudnnConv::forward(cudaStream_t stream, const void* input, const void* filter, void* output) {
  Impl& d = *impl_;
  const cudnnConvolutionFwdAlgoPerf_t& best = d.best();
  check_cudnn(cudnnSetStream(d.handle, stream), "cudnnSetStream");
  check_cudnn(cudnnSetConvolutionMathType(d.convolution, best.mathType), "cudnnSetConvolutionMathType");
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnConvolutionForward(d.handle, &one, d.input, input, d.filter, filter, d.convolution, best.algo,
                                      d.workspace.data(), d.workspace.bytes(), &zero, d.output, output),
              "cudnnConvolutionForward");
}

void CudnnConv::forward_fused(cudaStream_t stream, const void* input, const void* filter, const void* bias,
                              const void* residual, void* output) {
  Impl& d = *impl_;
  d.best();
  check_cudnn(cudnnSetStream(d.handle, stream), "cudnnSetStream");
  const float one = 1.0f, zero = 0.0f;
  auto call = [&](const cudnnConvolutionFwdAlgoPerf_t& perf) {
    check_cudnn(cudnnSetConvolutionMathType(d.convolution, perf.mathType), "cudnnSetConvolutionMathType");
    return cudnnConvolutionBiasActivationForward(d.handle, &one, d.input, input, d.filter, filter, d.convolution,
                                                 perf.algo, d.workspace.data(), d.workspace.bytes(),
                                                 residual ? &one : &zero, d.output, residual ? residual : output,
                                                 d.bias, bias, d.relu, d.output, output);
  };
  if (d.fused >= 0) {
    check_cudnn(call(d.found[static_cast<size_t>(d.fused)]), "cudnnConvolutionBiasActivationForward");
    return;
  }
  std::string refused;
  for (size_t a = 0; a < d.found.size(); ++a) {
    const cudnnStatus_t status = call(d.found[a]);
    if (status == CUDNN_STATUS_SUCCESS) {
      d.fused = static_cast<int>(a);
      return;
    }
    refused += fmt::format("{}{}: {}", refused.empty() ? "" : "; ", algorithm_name(d.found[a].algo),
                           cudnnGetErrorString(status));
  }
  throw Unsupported("cudnnConvolutionBiasActivationForward accepts none of the algorithms found (" + refused + ")");
}

std::string CudnnConv::fused_algorithm() const {
  if (impl_->fused < 0) return "";
  return describe(impl_->found[static_cast<size_t>(impl_->fused)]);
}

#else  // !POLYFUSE_BENCH_HAVE_CUDNN

struct CudnnConv::Impl {};
CudnnConv::CudnnConv(const ConvShape&, DType) { throw Unsupported("polyfuse-bench was built without cuDNN"); }
CudnnConv::~CudnnConv() = default;
ConvDescriptorFacts CudnnConv::facts() const { return {}; }
void CudnnConv::find_algorithm(const void*, const void*, void*) {}
std::string CudnnConv::algorithm() const { return ""; }
void CudnnConv::forward(cudaStream_t, const void*, const void*, void*) {}
void CudnnConv::forward_fused(cudaStream_t, const void*, const void*, const void*, const void*, void*) {}
std::string CudnnConv::fused_algorithm() const { return ""; }

#endif

}  // namespace polyfuse::bench
