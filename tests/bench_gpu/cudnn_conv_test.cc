// cuDNN's convolution descriptors as polyfuse-bench sets them (bench/gpu/baselines_cudnn_conv.h),
// read back from cuDNN without a device: for every layer of a run, cuDNN's output size is
// the layer's (P, Q from stride and padding), the tensors are NHWC, the filter KRSC, the
// mode cross-correlation (polyfuse's definition; CUDNN_CONVOLUTION would flip the filter)
// with f32 compute, the grouped layers' group count and K x C / G filter. Skips when
// polyfuse-bench was built without cuDNN.
#include <gtest/gtest.h>

#include "bench/gpu/baselines_cudnn.h"
#include "bench/gpu/baselines_cudnn_conv.h"
#include "bench/gpu/conv_idioms.h"

namespace polyfuse::bench {
namespace {

TEST(BenchCudnnConv, DescriptorsAreTheLayers) {
  if (cudnn_version() == "not built") GTEST_SKIP() << "polyfuse-bench was built without cuDNN";
  std::vector<ConvShape> layers = conv_layers(false, 32);
  layers.push_back({"1x1 s2", 4, 15, 9, 24, 40, 1, 2, 0});
  for (const ConvShape& shape : layers) {
    for (DType dtype : all_dtypes()) {
      SCOPED_TRACE(shape.name + " " + to_string(dtype));
      const ConvDescriptorFacts facts = CudnnConv(shape, dtype).facts();
      EXPECT_EQ(facts.output, (std::array<int, 4>{static_cast<int>(shape.n), static_cast<int>(shape.k),
                                                  static_cast<int>(shape.p()), static_cast<int>(shape.q())}));
      const int k = static_cast<int>(shape.k), c = static_cast<int>(shape.c);
      const int pq = static_cast<int>(shape.p() * shape.q()), hw = static_cast<int>(shape.h * shape.w);
      // NHWC: strides (n, c, h, w) = (P Q K, 1, Q K, K)
      EXPECT_EQ(facts.output_strides, (std::array<int, 4>{pq * k, 1, static_cast<int>(shape.q()) * k, k}));
      EXPECT_EQ(facts.input_strides, (std::array<int, 4>{hw * c, 1, static_cast<int>(shape.w) * c, c}));
      const int pad = static_cast<int>(shape.pad), stride = static_cast<int>(shape.stride);
      EXPECT_EQ(facts.convolution, (std::array<int, 6>{pad, pad, stride, stride, 1, 1}));
      EXPECT_TRUE(facts.cross_correlation);
      EXPECT_TRUE(facts.f32_compute);
      EXPECT_TRUE(facts.nhwc_filter);
      EXPECT_EQ(facts.filter, (std::array<int, 4>{k, c / static_cast<int>(shape.groups), static_cast<int>(shape.r),
                                                  static_cast<int>(shape.r)}));
      EXPECT_EQ(facts.groups, static_cast<int>(shape.groups));
    }
  }
}

}  // namespace
}  // namespace polyfuse::bench
