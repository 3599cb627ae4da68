#include "codegen/cuda_memory_kernel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "codegen/access_offsets.h"
#include "codegen/cuda_expressions.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/memory_kernel_text.h"
#include "codegen/row_chain_kernel.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

constexpr int block_threads = 256;
constexpr int warps_per_block = block_threads / 32;
// A written element with more terms than this is reduced by a whole block, else by one warp.
constexpr std::int64_t warp_reduction_terms = 1024;

std::string index_id(const std::string& name) { return "i_" + name; }

std::string tensor_id(const std::string& name) { return memory_kernel_tensor_id(name); }

class MemoryKernelEmitter {
 public:
  explicit MemoryKernelEmitter(const Program& program) : program_(program) {}

  std::int64_t extent(const Size& size) const {
    const Size bound = bound_size(program_, size);
    PF_INTERNAL_CHECK(!bound.is_symbolic(), "a plan's memory kernel with unbound size " + bound.symbol);
    return bound.value;
  }

  std::vector<std::int64_t> shape(const Tensor& tensor) const {
    std::vector<std::int64_t> extents;
    for (const Size& dim : tensor.dims) extents.push_back(extent(dim));
    return extents;
  }

  // The row-major offset of `access` (a read of `s` or its write: a long long expression of
  // the index variables); a gathered position is the index tensor's element, checked
  // (pf::gather_index traps outside the dimension).
  std::string offset(const Access& access, const Statement& s) const {
    const GatherSyntax gather{"pf::gather_index", "long long", [&](int read) {
                                const Access& index = s.reads.at(static_cast<std::size_t>(read));
                                return fmt::format("pf::ldg(&{}[{}])", tensor_id(index.tensor), offset(index, s));
                              }};
    return row_major_offset(access, shape(*program_.find_tensor(access.tensor)), index_id, &gather);
  }

  bool is_local(const std::string& tensor) const { return program_.find_tensor(tensor)->role == TensorRole::temporary; }

  // A tensor read after this thread wrote its element in the loop body is read from the local.
  std::string load(const Access& access, const Statement& s) const {
    if (is_local(access.tensor) || declared_locals_.count(access.tensor)) return "v_" + access.tensor;
    const std::string element = fmt::format("pf::to_float(pf::ldg(&{}[{}]))", tensor_id(access.tensor), offset(access, s));
    // A read with a value outside its tensor (`where I = 0 outside`) loads only inside it.
    const std::string inside = inside_condition(access, shape(*program_.find_tensor(access.tensor)), index_id);
    return inside.empty() ? element : fmt::format("({} ? {} : {})", inside, element, c_expression(Expr::constant_node(*access.outside_value, access.location), {}));
  }

  // The store of one element; in a loop body (`in_loop`) its value also stays in a local v_NAME,
  // declared at the first write, for the statements after it (one element per thread). The local
  // holds the value as stored (as_read_back: rounded, saturated), what a later read of the element
  // sees (an f16 output of 1e5 is inf).
  std::string store(const Access& access, const std::string& value, bool in_loop, const Statement& s) const {
    const Tensor& tensor = *program_.find_tensor(access.tensor);
    std::string text;
    std::string stored = value;
    if (in_loop || is_local(access.tensor)) {
      const std::string kept = as_read_back(program_, s, value);
      text = fmt::format("{}v_{} = {};", declared_locals_.insert(access.tensor).second ? "float " : "", access.tensor,
                         kept);
      if (is_local(access.tensor)) return text;
      text += " ";
      stored = "v_" + access.tensor;
    }
    const std::string id = tensor_id(access.tensor);
    if (tensor.type == ElementType::f32) return text + fmt::format("pf::stg(&{}[{}], {});", id, offset(access, s), stored);
    return text + fmt::format("pf::stg(&{}[{}], pf::from_float<{}>({}));", id, offset(access, s), cuda_type(tensor.type),
                              stored);
  }

  std::string value(const Statement& s) const {
    return c_expression(s.expr, [&](int read) { return load(s.reads.at(static_cast<std::size_t>(read)), s); }, index_id);
  }

  // The value a pointwise statement stores: its expression, combined once with the element's
  // current value for `op=` (`P(i, j) += X(i, j)`).
  std::string pointwise_value(const Statement& s) const {
    const std::string v = value(s);
    return s.kind == StatementKind::reduce ? combine(s.reduction, load(s.write, s), v) : v;
  }

