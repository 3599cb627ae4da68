// Data tiles (paper §V-1): the part of a tensor that the statement instances below a
// schedule node touch for one value of the node's prefix schedule, as a fixed box —
// an offset affine in the prefix schedule and constant sizes (isl's simple fixed box
// hull, as Tensor Comprehensions computes its promotions).
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace polyfuse {

// The tile of one tensor accessed below a node.
struct DataTile {
  isl::multi_aff offset;      // [prefix...] -> [tensor index...]: the tile's first element
  std::vector<int> sizes;     // extent along each tensor dimension
  int prefix_depth = 0;       // number of prefix schedule dimensions
};

// The tile of `access` (statement instance -> tensor element) touched below `node`
// per prefix point. InternalError when the footprint has no fixed-size box.
DataTile data_tile(const isl::schedule_node& node, const isl::map& access);

// The points of the prefix schedule at `node` that `statement_domain` reaches.
isl::set prefix_points(const isl::schedule_node& node, const isl::set& statement_domain);

}  // namespace polyfuse
