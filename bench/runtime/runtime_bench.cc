// Per example program (examples/*.tc, sizes 1024 and batch 4):
//   frontend_to_cuda   parse, check, schedule and emit the CUDA source
//   nvrtc_compile      NVRTC from source to cubin (no cache)
//   cache_hit_memory   a lookup answered from this process's memory
//   cache_hit_disk     a lookup answered from disk (read + checksum + compare)
//   compile_warm       TensorProgram::compile with the cache warm (front end included)
//   launch_overhead    host time of one asynchronous launch (GPU only; skipped otherwise)
// Examples the code generator does not handle yet are reported as errors, not numbers.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "polyfuse/polyfuse.h"
#include "runtime/cuda/kernel_cache.h"
#include "runtime/cuda/nvrtc_compiler.h"

namespace {
namespace fs = std::filesystem;

polyfuse::TensorProgram load(const std::string& path) {
  auto program = polyfuse::TensorProgram::from_file(path);
  program.bind({{"M", 1024}, {"N", 1024}, {"K", 1024}, {"B", 4}, {"R", 4}});
  return program;
}

polyfuse::CompileOptions options_for_bench() {
  polyfuse::CompileOptions options;
  options.arch = polyfuse::default_arch();
  return options;
}

// The first line of an error, for the benchmark table.
std::string first_line(const std::exception& e) {
  const std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

fs::path bench_cache_dir() {
  static const fs::path dir = fs::temp_directory_path() / ("polyfuse-bench-runtime-" + std::to_string(getpid()));
  return dir;
}

void frontend_to_cuda(benchmark::State& state, const std::string& path) {
  try {
    const polyfuse::TensorProgram program = load(path);
    for (auto _ : state) benchmark::DoNotOptimize(program.cuda_source(options_for_bench()));
  } catch (const polyfuse::Error& e) {
    state.SkipWithError(first_line(e).c_str());
  }
}

void nvrtc_compile(benchmark::State& state, const std::string& path) {
  try {
    const std::string source = load(path).cuda_source(options_for_bench());
    polyfuse::cuda::NvrtcOptions nvrtc;
    nvrtc.arch = polyfuse::to_string(polyfuse::default_arch());
    for (auto _ : state) benchmark::DoNotOptimize(polyfuse::cuda::nvrtc_compile(source, nvrtc, "bench"));
  } catch (const polyfuse::Error& e) {
    state.SkipWithError(first_line(e).c_str());
  }
}

void cache_hit(benchmark::State& state, const std::string& path, bool from_disk) {
  try {
    const std::string source = load(path).cuda_source(options_for_bench());
    polyfuse::cuda::NvrtcOptions nvrtc;
    nvrtc.arch = polyfuse::to_string(polyfuse::default_arch());
    polyfuse::cuda::KernelCache warm({true, bench_cache_dir()});
    warm.compile(source, nvrtc, "bench");
    for (auto _ : state) {
      if (from_disk) {
        polyfuse::cuda::KernelCache cold({true, bench_cache_dir()});
        const auto hit = cold.compile(source, nvrtc, "bench");
        if (hit.outcome != polyfuse::cuda::CacheOutcome::disk_hit) state.SkipWithError("not a disk hit");
      } else {
        const auto hit = warm.compile(source, nvrtc, "bench");
        if (hit.outcome != polyfuse::cuda::CacheOutcome::memory_hit) state.SkipWithError("not a memory hit");
      }
    }
  } catch (const polyfuse::Error& e) {
    state.SkipWithError(first_line(e).c_str());
  }
}

void compile_warm(benchmark::State& state, const std::string& path) {
  try {
    const polyfuse::TensorProgram program = load(path);
    program.compile(options_for_bench());
    for (auto _ : state) benchmark::DoNotOptimize(program.compile(options_for_bench()));
  } catch (const polyfuse::Error& e) {
    state.SkipWithError(first_line(e).c_str());
  }
}

void launch_overhead(benchmark::State& state, const std::string& path) {
  if (!polyfuse::cuda_device_available()) {
    state.SkipWithError(("skipped: " + polyfuse::cuda_device_description().substr(0, 60)).c_str());
    return;
  }
  try {
    const polyfuse::CompiledKernel kernel = load(path).compile(options_for_bench());
    std::vector<polyfuse::DeviceBuffer> buffers;
    std::vector<polyfuse::Arg> args;
    for (const polyfuse::ParameterInfo& p : kernel.info().parameters) {
      if (p.kind == polyfuse::ParameterInfo::Kind::size) {
        args.emplace_back(1024);
        continue;
      }
      std::size_t elements = 1;
      for (const std::string& extent : p.shape) elements *= std::isdigit(static_cast<unsigned char>(extent[0])) ? std::stoull(extent) : 1024;
      buffers.emplace_back(elements * p.element_bytes);
      args.emplace_back(buffers.back().data());
    }
    kernel.launch(args);
    polyfuse::synchronize();
    int n = 0;
    for (auto _ : state) {
      kernel.launch(args);
      if (++n % 64 == 0) {  // keep the queue short; not timed
        state.PauseTiming();
        polyfuse::synchronize();
        state.ResumeTiming();
      }
    }
    polyfuse::synchronize();
  } catch (const polyfuse::Error& e) {
    state.SkipWithError(first_line(e).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> examples;
  for (const auto& entry : fs::directory_iterator(POLYFUSE_EXAMPLES_DIR))
    if (entry.path().extension() == ".tc") examples.push_back(entry.path());
  std::sort(examples.begin(), examples.end());
  for (const fs::path& p : examples) {
    const std::string name = p.stem().string(), path = p.string();
    benchmark::RegisterBenchmark(("frontend_to_cuda/" + name).c_str(), frontend_to_cuda, path)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("nvrtc_compile/" + name).c_str(), nvrtc_compile, path)
        ->Unit(benchmark::kMillisecond)->Iterations(3);
    benchmark::RegisterBenchmark(("cache_hit_memory/" + name).c_str(), cache_hit, path, false)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("cache_hit_disk/" + name).c_str(), cache_hit, path, true)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("compile_warm/" + name).c_str(), compile_warm, path)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("launch_overhead/" + name).c_str(), launch_overhead, path)->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  fs::remove_all(bench_cache_dir(), ec);
  return 0;
}