  // Declarations of `names` (extents `extents`) decoded from the linear `linear`, innermost last.
  static std::string decode(const std::vector<std::string>& names, const std::vector<std::int64_t>& extents,
                            const std::string& linear, const std::string& indent) {
    std::string text;
    std::int64_t inner = 1;
    for (std::size_t d = names.size(); d-- > 0;) {
      std::string v = inner == 1 ? linear : fmt::format("{} / {}", linear, inner);
      if (d > 0) v = inner == 1 ? fmt::format("{} % {}", linear, extents[d]) : fmt::format("{} % {}", v, extents[d]);
      text = fmt::format("{}const long long {} = {};\n", indent, index_id(names[d]), v) + text;
      inner *= extents[d];
    }
    return text;
  }

  static std::string combine(ReductionOp op, const std::string& a, const std::string& b) {
    return reduction_combine(op, a, b);
  }

  static std::string identity(ReductionOp op) { return reduction_identity(op); }

  std::string parameters() const {
    std::vector<std::string> parts;
    for (const Tensor& t : program_.tensors)
      if (t.role != TensorRole::temporary)
        parts.push_back(fmt::format("{}{}* __restrict__ {}", t.role == TensorRole::input ? "const " : "",
                                    cuda_type(t.type), tensor_id(t.name)));
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  std::string statement_comments(const std::string& indent) const {
    std::string text;
    for (const Statement& s : program_.statements) text += fmt::format("{}// {}: {}\n", indent, s.id, print_statement_source(s));
    return text;
  }

  // One thread per element of the statements' common domain.
  std::string pointwise(std::int64_t& elements) const {
    const Statement& first = program_.statements.front();
    std::vector<std::int64_t> extents;
    elements = 1;
    for (const IterationIndex& index : first.indices) {
      extents.push_back(extent(index.extent));
      elements *= extents.back();
    }
    std::string text = statement_comments("  ");
    text += fmt::format("  for (long long element = blockIdx.x * {0}LL + threadIdx.x; element < {1}LL; element += gridDim.x * {0}LL) {{\n",
                        block_threads, elements);
    text += decode(first.index_names(), extents, "element", "    ");
    for (const Statement& s : program_.statements) {
      text += "    " + store(s.write, pointwise_value(s), true, s) + "\n";
    }
    text += "  }\n";
    return text;
  }

  // One warp (or block) per written element of the one reduction statement.
  std::string reduction(std::int64_t& blocks, bool& by_block) const {
    const Statement& s = program_.statements.back();  // after the pointwise statements feeding it
    std::vector<std::string> written, reduced;
    std::vector<std::int64_t> written_extents, reduced_extents;
    std::int64_t rows = 1, terms = 1;
    for (const IterationIndex& index : s.indices) {
      (index.is_reduction ? reduced : written).push_back(index.name);
      (index.is_reduction ? reduced_extents : written_extents).push_back(extent(index.extent));
      (index.is_reduction ? terms : rows) *= extent(index.extent);
    }
    by_block = terms > warp_reduction_terms;
    blocks = by_block ? rows : (rows + warps_per_block - 1) / warps_per_block;
    const int lanes = by_block ? block_threads : 32;
    std::string text = statement_comments("  ");
    text += fmt::format("  // one {} per written element ({} of them), {} terms each\n", by_block ? "block" : "warp", rows, terms);
    text += "  const int lane = threadIdx.x % 32;\n";
    text += "  const int warp = threadIdx.x / 32;\n";
    text += by_block ? "  const long long row = blockIdx.x;\n"
                     : fmt::format("  const long long row = blockIdx.x * {}LL + warp;\n", warps_per_block);
    text += decode(written, written_extents, "row", "  ");
    text += fmt::format("  float acc = {};\n", identity(s.reduction));
    text += fmt::format("  if (row < {}LL) {{\n", rows);
    text += fmt::format("    for (long long term = {}; term < {}LL; term += {}) {{\n", by_block ? "threadIdx.x" : "lane",
                        terms, lanes);
    text += decode(reduced, reduced_extents, "term", "      ");
    for (std::size_t i = 0; i + 1 < program_.statements.size(); ++i) {  // each element once, by the lane of its term
      const Statement& pointwise = program_.statements[i];
      text += "      " + store(pointwise.write, pointwise_value(pointwise), true, pointwise) + "\n";
    }
    text += fmt::format("      acc = {};\n", combine(s.reduction, "acc", value(s)));
    text += "    }\n  }\n";
    text += "  // the warp's lanes, combined by butterfly shuffles (every lane takes part)\n";
    text += fmt::format("  for (int offset = 16; offset > 0; offset /= 2) acc = {};\n",
                        combine(s.reduction, "acc", "__shfl_xor_sync(0xffffffffu, acc, offset)"));
    std::string result = s.kind == StatementKind::reduce ? combine(s.reduction, load(s.write, s), "acc") : "acc";
    if (!by_block) {
      text += fmt::format("  if (lane == 0 && row < {}LL) {}\n", rows, is_local(s.write.tensor) ? ";" : store(s.write, result, false, s));
      return text;
    }
    text += fmt::format("  // the block's {} warps, combined through shared memory by thread 0\n", warps_per_block);
    text += "  PF_DYNAMIC_SHARED(smem);\n";
    text += "  float* const partial = reinterpret_cast<float*>(smem);  // one result per warp\n";
    text += "  if (lane == 0) pf::sts(&partial[warp], acc);\n";
    text += "  __syncthreads();\n";
    text += "  if (threadIdx.x == 0) {\n";
    text += "    acc = pf::lds(&partial[0]);\n";
    text += fmt::format("    for (int w = 1; w < {}; ++w) acc = {};\n", warps_per_block,
                        combine(s.reduction, "acc", "pf::lds(&partial[w])"));
    if (!is_local(s.write.tensor)) text += "    " + store(s.write, result, false, s) + "\n";
    text += "  }\n";
    return text;
  }

 private:
  const Program& program_;
  mutable std::set<std::string> declared_locals_;  // tensors whose element the loop body holds in v_NAME
};

}  // namespace

