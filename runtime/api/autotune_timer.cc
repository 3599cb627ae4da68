#include "runtime/api/autotune_timer.h"

#include <algorithm>
#include <vector>

#include "codegen/cuda_emitter.h"
#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "runtime/reference/element_rounding.h"
#include "schedule/gpu_options.h"

#if POLYFUSE_HAVE_CUDA
#include "runtime/cuda/driver.h"
#endif

namespace polyfuse::api {
namespace {

#if POLYFUSE_HAVE_CUDA
// Two events of the current context, destroyed with it.
class EventPair {
 public:
  explicit EventPair(const cuda::DriverApi& api) : api_(api) {
    cuda::check(api_.event_create(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    cuda::check(api_.event_create(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
  }
  ~EventPair() {
    api_.event_destroy(start_);
    api_.event_destroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  // Milliseconds between the events recorded around `body`'s launches on the default stream.
  template <class F> double time(F&& body) {
    cuda::check(api_.event_record(start_, nullptr), "cuEventRecord");
    body();
    cuda::check(api_.event_record(stop_, nullptr), "cuEventRecord");
    cuda::check(api_.event_synchronize(stop_), "cuEventSynchronize");
    float ms = 0;
    cuda::check(api_.event_elapsed_time(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }

 private:
  const cuda::DriverApi& api_;
  CUevent start_ = nullptr, stop_ = nullptr;
};
#endif

class GpuTimer final : public CandidateTimer {
 public:
  GpuTimer(int warmup, int repeats) : warmup_(warmup), repeats_(repeats) {}

  std::string unavailable(Arch arch) const override {
#if POLYFUSE_HAVE_CUDA
    if (!cuda_device_available()) return "no GPU";
    const cuda::DriverApi& api = cuda::require_driver();
    if (!api.event_create || !api.event_destroy || !api.event_record || !api.event_synchronize ||
        !api.event_elapsed_time)
      return "the CUDA driver has no event functions";
    // sm_90a code runs on compute capability 9.0 only; other targets' PTX is JIT-compiled by
    // the driver on newer GPUs (what a user of that arch would run there).
    const std::optional<int> cc = cuda::device_compute_capability();
    if (!cc || (arch == Arch::sm_90a ? *cc != 90 : *cc < compute_capability(arch)))
      return "the GPU is " + cuda_device_description() + ", the kernels are for " + to_string(arch);
    return "";
#else
    (void)arch;
    return "no GPU (built without the CUDA toolkit)";
#endif
  }

  std::string device() const override { return cuda_device_available() ? cuda_device_description() : "none"; }

  int sms() const override {
#if POLYFUSE_HAVE_CUDA
    if (cuda_device_available()) {
      cuda::ensure_context();
      return static_cast<int>(cuda::current_device_sms());
    }
#endif
    return 0;
  }

  CandidateRun run(const CompiledKernel& kernel, const Program& program, const reference::TensorData& inputs) override {
#if POLYFUSE_HAVE_CUDA
    const std::vector<KernelParameter> parameters = kernel_parameters(program);
    std::vector<std::vector<unsigned char>> storage;
    std::vector<DeviceBuffer> device;
    std::vector<Arg> args;
    for (const KernelParameter& p : parameters) {
      if (p.kind == KernelParameter::Kind::size) continue;
      storage.push_back(reference::encode_tensor(p.element, inputs.at(p.name)));
      device.emplace_back(storage.back().size());
      device.back().upload(storage.back().data(), storage.back().size());
      args.push_back(Arg(device.back().data()));
    }
    kernel.launch(args);
    synchronize();
    CandidateRun run;
    run.outputs = inputs;
    std::size_t t = 0;
    for (const KernelParameter& p : parameters) {
      if (p.kind == KernelParameter::Kind::size) continue;
      if (p.kind == KernelParameter::Kind::output) {
        device[t].download(storage[t].data(), storage[t].size());
        reference::decode_tensor(p.element, storage[t], run.outputs.at(p.name));
      }
      ++t;
    }
    for (int i = 0; i < warmup_; ++i) kernel.launch(args);
    synchronize();
    EventPair events(cuda::require_driver());
    std::vector<double> times;
    for (int i = 0; i < repeats_; ++i) times.push_back(events.time([&] { kernel.launch(args); }));
    std::sort(times.begin(), times.end());
    run.median_ms = times.empty() ? 0 : times[times.size() / 2];
    return run;
#else
    (void)kernel;
    (void)program;
    (void)inputs;
    throw NoDeviceError("no CUDA device: polyfuse was built without the CUDA toolkit");
#endif
  }

 private:
  int warmup_, repeats_;
};

}  // namespace

std::unique_ptr<CandidateTimer> gpu_timer(int warmup, int repeats) { return std::make_unique<GpuTimer>(warmup, repeats); }

}  // namespace polyfuse::api
