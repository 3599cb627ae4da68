#include "bench/gpu/bench_run.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <future>
#include <iostream>

#include "bench/gpu/checks.h"
#include "bench/gpu/conv_run.h"
#include "bench/gpu/csv.h"
#include "bench/gpu/device_problem.h"
#include "bench/gpu/environment.h"
#include "bench/gpu/extra_kernels.h"
#include "bench/gpu/polyfuse_path.h"
#include "bench/gpu/polyfuse_runner.h"
#include "bench/gpu/summary.h"
#include "bench/gpu/timing.h"
#include "bench/gpu/variant_checks.h"
#include "bench/gpu/variants.h"

namespace polyfuse::bench {
namespace {

// The compile jobs of every problem of one size, in plan order.
std::vector<CompileJob> jobs_for(const BenchOptions& options, const std::vector<Problem>& problems,
                                 const std::string& arch) {
  std::vector<CompileJob> jobs;
  for (const Problem& problem : problems)
    for (const TileConfig& config : planned_configs(options, problem)) {
      CompileJob job;
      job.idiom = problem.idiom;
      job.dtype = problem.dtype;
      job.size = problem.size;
      job.config = config;
      job.arch = arch;
      jobs.push_back(std::move(job));
    }
  return jobs;
}

// The problems of each size, in plan order (plan_problems is size-major).
std::vector<std::vector<Problem>> size_groups(const std::vector<Problem>& problems) {
  std::vector<std::vector<Problem>> groups;
  for (const Problem& problem : problems) {
    if (groups.empty() || groups.back().front().size_index != problem.size_index) groups.emplace_back();
    groups.back().push_back(problem);
  }
  return groups;
}

// Checks then times every variant of `problem`; `jobs` are its compiled polyfuse kernels.
ResultRow measure_problem(const Problem& problem, const std::vector<const CompileJob*>& jobs, RunContext& context) {
  const Idiom& idiom = *problem.idiom;
  const ProblemSize& size = problem.size;
  ResultRow row;
  row.idiom = idiom.name;
  row.dtype = problem.dtype;
  row.size = size;

  const std::uint64_t seed = static_cast<std::uint64_t>(problem.size_index) + 1;
  const HostProblem host = make_host_problem(idiom, problem.dtype, size, seed);
  DeviceProblem device(idiom, host);
  const std::vector<std::int64_t> indices = check_indices(idiom, size, device.output_elements(), context.options.samples, seed);
  std::vector<float> expected;
  for (std::int64_t index : indices) expected.push_back(reference_element(idiom, problem.dtype, size, host, index));

  std::vector<std::string> notes;
  VariantChecks checks(
      device, context.stream, context.timer,
      [&](const std::vector<std::uint16_t>& bits) {
        return check_against_reference(idiom, problem.dtype, size, bits, indices, expected);
      },
      [&](const std::vector<std::uint16_t>& bits, const std::vector<std::uint16_t>& other) {
        return check_against_variant(idiom, problem.dtype, size, bits, other);
      });
  auto measure = [&](const std::string& name, const Enqueue& enqueue) { return checks.measure(name, enqueue); };

  for (Variant variant : baseline_variants()) {
    try {
      const Enqueue enqueue = make_baseline(variant, idiom, problem.dtype, size, device, context.libraries);
      const std::optional<double> time = measure(to_string(variant), enqueue);
      (variant == Variant::cublas_cudnn ? row.cublas_cudnn_ms : row.cublaslt_ms) = time;
    } catch (const Unsupported& why) {
      notes.push_back(to_string(variant) + " not measured: " + why.what());
    }
  }

  for (const CompileJob* job : jobs) {
    const std::string name = "polyfuse " + to_string(job->config);
    if (!job->kernel) {
      notes.push_back(name + " rejected by the compiler: " + job->error);
      continue;
    }
    const CompiledKernel& kernel = *job->kernel;
    const Enqueue enqueue = [&kernel, &device](cudaStream_t s) {
      launch_polyfuse(kernel, [&device](const std::string& tensor) { return device.pointer(tensor); }, s);
    };
    const std::optional<double> time = measure(name, enqueue);
    if (job->config.is_default()) row.polyfuse_default_ms = time;
    if (time && (!row.polyfuse_best_ms || *time < *row.polyfuse_best_ms)) {
      row.polyfuse_best_ms = time;
      row.polyfuse_best_config = to_string(job->config);
    }
  }
  if (context.options.autotune && !jobs.empty()) {
    try {
      const CompiledKernel autotuned = compile_autotuned(*jobs.front(), row.polyfuse_autotuned_config);
      row.polyfuse_autotuned_ms = measure("polyfuse autotuned", [&autotuned, &device](cudaStream_t s) {
        launch_polyfuse(autotuned, [&device](const std::string& tensor) { return device.pointer(tensor); }, s);
      });
    } catch (const Error& error) {
      const std::string message = error.what();
      notes.push_back("polyfuse autotuned not measured: " + message.substr(0, message.find('\n')));
    }
  }
  if (!fits(TileConfig{}, size)) notes.push_back("polyfuse default not measured: 128x128x32 does not divide the size");
  row.check = checks.failures().empty() ? "ok" : join_notes(checks.failures());
  row.notes = join_notes(notes);
  return row;
}

std::string time_text(std::optional<double> ms) { return ms ? fmt::format("{:.4f} ms", *ms) : "-"; }

// The progress line of one measured problem.
std::string progress_line(const Problem& problem, size_t sizes, const ResultRow& row) {
  std::string line = fmt::format("[{:>3}/{}] {:<18} {:<4} M={} N={} K={}{}:", problem.size_index + 1, sizes,
                                 row.idiom, to_string(row.dtype), row.size.m, row.size.n, row.size.k,
                                 problem.idiom->batched ? fmt::format(" batch={}", row.size.batch) : "");
  line += fmt::format(" cublas_cudnn {}, cublaslt {}, polyfuse_default {}, polyfuse_best {} ({})",
                      time_text(row.cublas_cudnn_ms), time_text(row.cublaslt_ms),
                      time_text(row.polyfuse_default_ms), time_text(row.polyfuse_best_ms),
                      row.polyfuse_best_config.empty() ? "-" : row.polyfuse_best_config);
  if (!row.polyfuse_autotuned_config.empty())
    line += fmt::format(", polyfuse_autotuned {} ({})", time_text(row.polyfuse_autotuned_ms), row.polyfuse_autotuned_config);
  if (row.check != "ok") line += " CHECK FAILED: " + row.check;
  return line;
}

}  // namespace

int run_benchmark(const BenchOptions& options, const BuildFeatures& features, const std::string& arch) {
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  check_cuda(cudaFree(nullptr), "cudaFree (context)");  // the primary context, shared with polyfuse's launches
  RunEnvironment environment = query_environment();
  environment.command = options.command;
  environment.arch = arch;
  environment.l2_flush = options.l2_flush;
  environment.repeats = options.repeats;
  environment.warmup = options.warmup;

  std::ofstream csv(options.csv, std::ios::trunc);
  if (!csv) {
    std::cerr << "polyfuse-bench: error: cannot write " << options.csv << "\n";
    return exit_error;
  }
  csv << csv_header() << "\n" << std::flush;
  std::cout << "polyfuse-bench on " << environment.gpu << ", arch " << arch << "\n";

  std::vector<ResultRow> rows;
  std::string aborted, stopped;
  try {
    ExtraKernels extra(arch);
    Libraries libraries;
    libraries.extra = &extra;
    if (features.cudnn) libraries.cudnn = std::make_unique<Cudnn>();
    Stream stream;
    Timer timer(stream.get(), extra, {options.warmup, options.repeats, options.l2_flush, options.spin_ms});
    RunContext context{options, libraries, stream, timer};

    // The next size's kernels compile on worker threads while this size is measured.
    const std::vector<std::vector<Problem>> groups = size_groups(plan_problems(options));
    auto compile_group = [&](size_t g) {
      return std::async(std::launch::async, [&options, &groups, &arch, g] {
        std::vector<CompileJob> jobs = jobs_for(options, groups[g], arch);
        compile_jobs(jobs, options.compile_jobs);
        return jobs;
      });
    };
    std::future<std::vector<CompileJob>> next;
    if (!groups.empty()) next = compile_group(0);
    // --time-limit: no problem is started after it (the first always runs).
    const auto start = std::chrono::steady_clock::now();
    const std::vector<ConvProblem> convs = plan_conv_problems(options);
    size_t planned = convs.size();
    for (const std::vector<Problem>& group : groups) planned += group.size();
    auto out_of_time = [&] {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (options.time_limit_s <= 0 || rows.empty() || elapsed <= options.time_limit_s) return false;
      stopped = fmt::format("stopped at the time limit (--time-limit {:g} s) after {} of {} problems; the other {} "
                            "were not run\n",
                            options.time_limit_s, rows.size(), planned, planned - rows.size());
      return true;
    };
    for (size_t g = 0; g < groups.size() && stopped.empty(); ++g) {
      if (out_of_time()) break;
      const std::vector<CompileJob> jobs = next.get();
      if (g + 1 < groups.size()) next = compile_group(g + 1);
      for (const Problem& problem : groups[g]) {
        if (out_of_time()) break;
        std::vector<const CompileJob*> mine;
        for (const CompileJob& job : jobs)
          if (job.idiom == problem.idiom && job.dtype == problem.dtype) mine.push_back(&job);
        ResultRow row = measure_problem(problem, mine, context);
        csv << csv_row(environment, row) << "\n" << std::flush;
        std::cout << progress_line(problem, options.sizes.size(), row) << "\n" << std::flush;
        rows.push_back(std::move(row));
      }
    }
    // The convolutions after the GEMM idioms; their kernels compile first, all at once.
    if (!convs.empty() && stopped.empty() && !out_of_time()) {
      std::vector<CompileJob> jobs = conv_compile_jobs(convs, arch);
      compile_jobs(jobs, options.compile_jobs);
      for (size_t i = 0; i < convs.size(); ++i) {
        if (out_of_time()) break;
        ResultRow row = measure_conv_problem(convs[i], jobs[i], context);
        csv << csv_row(environment, row) << "\n" << std::flush;
        std::cout << conv_progress_line(convs[i], options.conv_layers.size(), row) << "\n" << std::flush;
        rows.push_back(std::move(row));
      }
    }
  } catch (const std::exception& error) {
    aborted = error.what();
  }

  std::string summary = summary_text(environment, rows) + stopped;
  if (!aborted.empty()) summary += "RUN ABORTED after " + std::to_string(rows.size()) + " problems: " + aborted + "\n";
  std::ofstream(options.summary, std::ios::trunc) << summary;
  std::cout << "\n" << summary << "CSV: " << options.csv << "\nsummary: " << options.summary
            << "\nplot: python3 bench/gpu/plot.py " << options.csv << " -o speedup.png\n";
  if (!aborted.empty()) return exit_error;
  for (const ResultRow& row : rows)
    if (row.check != "ok") return exit_check_failed;
  return exit_ok;
}

int compile_only(const BenchOptions& options, const std::string& arch) {
  int status = exit_ok;
  try {
    ExtraKernels extra(arch);
    std::cout << "extra kernels (" << arch << "): ok\n";
  } catch (const std::exception& error) {
    std::cout << "extra kernels (" << arch << "): FAILED: " << error.what() << "\n";
    status = exit_error;
  }
  size_t compiled = 0, rejected = 0;
  std::vector<std::vector<CompileJob>> batches;
  for (const std::vector<Problem>& group : size_groups(plan_problems(options)))
    batches.push_back(jobs_for(options, group, arch));
  const std::vector<ConvProblem> convs = plan_conv_problems(options);
  if (!convs.empty()) batches.push_back(conv_compile_jobs(convs, arch));
  for (std::vector<CompileJob>& jobs : batches) {
    compile_jobs(jobs, options.compile_jobs);
    for (size_t j = 0; j < jobs.size(); ++j) {
      const CompileJob& job = jobs[j];
      // A convolution's job names its layer (the batch of convolution jobs is in plan order).
      const std::string what =
          job.idiom ? to_string(job.size) + (job.idiom->batched ? fmt::format(" batch={}", job.size.batch) : "")
                    : convs[j].shape.name;
      std::string line = fmt::format("compile {:<18} {:<4} {:<24} {:<32} ", job.idiom ? job.idiom->name : job.name,
                                     to_string(job.dtype), what, to_string(job.config));
      if (job.kernel && job.kernel->kernel_count() > 1) {  // a plan: its kernels in launch order
        std::string names;
        for (const CompiledKernel& kernel : job.kernel->kernels())
          names += (names.empty() ? "" : ", ") + kernel.info().name;
        line += fmt::format("ok: plan of {} kernels ({}), workspace {} B", job.kernel->kernel_count(), names,
                            job.kernel->workspace_bytes());
        ++compiled;
      } else if (job.kernel) {
        const KernelInfo& info = job.kernel->info();
        line += fmt::format("ok: {} grid ({}, {}, {}) block {} shared {} B", info.name, info.grid[0], info.grid[1],
                            info.grid[2], info.block[0] * info.block[1] * info.block[2], info.dynamic_shared_bytes);
        ++compiled;
      } else {
        line += "rejected: " + job.error;
        ++rejected;
        if (job.config.is_default()) status = exit_error;
      }
      if (!job.idiom && job.kernel) line += "; polyfuse: " + polyfuse_path(job.kernel->plan());
      std::cout << line << "\n";
      // --autotune: the autotuner's winner once per problem (its first job); without a GPU, statically ranked.
      if (options.autotune && job.idiom && (j == 0 || jobs[j - 1].idiom != job.idiom || jobs[j - 1].dtype != job.dtype)) {
        std::string config;
        try {
          compile_autotuned(job, config);
        } catch (const Error& error) {
          const std::string message = error.what();
          config = "FAILED: " + message.substr(0, message.find('\n'));
          status = exit_error;
        }
        std::cout << fmt::format("autotune {:<17} {:<4} {:<24} {}\n", job.idiom->name, to_string(job.dtype),
                                 to_string(job.size), config);
      }
    }
  }
  std::cout << fmt::format("compiled {} kernels, {} configuration{} rejected by the compiler{}\n", compiled, rejected,
                           rejected == 1 ? "" : "s",
                           status == exit_ok ? "" : "; FAILED (a default configuration or the extra kernels)");
  return status;
}

}  // namespace polyfuse::bench
