// The emulator's tensor maps: what its TMA (cp.async.bulk.tensor) reads from the 128 bytes of a
// CUtensorMap kernel parameter. A real CUtensorMap is opaque; this encoding holds the same
// parameters as cuTensorMapEncodeTiled, written by encode_tensor_map, which refuses a request
// that breaks one of the driver's rules (polyfuse::tma::check_tiled_map) exactly as the driver
// would, and one the emulator does not model. runtime/tma's encode_tiled is the one host API
// that chooses between this and the driver.
#pragma once

#include "runtime/tma/tensor_map_rules.h"

namespace polyfuse::emu {

// Throws EmulationError: "tensor map refused: <the broken rule>" (a driver rule) or "tensor map
// not modelled by the emulator: ..." (interleaved layouts, the 128B_ATOM swizzles, packed data
// types, the NaN fill, and a swizzled box whose inner dimension is narrower than the span).
tma::TensorMapBytes encode_tensor_map(const tma::TiledMapRequest& request);

}  // namespace polyfuse::emu
