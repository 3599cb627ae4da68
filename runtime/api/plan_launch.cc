#include "runtime/api/plan_launch.h"

#include <chrono>

#include "polyfuse/device.h"
#include "polyfuse/errors.h"

namespace polyfuse::api {
namespace {

// `total` with `more`'s counters added and its buffers appended.
void add_stats(LaunchStats& total, const LaunchStats& more) {
  total.emulated = total.emulated || more.emulated;
  for (const auto& [name, value] : more.counters) {
    bool found = false;
    for (auto& [total_name, total_value] : total.counters)
      if (total_name == name) {
        total_value += value;
        found = true;
      }
    if (!found) total.counters.emplace_back(name, value);
  }
  total.buffers.insert(total.buffers.end(), more.buffers.begin(), more.buffers.end());
}

// The arguments of `kernel`: `pointer(name)` and the bytes of each tensor parameter.
template <class PointerOf>
std::vector<Arg> kernel_arguments(const CompiledKernel& kernel, PointerOf pointer) {
  std::vector<Arg> args;
  for (const ParameterInfo& p : kernel.info().parameters) {
    if (p.kind == ParameterInfo::Kind::size) throw Error("polyfuse: a plan's kernel takes size " + p.name + " (plans bind every size)");
    const auto [data, bytes] = pointer(p.name);
    args.push_back(Arg::buffer(data, bytes));
  }
  return args;
}

}  // namespace

PlanLaunchResult launch_plan(const std::vector<CompiledKernel>& kernels, const ProgramPlan& plan, Backend backend,
                             EncodedTensors& tensors, int repeats) {
  PlanLaunchResult result;
  if (backend == Backend::emu) {
    std::vector<unsigned char> workspace(static_cast<std::size_t>(plan.workspace_bytes));
    const auto pointer = [&](const std::string& name) -> std::pair<void*, std::size_t> {
      if (const PlanTemporary* t = plan.find_temporary(name))
        return {workspace.data() + t->offset, static_cast<std::size_t>(t->bytes)};
      std::vector<unsigned char>& bytes = tensors.at(name);
      return {bytes.data(), bytes.size()};
    };
    for (const CompiledKernel& kernel : kernels) add_stats(result.stats, kernel.run_on_host(kernel_arguments(kernel, pointer)));
    return result;
  }
  std::map<std::string, DeviceBuffer> device;
  for (auto& [name, bytes] : tensors) {
    device.emplace(name, DeviceBuffer(bytes.size()));
    device.at(name).upload(bytes.data(), bytes.size());
  }
  DeviceBuffer workspace(static_cast<std::size_t>(std::max<std::int64_t>(plan.workspace_bytes, 1)));
  const auto pointer = [&](const std::string& name) -> std::pair<void*, std::size_t> {
    if (const PlanTemporary* t = plan.find_temporary(name))
      return {static_cast<unsigned char*>(workspace.data()) + t->offset, static_cast<std::size_t>(t->bytes)};
    const DeviceBuffer& buffer = device.at(name);
    return {buffer.data(), buffer.bytes()};
  };
  std::vector<std::vector<Arg>> arguments;
  for (const CompiledKernel& kernel : kernels) arguments.push_back(kernel_arguments(kernel, pointer));
  const auto run_all = [&] {
    for (std::size_t k = 0; k < kernels.size(); ++k) kernels[k].launch(arguments[k]);
    synchronize();
  };
  run_all();  // warm-up, and the results copied back
  for (auto& [name, bytes] : tensors) device.at(name).download(bytes.data(), bytes.size());
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run_all();
    result.times_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return result;
}

}  // namespace polyfuse::api
