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

LandedPrologue landed_prologue(const MatmulGroup& group) {
  if (group.members.size() != 1) return LandedPrologue::none;
  const MatmulStage& mm = group.leader();
  if (mm.operand_type != ElementType::f16 && mm.operand_type != ElementType::bf16) return LandedPrologue::none;
  if (mm.a_prologue.has_value() == mm.b_prologue.has_value()) return LandedPrologue::none;
  return mm.a_prologue ? LandedPrologue::a : LandedPrologue::b;
}

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

// The wait of the k-step whose copies landed, `leading` its (buffer, pending): with a landed
// prologue, the origin of that operand's tile follows.
static isl::map wait_map(const CopyTiles& t, const std::string& s, const std::string& leading, LandedPrologue landed) {
  isl::multi_aff wait = prefix_function(t.a_block.offset.ctx(), t.a_block.prefix_depth, leading);
  const std::string name = copy_statement_name(s, "wait_shared");
  if (landed == LandedPrologue::none) return wait.as_map().set_range_tuple(name);
  return statement_map(wait, landed == LandedPrologue::a ? t.a_block.offset : t.b_block.offset, name);
}

isl::union_map block_copy_maps(const CopyTiles& t, const std::string& s, int stages, bool leads, LandedPrologue landed) {
  isl::ctx ctx = t.a_block.offset.ctx();
  int depth = t.a_block.prefix_depth, ks = depth - 1;
  std::string commit = copy_statement_name(s, "commit_shared");
  if (stages == 1) {
    isl::multi_aff zero = prefix_function(ctx, depth, "0");
    isl::union_map b = statement_map(zero, t.b_block.offset, copy_statement_name(s, "B_to_shared"));
    if (!leads) return b;
    return isl::union_map(statement_map(zero, t.a_block.offset, copy_statement_name(s, "A_to_shared")))
        .unite(b)
        .unite(prefix_function(ctx, depth, fmt::format("p{}", ks)).as_map().set_range_tuple(commit))
        .unite(wait_map(t, s, "0, 0", landed));
  }
  // The copies of the k-step stages-1 ahead, where there is one; its group is committed
  // either way, and the wait lets the stages-2 groups after this k-step's pend.
  isl::multi_aff ahead = shift_last(ctx, depth, stages - 1);
  isl::set has_ahead = t.kstep_points.preimage(ahead);
  isl::multi_aff buffer = prefix_function(ctx, depth, buffer_of_kstep(ks, stages, stages - 1));
  isl::union_map b = statement_map(buffer, t.b_block.offset.pullback(ahead), copy_statement_name(s, "B_to_shared"))
                         .intersect_domain(has_ahead);
  if (!leads) return b;
  return isl::union_map(statement_map(buffer, t.a_block.offset.pullback(ahead), copy_statement_name(s, "A_to_shared"))
                            .intersect_domain(has_ahead))
      .unite(b)
      .unite(prefix_function(ctx, depth, fmt::format("p{} + {}", ks, stages - 1)).as_map().set_range_tuple(commit))
      .unite(wait_map(t, s, fmt::format("{}, {}", buffer_of_kstep(ks, stages, 0), stages - 2), landed));
}

