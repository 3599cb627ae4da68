if (M >= 64 * blockIdx_y + 64 && N >= 64 * blockIdx_x + 64) {
  // full blocks
// kernel
// block
{
  // pipeline_prologue
  {
    S0_A_to_shared(0, blockIdx_z, 64 * blockIdx_y, 0);
    S0_B_to_shared(0, blockIdx_z, 0, 64 * blockIdx_x);
    S0_commit_shared(0);
  }
  // kstep
  // prefetch
  for (int c3 = 0; c3 <= (K - 1) / 32; c3 += 1) {
    S0_wait_shared(c3 % 2, 0);
    if (K >= 32 * c3 + 33) {
      S0_A_to_shared((c3 + 1) % 2, blockIdx_z, 64 * blockIdx_y, 32 * c3 + 32);
      S0_B_to_shared((c3 + 1) % 2, blockIdx_z, 32 * c3 + 32, 64 * blockIdx_x);
    }
    S0_commit_shared(c3 + 1);
    // warp
    for (int c6 = 0; c6 <= min(1, -2 * c3 + (K - 1) / 16); c6 += 1) {
      S0_A_to_fragments(c3 % 2, 0, 32 * warp_y, 16 * c6);
      S0_B_to_fragments(c3 % 2, 0, 16 * c6, 32 * warp_x);
      // mma
      for (int c7 = 0; c7 <= 31; c7 += 16)
        for (int c8 = 0; c8 <= 31; c8 += 8)
          S0(blockIdx_z, 64 * blockIdx_y + 32 * warp_y + c7, 64 * blockIdx_x + 32 * warp_x + c8, 32 * c3 + 16 * c6);
    }
  }
  S0_drain_shared();
  S0_accumulators_to_C(blockIdx_z, 64 * blockIdx_y, 64 * blockIdx_x);
}
} else {
  // edge blocks
// kernel
// block
{
  // pipeline_prologue
  {
    S0_A_to_shared(0, blockIdx_z, 64 * blockIdx_y, 0);
    S0_B_to_shared(0, blockIdx_z, 0, 64 * blockIdx_x);
    S0_commit_shared(0);
  }
  // kstep
  // prefetch
  for (int c3 = 0; c3 <= (K - 1) / 32; c3 += 1) {
    S0_wait_shared(c3 % 2, 0);
    if (K >= 32 * c3 + 33) {
      S0_A_to_shared((c3 + 1) % 2, blockIdx_z, 64 * blockIdx_y, 32 * c3 + 32);
      S0_B_to_shared((c3 + 1) % 2, blockIdx_z, 32 * c3 + 32, 64 * blockIdx_x);
    }
    S0_commit_shared(c3 + 1);
    if (M >= 64 * blockIdx_y + 32 * warp_y + 1 && N >= 64 * blockIdx_x + 32 * warp_x + 1) {
      // warp
      for (int c6 = 0; c6 <= min(1, -2 * c3 + (K - 1) / 16); c6 += 1) {
        S0_A_to_fragments(c3 % 2, 0, 32 * warp_y, 16 * c6);
        S0_B_to_fragments(c3 % 2, 0, 16 * c6, 32 * warp_x);
        // mma
        for (int c7 = 0; c7 <= min(31, M - 64 * blockIdx_y - 32 * warp_y - 1); c7 += 16)
          for (int c8 = 0; c8 <= min(31, N - 64 * blockIdx_x - 32 * warp_x - 1); c8 += 8)
            S0(blockIdx_z, 64 * blockIdx_y + 32 * warp_y + c7, 64 * blockIdx_x + 32 * warp_x + c8, 32 * c3 + 16 * c6);
      }
    }
  }
  S0_drain_shared();
  S0_accumulators_to_C(blockIdx_z, 64 * blockIdx_y, 64 * blockIdx_x);
}
}
