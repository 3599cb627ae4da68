#include "codegen/register_tiles.h"

#include <algorithm>
#include <set>

#include "frontend/diagnostics.h"

namespace polyfuse {

const std::string& RegisterTiles::of(const std::string& tensor) const {
  auto found = storage.find(tensor);
  PF_INTERNAL_CHECK(found != storage.end(), "no register tile holds " + tensor);
  return found->second;
}

RegisterTiles plan_register_tiles(const KernelPlan& plan, const EpilogueReads& epilogue_reads) {
  const std::vector<std::vector<std::string>>& reads = epilogue_reads.by_statement;
  RegisterTiles tiles;
  std::map<std::string, std::string> owner;  // tile -> the tensor it holds now
  for (const MatmulStage& mm : plan.matmuls) {
    if (!mm.accumulates_into.empty()) {  // one tile for both sums (codegen/added_matmuls.h)
      tiles.storage[mm.c] = tiles.of(mm.accumulates_into);
      continue;
    }
    std::string name = plan.matmuls.size() == 1 ? "acc" : "acc_" + mm.c;
    tiles.storage[mm.c] = name;
    tiles.declared.push_back(name);
    owner[name] = mm.c;
  }
  // A live-out result keeps its tile: a kernel may store it after the epilogue (the implicit
  // GEMM's store of the accumulators does), and an epilogue written over it would be stored in
  // its place (found by scripts/random-programs: a convolution's output with a dead epilogue).
  std::set<std::string> live_out;
  for (const MatmulStage& mm : plan.matmuls)
    if (mm.live_out) live_out.insert(mm.c);
  for (const PointwiseStage& stage : plan.epilogue)
    if (stage.live_out) live_out.insert(stage.output);
  // Every reference to a tensor names one tile for the whole kernel (the k-loop's MMAs, each
  // statement's reads and writes), so a tensor written again (an update in place, `C = C * 2`)
  // keeps its tile, and a tile passes to another result only from a tensor that no later
  // statement reads or writes (found by scripts/random-programs: after `C5 = gelu(C5)`,
  // `C5 = C3 + C5` took C3's accumulators, and C5's MMAs then summed into C3's tile).
  // A row chain fused after the epilogue reads its tensors from their tiles too (found by
  // scripts/random-programs: `P5 = C3 * 2` took C3's accumulators, and the chain's
  // `S6 +=! C3`, `E7 = C3 - S6` then read P5).
  const std::vector<std::string>& chain = epilogue_reads.after_epilogue;
  auto touched_later = [&](const std::string& tensor, size_t after) {
    if (std::find(chain.begin(), chain.end(), tensor) != chain.end()) return true;
    for (size_t s = after + 1; s < reads.size(); ++s)
      if (std::find(reads[s].begin(), reads[s].end(), tensor) != reads[s].end() || plan.epilogue[s].output == tensor)
        return true;
    return false;
  };
  for (size_t s = 0; s < plan.epilogue.size(); ++s) {
    const std::string& output = plan.epilogue[s].output;
    std::string chosen;
    if (const auto own = tiles.storage.find(output); own != tiles.storage.end()) {
      chosen = own->second;  // an update in place: its own tile
    } else {
      for (const auto& [tile, tensor] : owner)
        if (std::find(reads[s].begin(), reads[s].end(), tensor) != reads[s].end() && !touched_later(tensor, s) &&
            !live_out.count(tensor)) {  // a live-out result is overwritten only by its own update
          chosen = tile;
          break;
        }
    }
    if (chosen.empty()) {
      chosen = output + "_tile";
      tiles.declared.push_back(chosen);
    }
    tiles.storage[output] = chosen;
    owner[chosen] = output;
  }
  return tiles;
}

}  // namespace polyfuse
