#include "bench/gpu/polyfuse_runner.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace polyfuse::bench {

CompileOptions compile_options(const TileConfig& config, const std::string& arch) {
  CompileOptions options;
  options.backend = Backend::cuda;
  options.arch = arch_from_string(arch);
  return config.applied_to(options);
}

namespace {

// The program of `job` with its sizes bound.
TensorProgram job_program(const CompileJob& job) {
  if (!job.idiom) {
    TensorProgram program = TensorProgram::parse(job.source, job.name + ".tc");
    for (const auto& size : job.bindings) program.bind(size.first, size.second);
    return program;
  }
  TensorProgram program = TensorProgram::parse(tc_source(*job.idiom, job.dtype), job.idiom->name + ".tc");
  program.bind("M", job.size.m).bind("N", job.size.n).bind("K", job.size.k);
  if (job.idiom->batched) program.bind("NB", job.size.batch);
  return program;
}

}  // namespace

CompiledKernel compile_autotuned(const CompileJob& job, std::string& config) {
  const TensorProgram program = job_program(job);
  const AutotuneReport report = program.autotune(compile_options(TileConfig{}, job.arch));
  config = report.winner + (report.timed ? " (timed)" : " (static)");
  return program.compile(report.chosen);
}

void compile_job(CompileJob& job) {
  try {
    job.kernel = job_program(job).compile(compile_options(job.config, job.arch));
  } catch (const Error& error) {
    std::string message = error.what();
    job.error = message.substr(0, message.find('\n'));
  }
}

void compile_jobs(std::vector<CompileJob>& jobs, int threads, const std::function<void(size_t, size_t)>& progress) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0}, done{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads && static_cast<size_t>(t) < jobs.size(); ++t) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < jobs.size(); i = next++) {
        compile_job(jobs[i]);
        ++done;
      }
    });
  }
  while (done.load() < jobs.size()) {
    if (progress) progress(done.load(), jobs.size());
    for (int i = 0; i < 10 && done.load() < jobs.size(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (std::thread& worker : workers) worker.join();
  if (progress) progress(jobs.size(), jobs.size());
}

void launch_polyfuse(const CompiledKernel& kernel, const std::function<void*(const std::string&)>& pointer,
                     void* stream) {
  std::vector<Arg> args;
  for (const ParameterInfo& parameter : kernel.info().parameters)
    if (parameter.kind != ParameterInfo::Kind::size) args.emplace_back(pointer(parameter.name));
  kernel.launch(args, stream);
}

}  // namespace polyfuse::bench
