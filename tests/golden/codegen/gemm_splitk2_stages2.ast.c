if (M >= 64 * blockIdx_y + 64 && N >= 64 * blockIdx_x + 64) {
  // full blocks
// kernel
// block
{
  // pipeline_prologue
  {
    S0_A_to_shared(0, 64 * blockIdx_y, 0);
    S0_B_to_shared(0, 0, 64 * blockIdx_x);
    S0_commit_shared(0);
  }
  // kstep
  // prefetch
  for (int c2 = 0; c2 <= (K - 1) / 32; c2 += 1) {
    S0_wait_shared(c2 % 2, 0);
    if (K >= 32 * c2 + 33) {
      S0_A_to_shared((c2 + 1) % 2, 64 * blockIdx_y, 32 * c2 + 32);
      S0_B_to_shared((c2 + 1) % 2, 32 * c2 + 32, 64 * blockIdx_x);
    }
    S0_commit_shared(c2 + 1);
    if (K >= 16 * warp_k + 32 * c2 + 1) {
      // warp
      {
        S0_A_to_fragments(c2 % 2, 32 * warp_y, 16 * warp_k);
        S0_B_to_fragments(c2 % 2, 16 * warp_k, 32 * warp_x);
        // mma
        for (int c7 = 0; c7 <= 31; c7 += 16)
          for (int c8 = 0; c8 <= 31; c8 += 8)
            S0(64 * blockIdx_y + 32 * warp_y + c7, 64 * blockIdx_x + 32 * warp_x + c8, 16 * warp_k + 32 * c2);
      }
    }
  }
  S0_drain_shared();
  S0_accumulators_to_C(64 * blockIdx_y, 64 * blockIdx_x);
}
} else {
  // edge blocks
// kernel
// block
{
  // pipeline_prologue
  {
    S0_A_to_shared(0, 64 * blockIdx_y, 0);
    S0_B_to_shared(0, 0, 64 * blockIdx_x);
    S0_commit_shared(0);
  }
  // kstep
  // prefetch
  for (int c2 = 0; c2 <= (K - 1) / 32; c2 += 1) {
    S0_wait_shared(c2 % 2, 0);
    if (K >= 32 * c2 + 33) {
      S0_A_to_shared((c2 + 1) % 2, 64 * blockIdx_y, 32 * c2 + 32);
      S0_B_to_shared((c2 + 1) % 2, 32 * c2 + 32, 64 * blockIdx_x);
    }
    S0_commit_shared(c2 + 1);
    if (M >= 64 * blockIdx_y + 32 * warp_y + 1 && N >= 64 * blockIdx_x + 32 * warp_x + 1 && K >= 16 * warp_k + 32 * c2 + 1) {
      // warp
      {
        S0_A_to_fragments(c2 % 2, 32 * warp_y, 16 * warp_k);
        S0_B_to_fragments(c2 % 2, 16 * warp_k, 32 * warp_x);
        // mma
        for (int c7 = 0; c7 <= min(31, M - 64 * blockIdx_y - 32 * warp_y - 1); c7 += 16)
          for (int c8 = 0; c8 <= min(31, N - 64 * blockIdx_x - 32 * warp_x - 1); c8 += 8)
            S0(64 * blockIdx_y + 32 * warp_y + c7, 64 * blockIdx_x + 32 * warp_x + c8, 16 * warp_k + 32 * c2);
      }
    }
  }
  S0_drain_shared();
  S0_accumulators_to_C(64 * blockIdx_y, 64 * blockIdx_x);
}
}
