// Mark nodes: the contract between the GPU schedule passes and the code generator
// (as PPCG's gpu_tree.c marks are). A mark names what its child subtree is:
//
//   kernel  the root of one CUDA kernel; its subtree is what one thread block runs
//   block   child band: members map to blockIdx (z,) y, x, outermost first
//   kstep   child band: the sequential loop over block.k strips of the reduction
//   prefetch below a kstep mark: the k-step's shared tiles form a ring of `stages`
//           buffers, the copies of k-steps i+1 .. i+stages-1 overlap the MMAs of k-step i
//           (set by the prefetch pass, read by insert_copies)
//   pipeline_prologue child band: the loop over the first stages-1 k-steps' copies before
//           the k-step loop, one cp.async commit group per k-step (set by insert_copies)
//   warp    child band: members map to warp_y, warp_x (and warp_k under split-K)
//   mma     child band: loops over macro-MMA tiles of one warp tile; one statement
//           instance below it is one warp-level macro-MMA (after contraction)
//   fragment child band: loops over accumulator fragments of one warp tile for a
//           pointwise epilogue statement; one instance is one fragment
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string_view>
#include <vector>

namespace polyfuse::marks {

inline constexpr std::string_view kernel = "kernel";
inline constexpr std::string_view block = "block";
inline constexpr std::string_view kstep = "kstep";
inline constexpr std::string_view prefetch = "prefetch";
inline constexpr std::string_view pipeline_prologue = "pipeline_prologue";
inline constexpr std::string_view warp = "warp";
inline constexpr std::string_view mma = "mma";
inline constexpr std::string_view fragment = "fragment";

// True when `node` is a mark node named `name`.
bool is_mark(const isl::schedule_node& node, std::string_view name);

// Every mark named `name` in the tree of `schedule`, in depth-first pre-order. Nodes are
// values: after changing the tree at one of them, look the others up again.
std::vector<isl::schedule_node> find_all(const isl::schedule& schedule, std::string_view name);

// The n-th (0-based) mark named `name`, or nothing.
std::optional<isl::schedule_node> find_nth(const isl::schedule& schedule, std::string_view name, int n);

// The band directly below the mark `node`; InternalError when the child is not a band.
isl::schedule_node_band band_below(const isl::schedule_node& mark);

}  // namespace polyfuse::marks
