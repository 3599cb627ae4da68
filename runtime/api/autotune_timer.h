// How the autotuner runs and times a candidate kernel: an interface, so that the selection,
// the wrong-result guard and the winner cache are tested with a fake timer on machines
// without a GPU; gpu_timer() is the real one (the CUDA driver's events).
#pragma once

#include <memory>
#include <string>

#include "frontend/program.h"
#include "polyfuse/compiled_kernel.h"
#include "runtime/reference/tensor_data.h"

namespace polyfuse::api {

// One candidate's run: its outputs (every tensor of the def, decoded) and its time.
struct CandidateRun {
  reference::TensorData outputs;
  double median_ms = 0;
};

class CandidateTimer {
 public:
  virtual ~CandidateTimer() = default;
  // "" when kernels for `arch` can be timed here, else why not ("no GPU", "the GPU is sm_80").
  virtual std::string unavailable(Arch arch) const = 0;
  // What the timings are for, in the winner cache's key: "NVIDIA H100 80GB HBM3 (sm_90)".
  virtual std::string device() const = 0;
  // SMs of the device (the static score's wave count).
  virtual int sms() const = 0;
  // Runs the cuda-backend `kernel` of `program` on `inputs` (every input tensor) once and
  // reads its outputs back, then times it: a warm-up, then the median of timed launches.
  virtual CandidateRun run(const CompiledKernel& kernel, const Program& program,
                           const reference::TensorData& inputs) = 0;
};

// The GPU's timer: `warmup` untimed launches, then the median of `repeats` launches each
// between two CUDA events on the default stream. Without a device, unavailable() says so.
std::unique_ptr<CandidateTimer> gpu_timer(int warmup = 3, int repeats = 10);

}  // namespace polyfuse::api
