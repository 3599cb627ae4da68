#include "bench/gpu/baselines_cudnn.h"

#include "bench/gpu/cuda_util.h"

#if POLYFUSE_BENCH_HAVE_CUDNN
#include "bench/gpu/cudnn_status.h"
#endif

namespace polyfuse::bench {

#if POLYFUSE_BENCH_HAVE_CUDNN

void check_cudnn(cudnnStatus_t status, const char* call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const std::string message = std::string(call) + ": " + cudnnGetErrorString(status);
  // cuDNN 9 groups its codes by thousands: 3xxx are the NOT_SUPPORTED family.
  if (static_cast<int>(status) / 1000 == static_cast<int>(CUDNN_STATUS_NOT_SUPPORTED) / 1000 ||
      status == CUDNN_STATUS_BAD_PARAM)
    throw Unsupported(message);
  throw BenchError(message);
}

cudnnDataType_t cudnn_data_type(DType dtype) { return dtype == DType::f16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16; }

struct Cudnn::Impl {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t matrix = nullptr;  // (rows, columns, 1, 1)
  cudnnTensorDescriptor_t row = nullptr;     // (1, columns, 1, 1)
  cudnnActivationDescriptor_t activation = nullptr;
  cudnnOpTensorDescriptor_t add = nullptr;
  cudnnOpTensorDescriptor_t mul = nullptr;

  void set_matrix(DType dtype, std::int64_t rows, std::int64_t columns) {
    check_cudnn(cudnnSetTensor4dDescriptor(matrix, CUDNN_TENSOR_NCHW, cudnn_data_type(dtype), static_cast<int>(rows),
                                           static_cast<int>(columns), 1, 1),
                "cudnnSetTensor4dDescriptor");
  }

  // out = x op y elementwise over a rows x columns matrix.
  void op_tensor(cudnnOpTensorDescriptor_t op, cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns,
                 const void* x, const void* y, void* out) {
    check_cudnn(cudnnSetStream(handle, stream), "cudnnSetStream");
    set_matrix(dtype, rows, columns);
    const float one = 1.0f, zero = 0.0f;
    check_cudnn(cudnnOpTensor(handle, op, &one, matrix, x, &one, matrix, y, &zero, matrix, out), "cudnnOpTensor");
  }
};

std::string cudnn_version() {
  const size_t version = cudnnGetVersion();  // major * 10000 + minor * 100 + patch (cuDNN 9)
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

Cudnn::Cudnn() : impl_(new Impl) {
  check_cudnn(cudnnCreate(&impl_->handle), "cudnnCreate");
  check_cudnn(cudnnCreateTensorDescriptor(&impl_->matrix), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateTensorDescriptor(&impl_->row), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateActivationDescriptor(&impl_->activation), "cudnnCreateActivationDescriptor");
  check_cudnn(cudnnCreateOpTensorDescriptor(&impl_->add), "cudnnCreateOpTensorDescriptor");
  check_cudnn(cudnnSetOpTensorDescriptor(impl_->add, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN),
              "cudnnSetOpTensorDescriptor");
  check_cudnn(cudnnCreateOpTensorDescriptor(&impl_->mul), "cudnnCreateOpTensorDescriptor");
  check_cudnn(cudnnSetOpTensorDescriptor(impl_->mul, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN),
              "cudnnSetOpTensorDescriptor");
}

Cudnn::~Cudnn() {
  if (impl_->mul) cudnnDestroyOpTensorDescriptor(impl_->mul);
  if (impl_->add) cudnnDestroyOpTensorDescriptor(impl_->add);
  if (impl_->activation) cudnnDestroyActivationDescriptor(impl_->activation);
  if (impl_->row) cudnnDestroyTensorDescriptor(impl_->row);
  if (impl_->matrix) cudnnDestroyTensorDescriptor(impl_->matrix);
  if (impl_->handle) cudnnDestroy(impl_->handle);
  delete impl_;
}

void Cudnn::add_bias(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* bias,
                     void* d) {
  check_cudnn(cudnnSetStream(impl_->handle, stream), "cudnnSetStream");
  impl_->set_matrix(dtype, rows, columns);
  check_cudnn(cudnnSetTensor4dDescriptor(impl_->row, CUDNN_TENSOR_NCHW, cudnn_data_type(dtype), 1,
                                         static_cast<int>(columns), 1, 1),
              "cudnnSetTensor4dDescriptor");
  const float one = 1.0f;
  check_cudnn(cudnnAddTensor(impl_->handle, &one, impl_->row, bias, &one, impl_->matrix, d), "cudnnAddTensor");
}

void Cudnn::activation(cudaStream_t stream, DType dtype, Activation activation, std::int64_t rows,
                       std::int64_t columns, const void* in, void* out) {
  check_cudnn(cudnnSetStream(impl_->handle, stream), "cudnnSetStream");
  impl_->set_matrix(dtype, rows, columns);
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_IDENTITY;
  if (activation == Activation::relu) mode = CUDNN_ACTIVATION_RELU;
  else if (activation == Activation::tanh) mode = CUDNN_ACTIVATION_TANH;
  else throw Unsupported("cudnnActivationForward: no " + to_string(activation) + " activation in cuDNN");
  check_cudnn(cudnnSetActivationDescriptor(impl_->activation, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0),
              "cudnnSetActivationDescriptor");
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnActivationForward(impl_->handle, impl_->activation, &one, impl_->matrix, in, &zero, impl_->matrix,
                                     out),
              "cudnnActivationForward");
}

void Cudnn::add(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* x,
                const void* y, void* out) {
  impl_->op_tensor(impl_->add, stream, dtype, rows, columns, x, y, out);
}

void Cudnn::multiply(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* x,
                     const void* y, void* out) {
  impl_->op_tensor(impl_->mul, stream, dtype, rows, columns, x, y, out);
}

void Cudnn::silu(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* in, void* out) {
  check_cudnn(cudnnSetStream(impl_->handle, stream), "cudnnSetStream");
  impl_->set_matrix(dtype, rows, columns);
  check_cudnn(cudnnSetActivationDescriptor(impl_->activation, CUDNN_ACTIVATION_SWISH, CUDNN_NOT_PROPAGATE_NAN, 0.0),
              "cudnnSetActivationDescriptor");
  check_cudnn(cudnnSetActivationDescriptorSwishBeta(impl_->activation, 1.0), "cudnnSetActivationDescriptorSwishBeta");
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnActivationForward(impl_->handle, impl_->activation, &one, impl_->matrix, in, &zero, impl_->matrix,
                                     out),
              "cudnnActivationForward");
}

