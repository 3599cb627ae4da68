// The fused pointwise epilogue of the sm_90a kernel (hopper_gemm_kernel.h) on a consumer
// warpgroup's staged accumulator tile, in chunks of E consecutive columns of a row (issue 18
// item 4: 128-bit epilogue loads and stores).
//
// Thread t of the warpgroup takes the chunk of columns n0 + E (t % C) .. + E - 1 (C = bn / E
// chunks a row) of rows t / C, t / C + 128 / C, ...: its columns are the same in every row, so
// what the epilogue reads by the column (and batch) indices alone — bias(n) — is loaded once per
// tile, before the rows. Per row: the staged accumulators (E / 4 128-bit shared loads), what is
// read by the row index alone (scale(m), one load), and each tensor read by (m, n) with n its
// contiguous last index (a row start 16 bytes aligned: the last extent a multiple of 16 bytes;
// f32, f16, bf16) as one chunk of 128-bit loads (pf::ldg_chunk). Any other read (R(n, m),
// integer tensors, rows not aligned) is loaded element by element. Each statement is computed
// on the E elements, and each live-out is stored the same ways (pf::stg_chunk or element by
// element). A chunk that crosses the edge of C (the last columns, rows past M) loads and stores
// the elements inside alone (pf_epilogue_chunk.cuh); nothing outside is read or written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/program.h"
#include "schedule/kernel_plan.h"

namespace polyfuse {

struct HopperEpilogueTile {
  std::string row0;       // C expression: the first row of the warpgroup's 64-row tile ("m0", "m0 + 64 * wg")
  int bn = 128;           // columns of the tile (its first: n0), staged at pf::sm90::wg_staged_offset(bn, row, col)
  std::int64_t m = 0, n = 0;  // C's extents
  // Each matmul's result C and the float offset of its staged tile from `staging`.
  std::vector<std::pair<std::string, int>> staged;
};

// The loop over the warpgroup's tile computing `plan`'s epilogue (the accumulators already
// staged): each statement's value in `<tensor>_v[j]`, every live-out stored (a matmul's C too
// when it is one), batch indices recovered from `batch` where an access names them. Lines
// indented for the body of the tile loop.
std::string hopper_epilogue_tile(const Program& program, const KernelPlan& plan, const HopperEpilogueTile& tile);

// The columns of one chunk: 16 bytes of the narrowest tensor the epilogue moves in chunks (at
// least 4: the staged floats' 128-bit loads).
int hopper_epilogue_chunk(const Program& program, const KernelPlan& plan);

// One line for --emit=config: the chunk, how each live-out is stored and each tensor read
// ("128-bit", "element by element"; "once per tile" or "each row").
std::string describe_hopper_epilogue(const Program& program, const KernelPlan& plan);

}  // namespace polyfuse
