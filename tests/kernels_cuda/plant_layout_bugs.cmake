# Copies the kernels/cuda helper headers (SOURCE_DIR) to OUTPUT_DIR with deliberately wrong
# layouts planted, one per family of the layout oracle tests (expect_layout_mismatch.cmake
# checks that each is caught). Each bug is an exact text replacement; one that no longer
# applies (the helper's text changed) stops the build here, so a planted bug cannot silently
# disappear.
file(GLOB headers "${SOURCE_DIR}/*.cuh" "${SOURCE_DIR}/*.h")
foreach(path ${headers})
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" "text_${name}")
endforeach()

function(plant name old new why)
  string(FIND "${text_${name}}" "${old}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "plant_layout_bugs.cmake: the planted bug '${why}' no longer applies to ${name}: "
                        "its text changed; update the bug so that the oracle keeps a planted error to catch")
  endif()
  string(REPLACE "${old}" "${new}" changed "${text_${name}}")
  set("text_${name}" "${changed}" PARENT_SCOPE)
endfunction()

# 1. mma.m16n8k16 host model: A registers 1 and 2 swapped (a2, a3 read as a4, a5: rows 8..15
#    of k 0..7 taken for rows 0..7 of k 8..15).
plant(pf_mma_m16n8k16.cuh "const int reg = (row >> 3) + 2 * (k >> 3);" "const int reg = 2 * (row >> 3) + (k >> 3);"
      "m16n8k16 A register order")

# 2. ldmatrix .trans host model: the two halves of each destination register swapped.
plant(pf_ldmatrix.cuh "rows[8 * q + 2 * (lane % 4) + h] + 2 * (lane / 4)" "rows[8 * q + 2 * (lane % 4) + (1 - h)] + 2 * (lane / 4)"
      "ldmatrix .trans halves")
# 3. load_frag_a884: quad pair 3, the second copy of A rows 8..15, loads rows 0..7 (a loader
#    bug that hits a duplicated quad pair only).
plant(pf_mma_m8n8k4.cuh "const int mrow = m0 + 16 * i + 8 * (q & 1);" "const int mrow = m0 + 16 * i + 8 * (q == 1);"
      "macro A fragment of quad pair 3")
# 4. mma.m8n8k4 host model: the rows of a .row B read in reverse order.
plant(pf_mma_m8n8k4.cuh "(LB == Layout::col ? (col & 3) : k)" "(LB == Layout::col ? (col & 3) : 3 - k)"
      "m8n8k4 .row B rows")
# 5. Accumulator store: the two 8-column halves of each 16x16 piece written to each other's place.
plant(pf_accumulator_store.cuh "gcol = 16 * pn + 8 * half" "gcol = 16 * pn + 8 * (1 - half)" "accumulator store halves")

# 6. wgmma accumulator layout (WgAcc::wg_coord): the column takes the row-half bit for the
#    element bit.
plant(pf_wgmma.cuh "col = 8 * (i / 4) + 2 * (l % 4) + i % 2;" "col = 8 * (i / 4) + 2 * (l % 4) + (i / 2) % 2;"
      "wgmma accumulator column")
# 7. The TMA/wgmma swizzle: the line index taken one bit too low.
plant(pf_swizzle_sm90.cuh "return offset ^ (((offset >> 7) &" "return offset ^ (((offset >> 6) &" "sm90 swizzle line bits")
# 8. The matrix descriptor: the leading byte offset one bit too high.
plant(pf_wgmma_desc.cuh "(descriptor_encode(leading_bytes) << 16)" "(descriptor_encode(leading_bytes) << 17)"
      "descriptor LBO position")
# 9. The descriptor of an unswizzled M/N-major tile: LBO and SBO exchanged.
plant(pf_wgmma_desc.cuh "make_descriptor(start, 128u, static_cast<unsigned>(k_extent) * 16u, s)"
      "make_descriptor(start, static_cast<unsigned>(k_extent) * 16u, 128u, s)" "M/N-major interleave LBO/SBO")
# 10. The register-form A fragment load: matrices 1 and 2 address each other's rows.
plant(pf_wgmma_tile.cuh "16 * static_cast<int>(warp_in_warpgroup()) + 8 * (q & 1);"
      "16 * static_cast<int>(warp_in_warpgroup()) + 8 * (q >> 1);" "wgmma A fragment rows")

file(MAKE_DIRECTORY "${OUTPUT_DIR}")
foreach(path ${headers})
  get_filename_component(name "${path}" NAME)
  file(WRITE "${OUTPUT_DIR}/${name}" "${text_${name}}")
endforeach()
file(WRITE "${OUTPUT_DIR}/planted.stamp" "")
