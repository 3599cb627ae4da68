# The layout oracle tests (included by CMakeLists.txt).
#
# kernels_cuda_layout_oracle_tests: the oracle (layout_oracle.cc, no kernels/cuda include)
# and its tests, linked with the probe kernels (layout_oracle_kernels.cu) built from
# kernels/cuda as it is.
#
# kernels_cuda_layout_oracle_planted_bugs: the very same test objects linked with the same
# probe kernels built from a copy of the helper headers with deliberately wrong layouts
# (plant_layout_bugs.cmake writes it into the build folder; kernels/cuda stays clean). The
# ctests kernels_cuda_layout_oracle_catches_* run it and pass only when the oracle test of each
# planted bug fails with the mismatch it must report (expect_layout_mismatch.cmake).
add_library(layout_oracle_test_objects OBJECT
  layout_oracle.cc
  layout_oracle_cute_test.cc
  layout_oracle_mma_test.cc
  layout_oracle_ldmatrix_test.cc
  layout_oracle_store_test.cc
  layout_oracle_sm90.cc
  layout_oracle_sm90_test.cc)
target_link_libraries(layout_oracle_test_objects PRIVATE polyfuse_emu GTest::gtest polyfuse_warnings)
target_include_directories(layout_oracle_test_objects PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")

add_executable(kernels_cuda_layout_oracle_tests layout_oracle_kernels_host.cc layout_oracle_sm90_kernels_host.cc)
target_link_libraries(kernels_cuda_layout_oracle_tests PRIVATE layout_oracle_test_objects polyfuse_emu
                      GTest::gtest_main polyfuse_warnings)
set_target_properties(kernels_cuda_layout_oracle_tests PROPERTIES ENABLE_EXPORTS ON)
gtest_discover_tests(kernels_cuda_layout_oracle_tests TEST_PREFIX "kernels_cuda_layout_oracle."
                     DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)

set(planted_dir "${CMAKE_CURRENT_BINARY_DIR}/planted_layout_bugs")
add_custom_command(
  OUTPUT "${planted_dir}/planted.stamp"
  COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${POLYFUSE_CUDA_HELPERS_DIR} -DOUTPUT_DIR=${planted_dir}
          -P "${CMAKE_CURRENT_SOURCE_DIR}/plant_layout_bugs.cmake"
  DEPENDS ${POLYFUSE_CUDA_HELPER_HEADERS} "${CMAKE_CURRENT_SOURCE_DIR}/plant_layout_bugs.cmake"
  COMMENT "Planting layout bugs in a copy of the kernels/cuda helpers"
  VERBATIM)
add_custom_target(layout_oracle_planted_headers DEPENDS "${planted_dir}/planted.stamp")
add_executable(kernels_cuda_layout_oracle_planted_bugs layout_oracle_kernels_host.cc layout_oracle_sm90_kernels_host.cc)
# The planted copy comes first, so that "polyfuse_cuda.cuh" and everything it includes is
# read from there.
target_include_directories(kernels_cuda_layout_oracle_planted_bugs BEFORE PRIVATE "${planted_dir}")
target_link_libraries(kernels_cuda_layout_oracle_planted_bugs PRIVATE layout_oracle_test_objects polyfuse_emu
                      GTest::gtest_main polyfuse_warnings)
set_target_properties(kernels_cuda_layout_oracle_planted_bugs PROPERTIES ENABLE_EXPORTS ON)
add_dependencies(kernels_cuda_layout_oracle_planted_bugs layout_oracle_planted_headers)

# One ctest per planted bug: the gtest filter of the oracle test that must catch it, and the
# start of the mismatch line it must print (a regular expression).
function(layout_oracle_catches name filter expected)
  add_test(NAME kernels_cuda_layout_oracle_catches_${name}
    COMMAND "${CMAKE_COMMAND}" -DEXE=$<TARGET_FILE:kernels_cuda_layout_oracle_planted_bugs> "-DFILTER=${filter}"
            "-DEXPECTED=${expected}" -P "${CMAKE_CURRENT_SOURCE_DIR}/expect_layout_mismatch.cmake")
  set_tests_properties(kernels_cuda_layout_oracle_catches_${name} PROPERTIES TIMEOUT 300)
endfunction()
# The bugs planted by plant_layout_bugs.cmake, in its order.
layout_oracle_catches(m16n8k16_a_register_order "LayoutOracleMma.M16n8k16F16"
  "mma\\.m16n8k16 f16: A probe k = 0: accumulator lane 0 v\\[2\\] is C\\(8, 0\\) per the oracle and got A\\(0, 8\\)")
layout_oracle_catches(ldmatrix_trans_halves "Forms/LayoutOracleLdmatrix.EveryLaneAndRegister/x4_trans"
  "ldmatrix\\.x4_trans: lane 0 r0 low half holds matrix 0 \\(1, 0\\), oracle: matrix 0 \\(0, 0\\)")
layout_oracle_catches(macro_a_load_quad_pair_3 "Loads/LayoutOracleFragmentLoad.EveryLaneAndRegister/a884_row"
  "load_frag_a884_row: offsets \\(0, 0\\): lane 12 fragment 0 a0 \\(register 0, low half\\) holds A\\(0, 0\\), oracle: A\\(8, 0\\)")
layout_oracle_catches(m8n8k4_row_b_order "Layouts/LayoutOracleMacroMma.M16n16k8/row_row"
  "mma_16x16x8 row\\.row: A probe k = 0: accumulator lane 0 v\\[0\\] is C\\(0, 0\\) per the oracle and got A\\(0, 3\\)")
layout_oracle_catches(accumulator_store_halves "LayoutOracleAccumulatorStore.F32From16816"
  "store_accumulators<float, b128> AccTile16816<2, 4>: lane 0 v\\[0\\] belongs at \\(0, 0\\) \\(oracle\\), which holds lane 0 v\\[4\\]")
layout_oracle_catches(wgmma_accumulator_column "LayoutOracleSm90.FragmentCoordinates"
  "WgAcc::wg_coord: thread 0 d1 at \\(0, 0\\), oracle \\(0, 1\\)")
layout_oracle_catches(sm90_swizzle_line_bits "LayoutOracleSm90.Swizzles"
  "swizzle_offset: 32B offset 64 -> 80, oracle: 64 \\(CuTe Swizzle<1,4,3>\\), 64")
layout_oracle_catches(descriptor_lbo_position "LayoutOracleSm90.DescriptorBits"
  "make_descriptor: start 0 LBO 16 SBO 0 base 0 none: bit 16 is 0, oracle: 1")
# (bug 8 is planted too and doubles the LBO the oracle reads: 256 appears as 512)
layout_oracle_catches(mn_major_interleave_lbo_sbo "LayoutOracleSm90.TileDescriptorsDescribeTheTiles"
  "tile_descriptor/tile_offset MN-major none tile 64x16: rows 0\\.\\., k-step 0: element \\(0, 8\\) is at byte 128 of the tile, the descriptor \\(start 0, LBO 512, SBO 128\\) addresses byte 512")
layout_oracle_catches(wgmma_a_fragment_rows "LayoutOracleSm90.RegisterFragmentLoads"
  "load_wg_frag_a K-major none: k-step 0: thread 0 a2 holds A\\(0, 0\\), oracle: A\\(8, 0\\)")
