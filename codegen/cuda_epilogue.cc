#include "codegen/cuda_epilogue.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "codegen/cuda_addressing.h"
#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

namespace {

// How one read of an epilogue statement gets its four values.
struct Operand {
  std::string variable;  // C name of the values (a float pointer or a 1x1 tile)
  std::string setup;     // lines that make them available
  std::string element;   // C expression of element e
};

Operand operand_of(const CudaStatementContext& c, const Statement& statement, const StatementDims& dims, int read,
                   const std::vector<std::string>& args) {
  const Access& access = statement.reads[read];
  const std::string& fi = args[0];
  const std::string& fj = args[1];
  if (c.layout.registers.storage.count(access.tensor)) {  // a matmul or earlier epilogue result
    std::string v = access.tensor + "_values";
    return {v, fmt::format("const float* {} = {}.frag({}, {});", v, c.layout.registers.of(access.tensor), fi, fj),
            v + "[e]"};
  }
  // A vector staged in shared memory once per block: the fragment's values from there.
  const TileShape fragment = accumulator_fragment(c.options.mma);
  for (bool along_n : {true, false}) {
    const StagedVector* staged = c.layout.staged_vector(access.tensor, along_n);
    if (!staged || access.indices != std::vector<std::string>{along_n ? dims.n : dims.m}) continue;
    std::string v = fmt::format("{}_values{}", access.tensor, read);
    std::string load = along_n ? fmt::format("pf::load_staged_cols({}, smem + {}, {} * warp_x + {} * {});", v, staged->offset,
                                             c.options.warp.n, fragment.n, grouped(fj))
                               : fmt::format("pf::load_staged_rows({}, smem + {}, {} * warp_y + {} * {});", v, staged->offset,
                                             c.options.warp.m, fragment.m, grouped(fi));
    return {v, fmt::format("{} {};\n{}", c.layout.fragment_tile_type(), v, load), v + ".v[e]"};
  }
  // A scalar (`alpha * C(m, n)`): one value for every element.
  if (access.indices.empty()) {
    std::string v = fmt::format("{}_value{}", access.tensor, read);
    return {v, fmt::format("const float {} = pf::to_float(pf::ldg({}));", v, access.tensor), v};
  }
  // An input tensor: its index of the fragment's first element, from the statement's.
  std::map<std::string, std::string> origin_of;
  for (size_t i = 0; i < dims.batch.size(); ++i) origin_of[dims.batch[i]] = args[2 + i];
  origin_of[dims.m] = args[args.size() - 3];
  origin_of[dims.n] = args[args.size() - 2];
  std::vector<std::string> origin;
  for (const std::string& index : access.indices) origin.push_back(origin_of.at(index));
  std::vector<std::string> ext = tensor_extents(c.program, access.tensor);
  std::string v = fmt::format("{}_values{}", access.tensor, read);
  std::string pointer = address(access.tensor, element_offset(origin, ext));
  size_t r = access.indices.size();
  std::string last = access.indices[r - 1];
  std::string before_last = r >= 2 ? access.indices[r - 2] : "";
  std::string check = check_argument(args.back());  // of the fragment's rows and columns
  auto reads_index = [&](const std::string& index) {
    return std::find(access.indices.begin(), access.indices.end(), index) != access.indices.end();
  };
  std::string load;
  std::string width = row_width(c.program, access.tensor);
  if (last == dims.n && before_last == dims.m)
    load = fmt::format("pf::load_matrix<{}, {}>({}, {}, {}, {}, {});", check, width, v, pointer, ext[r - 1],
                       remaining(ext[r - 2], origin[r - 2]), remaining(ext[r - 1], origin[r - 1]));
  else if (last == dims.n && !reads_index(dims.m))
    load = fmt::format("pf::load_broadcast_cols<{}, {}>({}, {}, {});", check, width, v, pointer,
                       remaining(ext[r - 1], origin[r - 1]));
  else if (last == dims.m && !reads_index(dims.n))
    load = fmt::format("pf::load_broadcast_rows<{}>({}, {}, {});", check, v, pointer, remaining(ext[r - 1], origin[r - 1]));
  else
    throw UserError({Diagnostic{c.program.file, access.location.line, access.location.col,
                                fmt::format("epilogue operand {}: an epilogue reads a tensor indexed by the result's "
                                            "row and column indices in that order (last), or a vector broadcast along "
                                            "one of them",
                                            access.tensor)}});
  return {v, fmt::format("{} {};\n{}", c.layout.fragment_tile_type(), v, load), v + ".v[e]"};
}

}  // namespace

