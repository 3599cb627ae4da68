if (M >= 64 * blockIdx_y + 64 && N >= 64 * blockIdx_x + 64) {
  // full blocks
// kernel
// block
{
  // kstep
  for (int c2 = 0; c2 <= (K - 1) / 32; c2 += 1) {
    S0_A_to_shared(0, 64 * blockIdx_y, 32 * c2);
    S0_B_to_shared(0, 32 * c2, 64 * blockIdx_x);
    S0_commit_shared(c2);
    S0_wait_shared(0, 0);
    // warp
    for (int c5 = 0; c5 <= min(1, -2 * c2 + (K - 1) / 16); c5 += 1) {
      S0_A_to_fragments(0, 32 * warp_y, 16 * c5);
      S0_B_to_fragments(0, 16 * c5, 32 * warp_x);
      // mma
      for (int c6 = 0; c6 <= 31; c6 += 16)
        for (int c7 = 0; c7 <= 31; c7 += 8)
          S0(64 * blockIdx_y + 32 * warp_y + c6, 64 * blockIdx_x + 32 * warp_x + c7, 32 * c2 + 16 * c5);
    }
    S0_release_shared(0);
  }
  S0_accumulators_to_C(64 * blockIdx_y, 64 * blockIdx_x);
}
} else {
  // edge blocks
// kernel
// block
{
  // kstep
  for (int c2 = 0; c2 <= (K - 1) / 32; c2 += 1) {
    S0_A_to_shared(0, 64 * blockIdx_y, 32 * c2);
    S0_B_to_shared(0, 32 * c2, 64 * blockIdx_x);
    S0_commit_shared(c2);
    S0_wait_shared(0, 0);
    if (M >= 64 * blockIdx_y + 32 * warp_y + 1 && N >= 64 * blockIdx_x + 32 * warp_x + 1) {
      // warp
      for (int c5 = 0; c5 <= min(1, -2 * c2 + (K - 1) / 16); c5 += 1) {
        S0_A_to_fragments(0, 32 * warp_y, 16 * c5);
        S0_B_to_fragments(0, 16 * c5, 32 * warp_x);
        // mma
        for (int c6 = 0; c6 <= min(31, M - 64 * blockIdx_y - 32 * warp_y - 1); c6 += 16)
          for (int c7 = 0; c7 <= min(31, N - 64 * blockIdx_x - 32 * warp_x - 1); c7 += 8)
            S0(64 * blockIdx_y + 32 * warp_y + c6, 64 * blockIdx_x + 32 * warp_x + c7, 32 * c2 + 16 * c5);
      }
    }
    S0_release_shared(0);
  }
  S0_accumulators_to_C(64 * blockIdx_y, 64 * blockIdx_x);
}
}
