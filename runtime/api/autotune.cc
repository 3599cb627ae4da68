#include "runtime/api/autotune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "frontend/frontend.h"
#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "polyfuse/version.h"
#include "codegen/main_loop_choice.h"
#include "runtime/api/autotune_report.h"
#include "runtime/api/compiled_kernel_factory.h"
#include "runtime/cache/content_hash.h"
#include "runtime/reference/compare.h"

#if POLYFUSE_HAVE_CUDA
#include "runtime/cuda/kernel_cache.h"
#endif

namespace polyfuse::api {
namespace {

// One candidate on its way through the tuner.
struct Tried {
  TuningCandidate candidate;
  AutotuneRow row;
  GeneratedKernel generated;
  bool compiled = false;
};

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Refuses what cannot be tuned, naming the rule.
void check_tunable(const AutotuneRequest& request) {
  if (request.options.backend == Backend::cpu)
    throw SourceError("polyfuse: error: autotune chooses the GPU kernel's tiles; Backend::cpu has its own blocking");
  if (const std::string set = tile_options_set(request.options); !set.empty())
    throw SourceError(fmt::format("polyfuse: error: autotune chooses the tile options itself, but {} {} set: leave "
                                  "them unset, or turn autotune off",
                                  set, set.find(',') == std::string::npos ? "is" : "are"));
  const std::vector<std::string> unbound = unbound_sizes(request.text, request.name, request.sizes, request.def);
  if (!unbound.empty())
    throw SourceError(fmt::format("polyfuse: error: autotune times the kernel of bound shapes; bind {}",
                                  fmt::join(unbound, ", ")));
}

std::int64_t product(const std::vector<std::string>& shape) {
  std::int64_t n = 1;
  for (const std::string& d : shape) n *= std::stoll(d);
  return n;
}

// The winner cache's key text: everything the choice depends on.
std::string cache_key(const AutotuneRequest& request, const std::string& device, Arch arch,
                      const std::vector<TuningCandidate>& candidates) {
  std::string key = fmt::format("polyfuse autotune v1\npolyfuse {}\nnvrtc {}\ndevice {}\narch {}\ndef {}\nsizes",
                                version(), nvrtc_version(), device, to_string(arch), request.def);
  for (const auto& [size, value] : request.sizes) key += fmt::format(" {}={}", size, value);
  key += fmt::format("\nf32_matmul {}\nfast_math {}\ncandidates",
                     to_string(request.options.f32_matmul.value_or(F32Matmul::tf32)), request.options.fast_math);
  for (const TuningCandidate& c : candidates) key += " [" + to_string(c) + "]";
  return key + "\n" + '\0' + request.text;
}

#if POLYFUSE_HAVE_CUDA
// Compiles `t` with ptxas's report and fills its row's static facts and score; drops it with the reason.
void compile_and_score(Tried& t, const AutotuneRequest& request, Arch arch, int sms) {
  const LaunchMetadata& m = t.generated.metadata;
  cuda::NvrtcOptions nvrtc;
  nvrtc.arch = m.arch;
  nvrtc.fast_math = request.options.fast_math;
  nvrtc.ptxas_verbose = true;
  try {
    const cuda::CacheLookup lookup =
        cuda::KernelCache::global().compile(t.generated.source, nvrtc, m.kernel, request.options.use_cache);
    const std::optional<PtxasFacts> facts = parse_ptxas_facts(lookup.output->log, m.kernel);
    if (!facts) throw Error("polyfuse: internal error: NVRTC's log has no ptxas report of kernel '" + m.kernel + "'");
    AutotuneRow& row = t.row;
    row.registers = facts->registers;
    row.spill_bytes = facts->spill_store_bytes + facts->spill_load_bytes;
    row.threads = m.block[0] * m.block[1] * m.block[2];
    row.shared_bytes = facts->static_shared_bytes + m.dynamic_shared_bytes;
    const SmResources sm = sm_resources(arch);
    row.blocks_per_sm = blocks_per_sm(sm, row.threads, row.registers, row.shared_bytes);
    if (m.persistent) row.blocks_per_sm = std::min(row.blocks_per_sm, 1);
    row.dropped = static_drop_reason(*facts, row.blocks_per_sm, row.threads, row.shared_bytes);
    std::int64_t tiles = 1, outputs = 0;
    for (const GridDimension& g : m.grid) tiles *= std::max<std::int64_t>(g.value, 1);
    for (const KernelParameter& p : m.parameters)
      if (p.kind == KernelParameter::Kind::output && outputs == 0) outputs = product(p.shape);
    const int stages = m.persistent ? 0 : t.candidate.stages != 0 ? t.candidate.stages : default_gpu_options(arch).stages;
    row.score = static_score(tiles, static_cast<double>(outputs) / static_cast<double>(tiles), row.threads / 32,
                             row.blocks_per_sm, stages, sms > 0 ? sms : sm.sms);
    t.compiled = true;
  } catch (const CompileError& e) {
    t.row.dropped = "NVRTC refused it: " + first_line(e.what());
  }
}

// Each of `candidates` generated (the default's kernel is `first`), compiled and scored, or
// dropped with the reason: refused by the compiler, the same kernel as an earlier one, or the
// static facts (compile_and_score).
std::vector<Tried> try_candidates(const AutotuneRequest& request, const GeneratedKernel& first,
                                  const CompileOptions& base, const std::vector<TuningCandidate>& candidates, int sms) {
  std::vector<Tried> tried;
  for (const TuningCandidate& candidate : candidates) {
    Tried t;
    t.candidate = candidate;
    t.row.config = to_string(candidate);
    try {
      t.generated = candidate.is_default() ? first
                                           : generate_cuda(request.text, request.name, request.sizes, request.def,
                                                           candidate.applied_to(base));
      for (const Tried& earlier : tried)
        if (earlier.compiled && earlier.generated.source == t.generated.source)
          t.row.dropped = "the same kernel as " + earlier.row.config;
      if (t.row.dropped.empty()) compile_and_score(t, request, *base.arch, sms);
    } catch (const SourceError& e) {
      t.row.dropped = "refused by the compiler: " + first_line(e.what());
    }
    tried.push_back(std::move(t));
  }
  return tried;
}
#endif

// Times the kept candidates of `tried` (rank order) with `timer` on random inputs, each
// checked against the default configuration's outputs; returns the fastest correct one.
Tried* time_candidates(std::vector<Tried>& tried, const AutotuneRequest& request, CandidateTimer& timer) {
  const FrontendResult frontend = compile_source(SourceFile{request.name, request.text},
                                                 SizeBindings(request.sizes.begin(), request.sizes.end()));
  const Program& program = select_def(frontend, request.def, request.name);
  const reference::TensorData inputs = reference::random_tensors(program, 1);
  CompileOptions options = request.options;
  options.backend = Backend::cuda;
  options.autotune = false;
  auto build = [&](const Tried& t) {
    return make_compiled_kernel(Backend::cuda, t.generated.source, t.generated.metadata, request.sizes,
                                t.candidate.applied_to(options));
  };
  // The reference outputs: the default configuration's (tried.front(), even if dropped).
  const CandidateRun expected = timer.run(build(tried.front()), program, inputs);
  Tried* best = nullptr;
  for (Tried& t : tried) {
    if (!t.row.dropped.empty()) continue;
    const CandidateRun run = &t == &tried.front() ? expected : timer.run(build(t), program, inputs);
    const reference::CheckReport same = reference::compare_outputs(program, run.outputs, expected.outputs);
    if (!same.ok) {
      t.row.dropped = "wrong result: differs from the default configuration's (" + same.first_failure + ")";
      continue;
    }
    t.row.time_ms = run.median_ms;
    if (!best || run.median_ms < *best->row.time_ms) best = &t;
  }
  return best;
}

}  // namespace

std::string static_drop_reason(const PtxasFacts& facts, int blocks, int threads, int shared_bytes) {
  if (facts.spill_store_bytes + facts.spill_load_bytes > 0)
    return fmt::format("spills ({} bytes stored, {} loaded)", facts.spill_store_bytes, facts.spill_load_bytes);
  if (blocks == 0)
    return fmt::format("no block fits on an SM ({} threads x {} registers, {} bytes of shared memory)", threads,
                       facts.registers, shared_bytes);
  return "";
}

AutotuneReport autotune(const AutotuneRequest& request, CandidateTimer& timer, cache::ArtifactCache& cache,
                        const std::vector<TuningCandidate>& given) {
#if POLYFUSE_HAVE_CUDA
  check_tunable(request);
  const Arch arch = request.options.arch.value_or(default_arch());
  CompileOptions base = request.options;
  base.arch = arch;
  base.backend = Backend::cuda;
  base.autotune = false;

  // The default configuration first: which kernel it is says which set to try.
  const GeneratedKernel first = generate_cuda(request.text, request.name, request.sizes, request.def, base);
  if (first.plan)
    throw SourceError(fmt::format("polyfuse: error: autotune tunes one fused kernel, but the def is a plan of {} "
                                  "kernels (--emit=plan shows it)",
                                  first.plan->kernels.size()));
  const bool hopper = first.metadata.persistent;  // the sm_90a TMA + wgmma kernel
  const MainLoop loop = hopper ? MainLoop::tma_wgmma : MainLoop::mma_sync;
  std::vector<TuningCandidate> candidates = given;
  if (candidates.empty()) candidates = tuning_candidates(hopper ? CandidateSet::tma_wgmma : CandidateSet::mma_sync);
  if (candidates.empty() || !candidates.front().is_default()) candidates.insert(candidates.begin(), TuningCandidate{});

  const std::string not_timed = timer.unavailable(arch);
  const std::string key = cache_key(request, not_timed.empty() ? timer.device() : "none (static)", arch, candidates);
  const bool use_cache = request.options.use_cache && cache.config().enabled;
  if (use_cache) {
    const cache::Lookup lookup = cache.load("autotune", key);
    if (lookup.sections && lookup.sections->size() == 1)
      if (std::optional<AutotuneReport> report = report_from_json(lookup.sections->front(), candidates, base)) {
        report->chosen.backend = request.options.backend;
        return *report;
      }
  }

  AutotuneReport report;
  report.kernel_kind = to_string(loop);
  const int sms = not_timed.empty() ? timer.sms() : 0;
  std::vector<Tried> tried = try_candidates(request, first, base, candidates, sms);
  // Kept ones by score (candidate order on ties), then the dropped in candidate order.
  std::vector<Tried*> order;
  for (Tried& t : tried) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const Tried* a, const Tried* b) {
    if (a->row.dropped.empty() != b->row.dropped.empty()) return a->row.dropped.empty();
    return a->row.dropped.empty() && a->row.score > b->row.score;
  });

  const Tried* winner = nullptr;
  if (not_timed.empty() && tried.front().compiled) {
    winner = time_candidates(tried, request, timer);
    report.timed = winner != nullptr;
    if (!winner) report.not_timed_because = "no candidate gave the default configuration's results";
    std::stable_sort(order.begin(), order.end(), [](const Tried* a, const Tried* b) {
      if (a->row.time_ms.has_value() != b->row.time_ms.has_value()) return a->row.time_ms.has_value();
      return a->row.time_ms && *a->row.time_ms < *b->row.time_ms;
    });
  } else {
    report.not_timed_because = not_timed.empty() ? "the default configuration did not compile" : not_timed;
  }
  if (!winner) winner = order.front()->row.dropped.empty() ? order.front() : &tried.front();
  for (const Tried* t : order) report.rows.push_back(t->row);
  report.winner = winner->row.config;
  report.chosen = winner->candidate.applied_to(base);
  if (use_cache) cache.store("autotune", key, {report_json(report)});
  report.chosen.backend = request.options.backend;
  return report;
#else
  (void)request;
  (void)timer;
  (void)cache;
  (void)given;
  throw Error("polyfuse: autotune compiles its candidates with NVRTC: polyfuse was built without the CUDA toolkit");
#endif
}

}  // namespace polyfuse::api