std::string print_epilogue_instance(const CudaStatementContext& c, const PointwiseStage& stage,
                                    const std::vector<std::string>& args) {
  const Statement* statement = c.program.find_statement(stage.dims.statement);
  PF_INTERNAL_CHECK(statement != nullptr, "no statement " + stage.dims.statement);
  std::vector<Operand> operands;
  std::string text = fmt::format("{{  // {}: {} on fragment ({}, {})\n", statement->id, print_statement_source(*statement),
                                 args[0], args[1]);
  std::map<std::string, std::string> done;  // setups already emitted (a tensor read twice)
  for (size_t r = 0; r < statement->reads.size(); ++r) {
    Operand o = operand_of(c, *statement, stage.dims, static_cast<int>(r), args);
    if (done.emplace(o.variable, o.setup).second)
      for (std::string line; !o.setup.empty();) {
        size_t end = o.setup.find('\n');
        line = o.setup.substr(0, end);
        text += "  " + line + "\n";
        o.setup = end == std::string::npos ? "" : o.setup.substr(end + 1);
      }
    operands.push_back(o);
  }
  text += fmt::format("  float* {}_out = {}.frag({}, {});\n", stage.output, c.layout.registers.of(stage.output), args[0],
                      args[1]);
  const auto element = [&](int read) { return operands[static_cast<std::size_t>(read)].element; };
  text += "  #pragma unroll\n";
  if (!contains_kind(statement->expr, ExprKind::index)) {
    text += fmt::format("  for (int e = 0; e < {}; ++e) {}_out[e] = {};\n", c.layout.values_per_fragment, stage.output,
                        as_read_back(c.program, *statement, c_expression(statement->expr, element)));
    return text + "}";
  }
  // Index values (a causal mask's `t <= s`): element e's row and column from the fragment
  // layout, added to the fragment's origin (args: fi, fj, batch origins.., m origin, n origin).
  const StatementDims& dims = stage.dims;
  const auto index = [&](const std::string& name) -> std::string {
    if (name == dims.m) return fmt::format("({} + pf_row)", args[args.size() - 3]);
    if (name == dims.n) return fmt::format("({} + pf_col)", args[args.size() - 2]);
    for (std::size_t i = 0; i < dims.batch.size(); ++i)
      if (name == dims.batch[i]) return fmt::format("({})", args[2 + i]);
    PF_INTERNAL_CHECK(false, "an epilogue's index value names one of its batch, row and column indices (plan_gpu_kernel)");
    return "";
  };
  text += fmt::format("  for (int e = 0; e < {}; ++e) {{\n", c.layout.values_per_fragment);
  text += "    int pf_row, pf_col;  // element e of the fragment: its row and column in it\n";
  text += fmt::format("    {}::coord(pf::lane_id(), e, pf_row, pf_col);\n", c.layout.fragment_tile_type());
  text += fmt::format("    {}_out[e] = {};\n  }}\n", stage.output,
                      as_read_back(c.program, *statement, c_expression(statement->expr, element, index)));
  return text + "}";
}

std::string print_epilogue_store(const CudaStatementContext& c, const PointwiseStage& stage,
                                 const std::vector<std::string>& args) {
  return print_tile_store(c, c.layout.registers.of(stage.output), stage.output, args);
}

}  // namespace polyfuse
