// The autotuner: picks the tile configuration of one fused GPU kernel for its bound shapes.
//
//   polyfuse::AutotuneReport report = program.autotune(options);   // or options.autotune = true
//   std::cout << report.to_string();   // the ranked table, the winner, timed or static
//   polyfuse::CompiledKernel kernel = program.compile(report.chosen);
//
// Each candidate of a small set (schedule/tuning_candidates.h: block tiles, stages and
// block order for the mma.sync kernel; consumer schedule and block order for the sm_90a TMA +
// wgmma kernel) is compiled with NVRTC; ptxas's facts (registers, spill bytes, shared memory)
// give its occupancy, and a candidate that spills or fits no block on an SM is dropped. The
// rest are ranked by a documented static score (runtime/api/autotune_static.h). With a GPU,
// each is then timed (a warm-up, then the median of timed launches on random inputs, CUDA
// events) and the fastest wins — unless its outputs differ from the default configuration's
// beyond the reference tolerance: a wrong kernel never wins. Without a GPU the static winner is
// used and the report says that nothing was timed. The winner is cached per (program text, def,
// bound sizes, options, GPU name and compute capability, polyfuse and NVRTC version) in the
// artefact cache (kind "autotune"), so the second call compiles nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "polyfuse/options.h"

namespace polyfuse {

// One candidate as the autotuner saw it.
struct AutotuneRow {
  std::string config;          // "default", "block=128x256x32 stages=3", "schedule=pingpong group=1"
  int registers = 0;           // per thread (ptxas)
  int spill_bytes = 0;         // spill stores + loads (ptxas)
  int shared_bytes = 0;        // static + dynamic, per block
  int threads = 0;             // per block
  int blocks_per_sm = 0;       // occupancy from registers, shared memory and threads
  double score = 0;            // the static score (higher first)
  std::optional<double> time_ms;  // median of the timed launches (with a GPU)
  std::string dropped;         // why it was not considered ("" when it was)
};

struct AutotuneReport {
  std::string kernel_kind;          // "mma.sync" or "TMA + wgmma"
  std::vector<AutotuneRow> rows;    // kept ones in rank order (timed: fastest first), then the dropped
  std::string winner;               // the chosen row's config
  CompileOptions chosen;            // the options it compiles with (autotune off)
  bool timed = false;               // the winner was chosen by GPU timings
  std::string not_timed_because;    // "no GPU" (static ranking only), when not timed
  bool from_cache = false;          // read from the winner cache (nothing compiled or timed)

  // "autotuned: block=128x256x32 stages=3 (timed)": the line --emit=config prints.
  std::string summary() const;
  // The ranked table, then "could not time: no GPU (static ranking only)" when not timed,
  // then summary().
  std::string to_string() const;
};

}  // namespace polyfuse