EmittedKernel emit_memory_kernel(const Program& program, PlannedKernelKind kind, const std::string& def, Arch arch) {
  PF_INTERNAL_CHECK(kind != PlannedKernelKind::fused_matmul && !program.statements.empty(),
                    "emit_memory_kernel takes the memory-bound kernels of a plan");
  MemoryKernelEmitter emitter(program);
  std::int64_t blocks = 1;
  int shared_bytes = 0;
  std::string body, what;
  if (kind == PlannedKernelKind::pointwise) {
    std::int64_t elements = 1;
    body = emitter.pointwise(elements);
    // Enough blocks for one element per thread, at most 65535 (the loop strides over the rest).
    blocks = std::min<std::int64_t>((elements + block_threads - 1) / block_threads, 65535);
    what = "pointwise, one element per thread (grid-stride)";
  } else if (kind == PlannedKernelKind::row_chain) {
    const RowChainBody chain = row_chain_kernel_body(program);
    body = chain.text;
    blocks = chain.blocks;
    shared_bytes = chain.shared_bytes;
    what = chain.what;
  } else {
    for (std::size_t i = 0; i + 1 < program.statements.size(); ++i)
      PF_INTERNAL_CHECK(!program.statements[i].is_reduction() || program.statements[i].reduction_indices().empty(),
                        "a row-reduction kernel has one reduction, last");
    bool by_block = false;
    body = emitter.reduction(blocks, by_block);
    if (by_block) shared_bytes = warps_per_block * 4;
    what = by_block ? "row reduction, one block per written element" : "row reduction, one warp per written element";
  }
  EmittedKernel kernel;
  LaunchMetadata& m = kernel.metadata;
  m.kernel = program.name;
  m.launcher = "polyfuse_launch_" + program.name;
  m.arch = to_string(arch);
  m.parameters = kernel_parameters(program);  // every size is bound in a plan: tensors only
  m.grid[0] = GridDimension{blocks, std::to_string(blocks)};
  m.grid[1] = m.grid[2] = GridDimension{1, "1"};
  m.block[0] = block_threads;
  m.dynamic_shared_bytes = shared_bytes;
  m.options = what;
  std::string& s = kernel.source;
  s += fmt::format("// Kernel {} of the plan of def '{}' ({}): {}.\n", m.kernel, def, program.file, what);
  s += fmt::format("// Launch: grid ({}, 1, 1), {} threads, {} bytes of dynamic shared memory.\n", blocks, block_threads,
                   shared_bytes);
  // (threads, 1): with the block size alone ptxas caps a row chain's kept terms at 32 registers
  // and spills them (softmax at N = 3001: 8 bytes on sm_80 and sm_90); one block per SM as the
  // minimum lets it use what the kept rows need (48 there).
  s += fmt::format("extern \"C\" __global__ void __launch_bounds__({}, 1) {}({}) {{\n", block_threads, m.kernel,
                   emitter.parameters());
  s += body;
  s += "}\n";
  return kernel;
}

}  // namespace polyfuse
