#include "schedule/copies.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/diagnostics.h"
#include "schedule/copy_maps.h"
#include "schedule/extension_builder.h"
#include "schedule/footprint.h"
#include "schedule/isl_raw.h"
#include "schedule/marks.h"
#include "schedule/tiling.h"

namespace polyfuse {

std::string copy_statement_name(const std::string& s, const std::string& what) { return s + "_" + what; }

MatmulNodes matmul_nodes(const isl::schedule& schedule, const MatmulStage& mm) {
  MatmulNodes nodes;
  nodes.kstep_mark = find_statement_mark(statement_root(schedule, mm.dims.statement), mm.dims.statement, marks::kstep);
  nodes.below_kstep = find_statement_mark(nodes.kstep_mark.child(0), mm.dims.statement, marks::warp);
  nodes.below_kslice = find_statement_mark(nodes.below_kstep, mm.dims.statement, marks::mma);
  return nodes;
}

// The access relation restricted to the statement's domain in the plan.
static isl::map restricted(const isl::map& access, const KernelPlan& plan) {
  return isl::union_map(access).intersect_domain(plan.domain).as_map();
}

CopyTiles copy_tiles(const MatmulNodes& nodes, const KernelPlan& plan, const MatmulStage& mm) {
  isl::map a = restricted(mm.a_access, plan), b = restricted(mm.b_access, plan), c = restricted(mm.c_access, plan);
  CopyTiles tiles;
  tiles.a_block = data_tile(nodes.below_kstep, a);
  tiles.b_block = data_tile(nodes.below_kstep, b);
  tiles.a_warp = data_tile(nodes.below_kslice, a);
  tiles.b_warp = data_tile(nodes.below_kslice, b);
  tiles.c_block = data_tile(nodes.kstep_mark, c);
  tiles.kstep_points = prefix_points(nodes.below_kstep, a.domain());
  return tiles;
}

// The buffer of k-step p<kstep_position> + shift: "(p<last> + shift) mod S", "0" for a
// single buffer.
static std::string buffer_of_kstep(int kstep_position, int stages, int shift) {
  if (stages == 1) return "0";
  return shift ? fmt::format("(p{} + {}) mod {}", kstep_position, shift, stages)
               : fmt::format("p{} mod {}", kstep_position, stages);
}

isl::union_map block_copy_maps(const CopyTiles& t, const std::string& s, int stages) {
  isl::ctx ctx = t.a_block.offset.ctx();
  int depth = t.a_block.prefix_depth, ks = depth - 1;
  std::string wait = copy_statement_name(s, "wait_shared"), commit = copy_statement_name(s, "commit_shared");
  if (stages == 1) {
    isl::multi_aff zero = prefix_function(ctx, depth, "0");
    return isl::union_map(statement_map(zero, t.a_block.offset, copy_statement_name(s, "A_to_shared")))
        .unite(statement_map(zero, t.b_block.offset, copy_statement_name(s, "B_to_shared")))
        .unite(prefix_function(ctx, depth, fmt::format("p{}", ks)).as_map().set_range_tuple(commit))
        .unite(prefix_function(ctx, depth, "0, 0").as_map().set_range_tuple(wait));
  }
  // The copies of the k-step stages-1 ahead, where there is one; its group is committed
  // either way, and the wait lets the stages-2 groups after this k-step's pend.
  isl::multi_aff ahead = shift_last(ctx, depth, stages - 1);
  isl::set has_ahead = t.kstep_points.preimage(ahead);
  isl::multi_aff buffer = prefix_function(ctx, depth, buffer_of_kstep(ks, stages, stages - 1));
  return isl::union_map(statement_map(buffer, t.a_block.offset.pullback(ahead), copy_statement_name(s, "A_to_shared"))
                            .intersect_domain(has_ahead))
      .unite(statement_map(buffer, t.b_block.offset.pullback(ahead), copy_statement_name(s, "B_to_shared"))
                 .intersect_domain(has_ahead))
      .unite(prefix_function(ctx, depth, fmt::format("p{} + {}", ks, stages - 1)).as_map().set_range_tuple(commit))
      .unite(prefix_function(ctx, depth, fmt::format("{}, {}", buffer_of_kstep(ks, stages, 0), stages - 2))
                 .as_map()
                 .set_range_tuple(wait));
}

isl::union_map prologue_copy_maps(const CopyTiles& t, const std::string& s, int stages) {
  isl::ctx ctx = t.a_block.offset.ctx();
  int depth = t.a_block.prefix_depth;
  // Prefix point (outside the k-step loop) -> (prefix, k-step) for the first stages-1
  // k-steps; the k-step is also the buffer.
  std::vector<std::string> outer;
  for (int i = 0; i + 1 < depth; ++i) outer.push_back(fmt::format("p{}", i));
  isl::map first = isl::map(ctx, fmt::format("{{ [{0}] -> [{0}{1}s] : 0 <= s <= {2} }}", fmt::join(outer, ", "),
                                             outer.empty() ? "" : ", ", stages - 2));
  isl::map inside_k = first.intersect_range(t.kstep_points);
  isl::multi_aff buffer = prefix_function(ctx, depth, fmt::format("p{}", depth - 1));
  std::string commit = copy_statement_name(s, "commit_shared");
  return isl::union_map(inside_k.apply_range(statement_map(buffer, t.a_block.offset, copy_statement_name(s, "A_to_shared"))))
      .unite(inside_k.apply_range(statement_map(buffer, t.b_block.offset, copy_statement_name(s, "B_to_shared"))))
      .unite(first.apply_range(buffer.as_map().set_range_tuple(commit)));
}

isl::union_map release_map(const CopyTiles& t, const std::string& s) {
  return prefix_function(t.a_block.offset.ctx(), t.a_block.prefix_depth, "0")
      .as_map()
      .set_range_tuple(copy_statement_name(s, "release_shared"));
}

isl::union_map drain_map(const CopyTiles& t, const std::string& s) {
  return prefix_function(t.a_block.offset.ctx(), t.a_block.prefix_depth - 1, "")
      .as_map()
      .set_range_tuple(copy_statement_name(s, "drain_shared"));
}

isl::union_map fragment_maps(const CopyTiles& t, const std::string& s, int stages) {
  isl::ctx ctx = t.a_block.offset.ctx();
  int depth = t.a_warp.prefix_depth;
  isl::multi_aff to_block = keep_first(ctx, depth, t.a_block.prefix_depth);
  isl::multi_aff a_rel = t.a_warp.offset.sub(t.a_block.offset.pullback(to_block));
  isl::multi_aff b_rel = t.b_warp.offset.sub(t.b_block.offset.pullback(to_block));
  isl::multi_aff buffer = prefix_function(ctx, depth, buffer_of_kstep(t.a_block.prefix_depth - 1, stages, 0));
  return isl::union_map(statement_map(buffer, a_rel, copy_statement_name(s, "A_to_fragments")))
      .unite(statement_map(buffer, b_rel, copy_statement_name(s, "B_to_fragments")));
}

isl::schedule insert_copies(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options) {
  isl::schedule current = schedule;
  for (const MatmulStage& mm : plan.matmuls) {
    const std::string& s = mm.dims.statement;
    MatmulNodes nodes = matmul_nodes(current, mm);
    CopyTiles tiles = copy_tiles(nodes, plan, mm);  // all from the tree before it changes
    const int stages = marks::is_mark(nodes.kstep_mark.child(0), marks::prefetch) ? options.stages : 1;

    isl::schedule_node at = nodes.below_kslice.graft_before(extension_tree(
        fragment_maps(tiles, s, stages), {copy_statement_name(s, "A_to_fragments"), copy_statement_name(s, "B_to_fragments")}));
    nodes = matmul_nodes(at.schedule(), mm);
    std::vector<std::string> copies{copy_statement_name(s, "A_to_shared"), copy_statement_name(s, "B_to_shared"),
                                    copy_statement_name(s, "commit_shared")};
    std::vector<std::string> order = copies;
    if (stages == 1) order.push_back(copy_statement_name(s, "wait_shared"));
    else order.insert(order.begin(), copy_statement_name(s, "wait_shared"));
    at = nodes.below_kstep.graft_before(extension_tree(block_copy_maps(tiles, s, stages), order));
    if (stages == 1) at = at.graft_after(extension_tree(release_map(tiles, s), {copy_statement_name(s, "release_shared")}));

    // The ring's prologue before the k-step loop, its drain barrier right after it; the
    // accumulators are loaded before (for `+=`) and stored after (when live-out).
    at = matmul_nodes(at.schedule(), mm).kstep_mark;
    if (stages > 1)
      at = at.graft_before(extension_loop_tree(prologue_copy_maps(tiles, s, stages), copies, marks::pipeline_prologue));
    if (!mm.zero_init) {
      std::string name = copy_statement_name(s, "C_to_accumulators");
      at = at.graft_before(extension_tree(tiles.c_block.offset.as_map().set_range_tuple(name), {name}));
    }
    if (mm.live_out) {
      std::string name = copy_statement_name(s, "accumulators_to_C");
      at = at.graft_after(extension_tree(tiles.c_block.offset.as_map().set_range_tuple(name), {name}));
    }
    if (options.split_k > 1 && !plan.epilogue.empty()) {  // before the store above and the epilogue
      std::string name = copy_statement_name(s, "reduce_split_k");
      at = at.graft_after(extension_tree(tiles.c_block.offset.as_map().set_range_tuple(name), {name}));
    }
    // Grafted last: right after the loop. Shared memory is reused after it by the next
    // matmul's ring, or by the accumulator scratch, which overlaps the ring when the kernel
    // has one matmul and lies beyond it otherwise (codegen/cuda_kernel_layout.cc): after
    // the last of several matmuls nothing reuses the ring.
    const bool last_of_several = plan.matmuls.size() > 1 && &mm == &plan.matmuls.back();
    if (stages > 1 && !last_of_several)
      at = at.graft_after(extension_tree(drain_map(tiles, s), {copy_statement_name(s, "drain_shared")}));
    current = at.schedule();
  }
  // Live-out epilogue results: stored from registers after the epilogue's subtree.
  for (const PointwiseStage& pw : plan.epilogue) {
    if (!pw.live_out) continue;
    isl::schedule_node root = statement_root(current, pw.dims.statement);
    isl::map write = restricted(pw.write_access, plan);
    DataTile tile = data_tile(root, write);
    std::string name = copy_statement_name(pw.dims.statement, "fragments_to_" + pw.output);
    current = root.graft_after(extension_tree(tile.offset.as_map().set_range_tuple(name), {name})).schedule();
  }
  return current;
}

}  // namespace polyfuse
