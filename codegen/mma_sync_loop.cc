#include "codegen/mma_sync_loop.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_epilogue.h"
#include "frontend/diagnostics.h"

namespace polyfuse {

CudaKernelLayout half_layout(const Program& program, const KernelPlan& plan, const GpuOptions& o) {
  CudaKernelLayout layout = cuda_kernel_layout(plan, o, epilogue_reads(program, plan, {}));
  const std::string acc = "acc_" + plan.matmuls[0].c;
  for (auto& entry : layout.registers.storage)
    if (entry.second == "acc") entry.second = acc;
  for (std::string& name : layout.registers.declared)
    if (name == "acc") name = acc;
  return layout;
}

std::string check_code(bool rows, bool cols) { return std::to_string((rows ? 1 : 0) | (cols ? 2 : 0)); }

std::string scaled(int scale, const std::string& step) {
  if (step == "0") return "0";
  return step.find(' ') == std::string::npos ? fmt::format("{} * {}", scale, step) : fmt::format("{} * ({})", scale, step);
}

std::string stage_at(int base, const std::string& stage, int bytes) {
  if (stage == "0") return base ? fmt::format("smem + {}", base) : "smem";
  return base ? fmt::format("smem + {} + {} * {}", base, stage, bytes) : fmt::format("smem + {} * {}", stage, bytes);
}

std::string indented(const std::string& text, int indent) {
  std::string out, pad(indent, ' ');
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += (end > start ? pad : "") + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string k_loop(int steps, int stages, const StepText& copies, const StageText& compute) {
  return k_loop(std::to_string(steps), stages, copies, compute);
}

std::string k_loop(const std::string& steps, int stages, const StepText& copies, const StageText& compute) {
  std::string text;
  if (stages == 1) {
    text += "// one shared stage: copy, wait, one barrier, the MMAs, one barrier\n";
    text += fmt::format("#pragma unroll 1\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", steps);
    text += indented(copies("k_step", "0"), 2);
    text += "  pf::cp_async_commit();\n  pf::cp_async_wait<0>();\n  __syncthreads();\n";
    text += indented(compute("0"), 2);
    text += "  __syncthreads();\n}\n";
    return text;
  }
  if (stages == 2) {
    text += "// pipeline prologue: the copies of k-step 0 into stage 0, one commit group\n";
    text += copies("0", "0");
    text += "pf::cp_async_commit();\n";
  } else {
    text += fmt::format("// pipeline prologue: the copies of k-steps 0..{} into stages 0..{}, one commit group each "
                        "(empty past the end)\n",
                        stages - 2, stages - 2);
    text += fmt::format("#pragma unroll\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", stages - 1);
    text += fmt::format("  if (k_step < {}) {{\n", steps);
    text += indented(copies("k_step", "k_step"), 4);
    text += "  }\n  pf::cp_async_commit();\n}\n";
  }
  text += fmt::format("// {} shared stages: wait for k-step i's copies, one barrier, then the copies of k-step i+{} "
                      "into the stage k-step i-1 read, overlapping the MMAs of k-step i\n",
                      stages, stages - 1);
  text += fmt::format("#pragma unroll 1\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", steps);
  text += fmt::format("  pf::cp_async_wait<{}>();\n  __syncthreads();\n", stages - 2);
  text += fmt::format("  if (k_step + {} < {}) {{\n", stages - 1, steps);
  text += indented(copies(fmt::format("k_step + {}", stages - 1), fmt::format("((k_step + {}) % {})", stages - 1, stages)), 4);
  text += "  }\n  pf::cp_async_commit();\n";
  text += indented(compute(fmt::format("(k_step % {})", stages)), 2);
  text += "}\n";
  return text;
}

std::string mmas(const std::string& type, const std::string& acc, int k_step, const FragmentLoad& a,
                 const FragmentLoad& b, int fragments_n, bool b_column_major, const std::string& f32_mode) {
  const std::string f32 = f32_mode.empty() ? "" : "_f32";
  std::string text = fmt::format("#pragma unroll\nfor (int k_slice = 0; k_slice < {}; ++k_slice) {{\n", k_step / 16);
  text += fmt::format("  pf::load_frag_a{}<pf::Layout::row, pf::Swizzle::xor16, {}, 2>({}, {}, 32 * warp_y, {});\n", f32,
                      a.cols, a.fragments, a.tile, a.origin);
  text += fmt::format("  pf::load_frag_b{}<pf::Layout::{}, pf::Swizzle::xor16, {}, {}>({}, {}, 16 * k_slice, {});\n", f32,
                      b_column_major ? "col" : "row", b.cols, fragments_n, b.fragments, b.tile, b.origin);
  text += "  #pragma unroll\n  for (int i = 0; i < 2; ++i) {\n";
  const std::string mma = f32_mode.empty() ? fmt::format("pf::mma_fragment<{}>", type)
                                           : fmt::format("pf::mma_fragment_f32<{}>", f32_mode);
  text += fmt::format("    #pragma unroll\n    for (int j = 0; j < {}; ++j) {}({}, i, j, {}[i], {}[j]);\n",
                      fragments_n, mma, acc, a.fragments, b.fragments);
  text += "  }\n}\n";
  return text;
}

std::string epilogue(const MatmulHalf& half, const GpuOptions& o, const std::string& col, const std::string& code) {
  if (half.plan.epilogue.empty()) return "";
  const CudaStatementContext context{half.program, half.plan, o, half.layout};
  std::string body;
  for (const PointwiseStage& stage : half.plan.epilogue)
    body += print_epilogue_instance(context, stage,
                                    {"frag_m", "frag_n", "row0 + 32 * warp_y + 16 * frag_m",
                                     fmt::format("{} + 8 * frag_n", col), code}) +
            "\n";
  std::string text = "#pragma unroll\nfor (int frag_m = 0; frag_m < 2; ++frag_m) {\n";
  text += fmt::format("  #pragma unroll\n  for (int frag_n = 0; frag_n < {}; ++frag_n) {{\n", half.fragments_n);
  text += indented(body, 4);
  text += "  }\n}\n";
  return text;
}

std::string other_tiles(const MatmulHalf& half) {
  std::string text;
  for (const std::string& tile : half.layout.registers.declared)
    if (tile != half.layout.registers.of(half.plan.matmuls[0].c))
      text += fmt::format("pf::AccTile16816<2, {}> {};  // epilogue results\n", half.fragments_n, tile);
  return text;
}

void refuse_split_k_and_other_mma(const GpuOptions& options, const std::string& kernel, const std::string& name) {
  if (options.split_k != 1)
    throw UserError(fmt::format("`split_k` {}: {} {} is built from m16n8k16 MMAs without split-K", options.split_k,
                                kernel, name));
  if (options.mma != MmaShape::m16n8k16)
    throw UserError(fmt::format("`mma` {}: {} {} is built from m16n8k16 MMAs without split-K",
                                to_string(options.mma), kernel, name));
}

std::string signature(const std::vector<KernelParameter>& parameters) {
  std::vector<std::string> parts;
  for (const KernelParameter& p : parameters)
    parts.push_back(p.tma_box.empty() ? p.c_type + " __restrict__ " + p.name : p.c_type + " " + p.name + "_map");
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace polyfuse
