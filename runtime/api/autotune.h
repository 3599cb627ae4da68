// The autotuner's driver (polyfuse/autotune.h says what it does): candidates → NVRTC with
// ptxas's facts → pruning and the static ranking → timings and the wrong-result guard (with a
// timer that can time) → the winner, cached in the artefact cache (kind "autotune").
#pragma once

#include <vector>

#include "polyfuse/autotune.h"
#include "runtime/api/autotune_static.h"
#include "runtime/api/autotune_timer.h"
#include "runtime/api/generate.h"
#include "runtime/cache/artifact_cache.h"
#include "schedule/tuning_candidates.h"

namespace polyfuse::api {

// What to tune: the program's def with every size bound, and the caller's options (arch,
// f32_matmul, fast_math, use_cache; no tile option: those are what is chosen).
struct AutotuneRequest {
  std::string text;
  std::string name;  // the source's name, for messages
  Sizes sizes;
  std::string def;   // "" = the first
  CompileOptions options;
};

// Why a compiled candidate with `facts` and `blocks` blocks per SM is dropped, "" if it is not.
std::string static_drop_reason(const PtxasFacts& facts, int blocks, int threads, int shared_bytes);

// Tunes `request`: reads the winner from `cache` (when request.options.use_cache), else
// compiles and ranks `candidates` (empty: tuning_candidates of the default kernel's main
// loop), times them with `timer` when it can time for the arch, and stores the winner.
// Throws SourceError for what cannot be tuned (the CPU backend, tile options set, unbound
// sizes, a def that is a plan of several kernels), Error when built without NVRTC.
AutotuneReport autotune(const AutotuneRequest& request, CandidateTimer& timer, cache::ArtifactCache& cache,
                        const std::vector<TuningCandidate>& candidates = {});

}  // namespace polyfuse::api