isl::union_map prologue_copy_maps(const CopyTiles& t, const std::string& s, int stages, bool leads) {
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
  isl::union_map b = inside_k.apply_range(statement_map(buffer, t.b_block.offset, copy_statement_name(s, "B_to_shared")));
  if (!leads) return b;
  std::string commit = copy_statement_name(s, "commit_shared");
  return isl::union_map(inside_k.apply_range(statement_map(buffer, t.a_block.offset, copy_statement_name(s, "A_to_shared"))))
      .unite(b)
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

isl::union_map fragment_maps(const CopyTiles& t, const std::string& s, int stages, bool leads) {
  isl::ctx ctx = t.a_block.offset.ctx();
  int depth = t.a_warp.prefix_depth;
  isl::multi_aff to_block = keep_first(ctx, depth, t.a_block.prefix_depth);
  isl::multi_aff a_rel = t.a_warp.offset.sub(t.a_block.offset.pullback(to_block));
  isl::multi_aff b_rel = t.b_warp.offset.sub(t.b_block.offset.pullback(to_block));
  isl::multi_aff buffer = prefix_function(ctx, depth, buffer_of_kstep(t.a_block.prefix_depth - 1, stages, 0));
  isl::union_map b = statement_map(buffer, b_rel, copy_statement_name(s, "B_to_fragments"));
  if (!leads) return b;
  return isl::union_map(statement_map(buffer, a_rel, copy_statement_name(s, "A_to_fragments"))).unite(b);
}

isl::schedule insert_copies(const isl::schedule& schedule, const KernelPlan& plan, const GpuOptions& options) {
  isl::schedule current = schedule;
  const std::vector<MatmulGroup> groups = plan.matmul_groups();
  for (const MatmulGroup& group : groups) {
    // The matmuls of one k-loop: the leader copies A (tile and fragments) and owns the
    // commit, wait, release and drain statements; every member copies its own B.
    const MatmulStage& lead = group.leader();
    const std::string& s = lead.dims.statement;
    std::vector<CopyTiles> tiles;  // all from the tree before it changes
    for (const MatmulStage* mm : group.members) tiles.push_back(copy_tiles(matmul_nodes(current, *mm), plan, *mm));
    const MatmulNodes lead_nodes = matmul_nodes(current, lead);
    const int stages = marks::is_mark(lead_nodes.kstep_mark.child(0), marks::prefetch) ? options.stages : 1;

    // Fragments of each k-slice right before each member's macro-MMAs (A once, before the
    // leader's), then the block's copies of each k-step before the warps' work.
    std::vector<std::string> copies{copy_statement_name(s, "A_to_shared")};
    isl::union_map block_copies = block_copy_maps(tiles[0], s, stages, true, landed_prologue(group));
    isl::union_map prologue_copies = stages > 1 ? prologue_copy_maps(tiles[0], s, stages, true) : block_copies;
    for (size_t i = 0; i < group.members.size(); ++i) {
      const std::string& member = group.members[i]->dims.statement;
      const bool leads = i == 0;
      std::vector<std::string> fragments{copy_statement_name(member, "B_to_fragments")};
      if (leads) fragments.insert(fragments.begin(), copy_statement_name(s, "A_to_fragments"));
      isl::schedule_node kslice = matmul_nodes(current, *group.members[i]).below_kslice;
      current = kslice.graft_before(extension_tree(fragment_maps(tiles[i], member, stages, leads), fragments)).schedule();
      copies.push_back(copy_statement_name(member, "B_to_shared"));
      if (leads) continue;  // the leader's maps are above
      block_copies = block_copies.unite(block_copy_maps(tiles[i], member, stages, false, LandedPrologue::none));
      if (stages > 1) prologue_copies = prologue_copies.unite(prologue_copy_maps(tiles[i], member, stages, false));
    }
    copies.push_back(copy_statement_name(s, "commit_shared"));
    std::vector<std::string> order = copies;
    if (stages == 1) order.push_back(copy_statement_name(s, "wait_shared"));
    else order.insert(order.begin(), copy_statement_name(s, "wait_shared"));
    isl::schedule_node at = matmul_nodes(current, lead).below_kstep.graft_before(extension_tree(block_copies, order));
    if (stages == 1) at = at.graft_after(extension_tree(release_map(tiles[0], s), {copy_statement_name(s, "release_shared")}));

    // The ring's prologue before the k-step loop, its drain barrier right after it; the
    // accumulators are loaded before (for `+=`) and stored after (when live-out).
    at = matmul_nodes(at.schedule(), lead).kstep_mark;
    if (stages > 1) at = at.graft_before(extension_loop_tree(prologue_copies, copies, marks::pipeline_prologue));
    for (size_t i = 0; i < group.members.size(); ++i) {
      const MatmulStage& mm = *group.members[i];
      const std::string& member = mm.dims.statement;
      if (!mm.zero_init) {
        std::string name = copy_statement_name(member, "C_to_accumulators");
        at = at.graft_before(extension_tree(tiles[i].c_block.offset.as_map().set_range_tuple(name), {name}));
      }
      if (mm.live_out) {
        std::string name = copy_statement_name(member, "accumulators_to_C");
        at = at.graft_after(extension_tree(tiles[i].c_block.offset.as_map().set_range_tuple(name), {name}));
      }
      if (options.split_k > 1 && !plan.epilogue.empty()) {  // before the store above and the epilogue
        std::string name = copy_statement_name(member, "reduce_split_k");
        at = at.graft_after(extension_tree(tiles[i].c_block.offset.as_map().set_range_tuple(name), {name}));
      }
    }
    // Grafted last: right after the loop. Shared memory is reused after it by the next
    // k-loop's ring, or by the accumulator scratch, which overlaps the ring when the kernel
    // has one k-loop and lies beyond it otherwise (codegen/cuda_kernel_layout.cc): after
    // the last of several k-loops nothing reuses the ring.
    const bool last_of_several = groups.size() > 1 && &group == &groups.back();
    if (stages > 1 && !last_of_several)
      at = at.graft_after(extension_tree(drain_map(tiles[0], s), {copy_statement_name(s, "drain_shared")}));
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