void Cudnn::softmax(cudaStream_t stream, DType dtype, std::int64_t rows, std::int64_t columns, const void* in,
                    void* out) {
  check_cudnn(cudnnSetStream(impl_->handle, stream), "cudnnSetStream");
  impl_->set_matrix(dtype, rows, columns);  // (N = rows, C = columns, 1, 1): one instance per row
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnSoftmaxForward(impl_->handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one,
                                  impl_->matrix, in, &zero, impl_->matrix, out),
              "cudnnSoftmaxForward");
}

#else  // !POLYFUSE_BENCH_HAVE_CUDNN

namespace {
[[noreturn]] void not_built() { throw Unsupported("polyfuse-bench was built without cuDNN"); }
}  // namespace

struct Cudnn::Impl {};
std::string cudnn_version() { return "not built"; }
Cudnn::Cudnn() { not_built(); }
Cudnn::~Cudnn() = default;
void Cudnn::add_bias(cudaStream_t, DType, std::int64_t, std::int64_t, const void*, void*) { not_built(); }
void Cudnn::activation(cudaStream_t, DType, Activation, std::int64_t, std::int64_t, const void*, void*) { not_built(); }
void Cudnn::add(cudaStream_t, DType, std::int64_t, std::int64_t, const void*, const void*, void*) { not_built(); }
void Cudnn::multiply(cudaStream_t, DType, std::int64_t, std::int64_t, const void*, const void*, void*) { not_built(); }
void Cudnn::silu(cudaStream_t, DType, std::int64_t, std::int64_t, const void*, void*) { not_built(); }
void Cudnn::softmax(cudaStream_t, DType, std::int64_t, std::int64_t, const void*, void*) { not_built(); }

#endif

}  // namespace polyfuse::bench
