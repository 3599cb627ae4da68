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

RegisterTiles plan_register_tiles(const KernelPlan& plan, const std::vector<std::vector<std::string>>& reads) {
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
  auto read_later = [&](const std::string& tensor, size_t after) {
    for (size_t s = after + 1; s < reads.size(); ++s)
      if (std::find(reads[s].begin(), reads[s].end(), tensor) != reads[s].end()) return true;
    return false;
  };
  // An update in place (`C = C * 2`) may overwrite its own tile even when C is read later: a later
  // read is of the new value.
  for (size_t s = 0; s < plan.epilogue.size(); ++s) {
    const std::string& output = plan.epilogue[s].output;
    std::string chosen;
    for (const auto& [tile, tensor] : owner)
      if (std::find(reads[s].begin(), reads[s].end(), tensor) != reads[s].end() &&
          (!read_later(tensor, s) || tensor == output) &&
          (!live_out.count(tensor) || tensor == output)) {  // a live-out result is overwritten only by its own update
        chosen = tile;
        break;
      }
    if (chosen.empty()) {
      // A fresh tile; a tensor written twice gets a second one (found by scripts/random-programs:
      // two updates of C, C read after them, declared C_tile twice).
      chosen = output + "_tile";
      for (int n = 2; std::find(tiles.declared.begin(), tiles.declared.end(), chosen) != tiles.declared.end(); ++n)
        chosen = output + "_tile" + std::to_string(n);
      tiles.declared.push_back(chosen);
    }
    tiles.storage[output] = chosen;
    owner[chosen] = output;
  }
  return tiles;
}

}  // namespace polyfuse
