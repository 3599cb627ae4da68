#include "codegen/cpu_block.h"

#include <map>
#include <optional>
#include <set>

#include "codegen/cpu_border_taps_code.h"
#include "codegen/cpu_epilogue_code.h"
#include "codegen/cpu_filter_panel_code.h"
#include "codegen/cpu_pointwise_calls.h"
#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

using View = CpuOperandView;

bool reads_tensor(const Expr& expr, const CpuPointwise& pointwise, const std::string& tensor) {
  if (expr.kind == ExprKind::read) return pointwise.reads.at(expr.read).tensor == tensor;
  for (const Expr& operand : expr.operands)
    if (reads_tensor(operand, pointwise, tensor)) return true;
  return false;
}

class BlockEmitter {
 public:
  BlockEmitter(const CpuPlan& plan, const CpuStage& stage, const CpuNames& names,
               const CpuStageVariables& variables)
      : plan_(plan), stage_(stage), names_(names), variables_(variables) {}

  CpuBlockCode run() {
    for (const CpuMatmul& matmul : stage_.matmuls) emit_matmul(matmul);
    for (const CpuPointwise& pointwise : stage_.pointwise) emit_pointwise(pointwise);
    CpuBlockCode code;
    for (const CpuTensor& tensor : plan_.tensors) {
      if (!used_.count(tensor.name)) continue;
      const std::string& name = names_.tensor(tensor.name);
      code.tensors.push_back(name);
      code.parameters.push_back(std::string(written_.count(tensor.name) ? "" : "const ") +
                                cxx_element_type(tensor.type) + "* " + name);
    }
    for (const std::string& variable : variables_.batch) code.parameters.push_back("int64_t " + variable);
    if (!variables_.m0.empty()) code.parameters.push_back("int64_t " + variables_.m0);
    if (!variables_.n0.empty()) code.parameters.push_back("int64_t " + variables_.n0);
    if (!variables_.packed_b.empty()) code.parameters.push_back("const char* " + variables_.packed_b);
    if (!variables_.filter_panel.empty()) {
      const CpuMatmul& conv = stage_.matmuls.front();
      code.parameters.push_back(std::string(conv.b_constant ? "ConstantPanels<" : "FilterPanel<") +
                                cxx_element_type(plan_.tensor(conv.b.tensor).type) + ">& " + variables_.filter_panel);
    }
    code.body = body_;
    code.entry = entry_;
    code.packed_b_argument = packed_b_argument_;
    code.pack_b = pack_;
    code.thread_buffers = thread_buffers_;
    return code;
  }

 private:
  void line(const std::string& text) { body_ += "  " + text + "\n"; }

  // A per-thread block buffer of `rows` x `cols` elements of `type`, declared once, and the
  // pointer to it that the code uses, kept (cpu_helpers.h's `kept`: not the thread_local's address
  // recomputed in every loop iteration).
  std::string block_buffer(const std::string& name, ElementType type) {
    if (declared_.insert(name).second) {
      const std::string storage = names_.variable(name + "_storage");
      line("alignas(64) static thread_local " + cxx_element_type(type) + " " + storage + "[rows * cols];");
      line(cxx_element_type(type) + "* const " + name + " = kept(" + storage + ");");
      thread_buffers_ = true;
    }
    return name;
  }

  // ", EpilogueArgs{...}" to end a BRGEMM call's arguments, or nothing.
  static std::string with_args(const std::string& args) { return args.empty() ? "" : ", " + args; }

  // A name for a primitive object of statement `statement` doing `what`.
  std::string object_name(const std::string& statement, const std::string& what) {
    std::string base = statement;
    for (char& c : base)
      if (c == '.') c = '_';
    base += "_" + what;
    const int count = ++object_counts_[base];
    return count == 1 ? base : base + "_" + std::to_string(count);
  }

  // The element offset of `access` at the block origin: batch indices and m0/n0 times
  // their strides; k and r start at 0.
  std::string offset(const CpuAccess& access, const std::vector<std::int64_t>& strides) {
    std::vector<std::string> terms;
    for (std::size_t d = 0; d < access.dims.size(); ++d) {
      std::string variable;
      switch (access.dims[d]) {
        case CpuDim::batch: variable = variables_.batch.at(access.batch_positions[d]); break;
        case CpuDim::m: variable = variables_.m0; break;
        case CpuDim::n: variable = variables_.n0; break;
        case CpuDim::k:
        case CpuDim::r:
        case CpuDim::folded: break;  // a folded index moves with m0 (m's stride covers it)
      }
      if (variable.empty()) continue;
      if (variable == variables_.chain_row && plan_.tensor(access.tensor).storage == CpuStorage::chain_local)
        continue;  // the chain's block of the tensor starts at the block's first row
      terms.push_back(strides[d] == 1 ? variable : variable + " * " + std::to_string(strides[d]));
    }
    return terms.empty() ? "" : " + " + sum_text(terms);
  }

  // The view of a tensor access on the block (block-local buffers: the buffer itself).
  View view(const CpuAccess& access) {
    const CpuTensor& tensor = plan_.tensor(access.tensor);
    View view;
    view.type = tensor.type;
    if (tensor.storage == CpuStorage::block_local) {
      view.pointer = block_buffer(names_.tensor(tensor.name), tensor.type);
      view.ld = "cols";
      return view;
    }
    used_.insert(tensor.name);
    const std::vector<std::int64_t> strides = row_major_strides(tensor.shape);
    view.pointer = names_.tensor(tensor.name) + offset(access, strides);
    int m_dim = -1, n_dim = -1;
    for (std::size_t d = 0; d < access.dims.size(); ++d) {
      if (access.dims[d] == CpuDim::m) m_dim = static_cast<int>(d);
      if (access.dims[d] == CpuDim::n) n_dim = static_cast<int>(d);
    }
    if (m_dim >= 0 && n_dim >= 0) {
      const bool row_major = n_dim == static_cast<int>(access.dims.size()) - 1;
      view.layout = row_major ? "Layout::row_major" : "Layout::col_major";
      view.ld = std::to_string(strides[row_major ? m_dim : n_dim]);
    } else if (n_dim >= 0) {
      view.broadcast = "Broadcast::row_vector";
      view.ld = std::to_string(strides[n_dim]);
    } else if (m_dim >= 0) {
      view.broadcast = "Broadcast::col_vector";
      view.ld = std::to_string(strides[m_dim]);
    } else {
      view.broadcast = "Broadcast::scalar";
    }
    // A written block whose rows are absent (rank < 2) is a single row.
    if (view.broadcast == "Broadcast::row_vector" && &access == writing_) {
      view.broadcast = "Broadcast::matrix";
      view.ld = "cols";
    }
    return view;
  }

  void emit_matmul(const CpuMatmul& matmul) {
    const CpuTensor& c_tensor = plan_.tensor(matmul.c.tensor);
    line("// main " + matmul.statement + ": " + matmul.source);
    written_.insert(c_tensor.name);
    // Where the BRGEMM accumulates: the block itself (block-local or an f32 tensor), or
    // an f32 block stored to the f16/bf16 tensor afterwards. A convolution, whose outer taps
    // load and store C once each, accumulates in a block buffer too when C's rows are a
    // multiple of 1 KiB apart (K = 256, 512 f32): such rows share a few L1 sets.
    View c;
    View stored;
    const std::int64_t c_element_bytes = c_tensor.type == ElementType::f32 ? 4 : 2;
    const std::int64_t c_row_bytes =
        matmul.conv ? access_stride(matmul.c, row_major_strides(c_tensor.shape), CpuDim::m) * c_element_bytes : 0;
    const bool crowded = c_row_bytes > 0 && c_row_bytes % 1024 == 0;
    // Pixels in vectors (CpuConvTaps::a_channel_stride): the block is column-major in its buffer.
    const bool pixel_major = matmul.pixels_in_vectors();
    if (matmul.epilogue) {
      emit_matmul_with_epilogue(matmul);
      return;
    }
    const bool through_buffer = pixel_major || (c_tensor.storage != CpuStorage::block_local &&
                                                (c_tensor.type != ElementType::f32 || crowded));
    if (through_buffer) {
      writing_ = &matmul.c;
      stored = view(matmul.c);
      writing_ = nullptr;
      c.pointer = block_buffer(names_.variable(names_.tensor(c_tensor.name) + "_f32"), ElementType::f32);
      c.ld = pixel_major ? "rows" : "cols";
      if (pixel_major) c.layout = "Layout::col_major";
    } else {
      PF_INTERNAL_CHECK(c_tensor.type == ElementType::f32, "cpu block: BRGEMM C must be f32");
      c = view(matmul.c);
    }
    if (matmul.zero_init) {
      line("// first touch: " + c_tensor.name + " := 0, fused into the BRGEMM (accumulate = false)");
    } else if (through_buffer) {
      line("// first touch: the current " + c_tensor.name +
           (c_tensor.type == ElementType::f32 ? ", into the block buffer" : ", widened to f32"));
      emit_unary(matmul.statement, "load", "identity", stored, c);
    } else {
      line("// first touch: the current " + c_tensor.name + " (accumulate = true)");
    }

    if (matmul.conv)
      emit_taps(matmul, c, {});
    else
      emit_main(matmul, c, {});
    if (through_buffer) {
      line("// last touch of " + matmul.statement + ": " +
           (pixel_major                         ? std::string("the pixel-major block buffer transposed")
            : c_tensor.type == ElementType::f32 ? std::string("the block buffer")
                                              : std::string("round to ") + std::string(to_string(c_tensor.type))) +
           " into " + c_tensor.name);
      emit_unary(matmul.statement, "store", "identity", c, stored);
    }
  }

  // A matmul whose last touch is its BRGEMM's epilogue (CpuMatmul::epilogue): the BRGEMM stores
  // the statement's output block, C's block is never stored. A convolution whose outer taps would
  // load and store output rows a multiple of 1 KiB apart (see emit_matmul) accumulates in C's
  // block buffer, and its last call stores the output (EpilogueArgs::d).
  void emit_matmul_with_epilogue(const CpuMatmul& matmul) {
    const CpuEpilogue& epilogue = *matmul.epilogue;
    writing_ = &epilogue.output;
    const View out = view(epilogue.output);
    writing_ = nullptr;
    written_.insert(epilogue.output.tensor);
    PF_INTERNAL_CHECK(out.type == ElementType::f32 && out.layout == "Layout::row_major",
                      "cpu block: an epilogue's output must be an f32 row-major block");
    const CpuTensor& out_tensor = plan_.tensor(epilogue.output.tensor);
    const std::int64_t out_row_bytes = access_stride(epilogue.output, row_major_strides(out_tensor.shape), CpuDim::m) * 4;
    // Pixels in vectors: the epilogue on C's column-major block buffer, then a transposition
    // stores the output (fuse_epilogues takes no addend there).
    const bool pixel_major = matmul.pixels_in_vectors();
    // (In place, C is the output: no block buffer of its own.)
    const bool in_place = matmul.c.tensor == epilogue.output.tensor;
    const bool buffered = !pixel_major && !in_place && matmul.conv && matmul.conv->outer_iterations() > 1 &&
                          out_row_bytes % 1024 == 0;
    const std::optional<View> bias = epilogue.bias ? std::optional<View>(view(*epilogue.bias)) : std::nullopt;
    const std::optional<View> addend = epilogue.addend ? std::optional<View>(view(*epilogue.addend)) : std::nullopt;
    const CpuEpilogueCode code =
        cpu_epilogue_code(epilogue, bias ? &*bias : nullptr, addend ? &*addend : nullptr, buffered ? &out : nullptr);
    View c = buffered ? view(matmul.c) : out;  // C's block buffer, or the output's block
    const std::string& c_name = matmul.c.tensor;
    if (pixel_major) {
      c.pointer = block_buffer(names_.variable(names_.tensor(c_name) + "_f32"), ElementType::f32);
      c.ld = "rows";
      c.layout = "Layout::col_major";
    }
    line("// last touch " + epilogue.statement + " in the BRGEMM's epilogue (" + code.what +
         ", in registers before the store): " + c_name + "'s block " +
         (pixel_major ? "is pixel-major in a block buffer, transposed into " + epilogue.output.tensor + "'s"
          : buffered  ? "accumulates in a block buffer (output rows " + std::to_string(out_row_bytes) +
                           " bytes apart), the last call stores " + epilogue.output.tensor
          : in_place  ? std::string("is updated in place")
                      : "is " + epilogue.output.tensor + "'s"));
    line("// first touch: " + c_name + (matmul.zero_init ? " := 0, fused into the BRGEMM (accumulate = false)"
                                                         : " (accumulate = true)"));
    if (matmul.conv)
      emit_taps(matmul, c, code);
    else
      emit_main(matmul, c, code);
    if (pixel_major) emit_unary(epilogue.statement, "store", "identity", c, out);
  }

  // The BRGEMM(s) of a matmul on the block, into `c`; the last call does `epilogue`.
  void emit_main(const CpuMatmul& matmul, const View& c, const CpuEpilogueCode& epilogue) {
    const CpuTensor& a_tensor = plan_.tensor(matmul.a.tensor);
    const CpuTensor& b_tensor = plan_.tensor(matmul.b.tensor);
    const bool shared = !variables_.packed_b.empty();
    used_.insert(a_tensor.name);
    if (!shared || matmul.k_tail > 0) used_.insert(b_tensor.name);  // else the block reads only the packed B
    const std::vector<std::int64_t> a_strides = row_major_strides(a_tensor.shape);
    const std::vector<std::int64_t> b_strides = row_major_strides(b_tensor.shape);
    const bool a_rows = matmul.a_layout == MatrixLayout::row_major;
    const bool b_rows = matmul.b_layout == MatrixLayout::row_major;
    const std::string a_pointer = names_.tensor(a_tensor.name) + offset(matmul.a, a_strides);
    const std::string b_pointer = names_.tensor(b_tensor.name) + offset(matmul.b, b_strides);
    const std::int64_t lda = access_stride(matmul.a, a_strides, a_rows ? CpuDim::m : CpuDim::k);
    const std::int64_t ldb = access_stride(matmul.b, b_strides, b_rows ? CpuDim::k : CpuDim::n);
    const std::int64_t a_k = access_stride(matmul.a, a_strides, CpuDim::k);
    const std::int64_t b_k = access_stride(matmul.b, b_strides, CpuDim::k);

    const auto config_of = [&](const std::string& rows, const std::string& cols, std::int64_t k, std::int64_t batch,
                               bool accumulate, bool always, const std::string& finish = "") {
      std::string text = "{.m = " + rows + ", .n = " + cols + ", .k = " + std::to_string(k);
      if (batch > 1) text += ", .batch = " + std::to_string(batch);
      text += std::string(",\n      .a_layout = Layout::") + (a_rows ? "row_major" : "col_major") +
              ", .b_layout = Layout::" + (b_rows ? "row_major" : "col_major") +
              ", .c_layout = Layout::row_major,\n      .dtype = " + cxx_dtype(matmul.dtype) +
              ", .accumulate = " + (accumulate ? "true" : "false") + (always ? ", .packing = Packing::always" : "") +
              finish + "}";
      return text;
    };
    // The epilogue goes on the last call: the tail's when there is one.
    const std::string main_finish = matmul.k_tail > 0 ? "" : epilogue.config;
    const std::string main_args = matmul.k_tail > 0 ? "" : epilogue.args;
    const auto config = [&](std::int64_t k, std::int64_t batch, bool accumulate) {
      return config_of("rows", "cols", k, batch, accumulate, shared, main_finish);
    };
    const std::string leading = ", " + c.pointer + ", " + std::to_string(lda) + ", " +
                                std::to_string(ldb) + ", " + c.ld;
    if (matmul.reduce_batch > 1) {
      const std::int64_t a_r = access_stride(matmul.a, a_strides, CpuDim::r);
      const std::int64_t b_r = access_stride(matmul.b, b_strides, CpuDim::r);
      line("// main: one BRGEMM reduces all " + std::to_string(matmul.reduce_batch) +
           " (A, B) pairs of the batch-reduce index");
      const std::string name = object_name(matmul.statement, "main");
      line("static const Brgemm " + name + "(" + config(matmul.k, matmul.reduce_batch, !matmul.zero_init) + ");");
      if (shared) {
        share_b(matmul, config_of(std::to_string(variables_.block_rows), std::to_string(variables_.block_cols),
                                  matmul.k, matmul.reduce_batch, !matmul.zero_init, true),
                b_pointer, ldb, b_r);
        line(name + "(" + a_pointer + ", PackedB{" + variables_.packed_b + "}, " + c.pointer + ", " +
             std::to_string(lda) + ", " + c.ld + ", " + std::to_string(a_r) + with_args(main_args) + ");");
      } else {
        line(name + "(" + a_pointer + ", " + b_pointer + leading + ", " + std::to_string(a_r) + ", " +
             std::to_string(b_r) + with_args(main_args) + ");");
      }
    } else {
      if (matmul.k_slices > 1)
        line("// main: the reduction in " + std::to_string(matmul.k_slices) + " slices of kc = " +
             std::to_string(matmul.kc) + ", the BRGEMM batch" +
             (matmul.k_tail ? ", then a tail of " + std::to_string(matmul.k_tail) : std::string()));
      const std::string name = object_name(matmul.statement, "main");
      line("static const Brgemm " + name + "(" + config(matmul.kc, matmul.k_slices, !matmul.zero_init) + ");");
      std::string call = name + "(" + a_pointer + ", " + b_pointer + leading;
      if (matmul.k_slices > 1 || !main_args.empty())
        call += ", " + std::to_string(matmul.k_slices > 1 ? matmul.kc * a_k : 0) + ", " +
                std::to_string(matmul.k_slices > 1 ? matmul.kc * b_k : 0);
      if (shared) {
        share_b(matmul, config_of(std::to_string(variables_.block_rows), std::to_string(variables_.block_cols),
                                  matmul.kc, matmul.k_slices, !matmul.zero_init, true),
                b_pointer, ldb, matmul.kc * b_k);
        call = name + "(" + a_pointer + ", PackedB{" + variables_.packed_b + "}, " + c.pointer + ", " +
               std::to_string(lda) + ", " + c.ld;
        if (matmul.k_slices > 1 || !main_args.empty())
          call += ", " + std::to_string(matmul.k_slices > 1 ? matmul.kc * a_k : 0);
      }
      line(call + with_args(main_args) + ");");
      if (matmul.k_tail > 0) {
        const std::int64_t done = matmul.k_slices * matmul.kc;
        const std::string tail = object_name(matmul.statement, "tail");
        line("static const Brgemm " + tail + "(" +
             config_of("rows", "cols", matmul.k_tail, 1, true, false, epilogue.config) + ");");
        line(tail + "(" + a_pointer + " + " + std::to_string(done * a_k) + ", " + b_pointer + " + " +
             std::to_string(done * b_k) + leading + (epilogue.args.empty() ? "" : ", 0, 0" + with_args(epilogue.args)) +
             ");");
      }
    }
  }

  // A convolution's main (schedule/cpu_conv.h): one BRGEMM batched over the innermost tap, for
  // each outer tap; the first overwrites the block (unless `+=`), the others accumulate.
  // f32 kernels never pack: B is already the packed [taps, c, k] filter, which the direct
  // driver streams (re-packing it per block costs more than it saves when a block is one
  // output row of 7 to 56 pixels); f16/bf16 must pack (kernels/cpu widens while packing).
  // An f32 kernel takes the innermost outer tap too, as its outer batch (BrgemmConfig::
  // outer_batch): a 3x3 filter is one call of 9 taps, the block in registers throughout (the
  // same sums in the same order). ResNeXt-50's grouped 3x3 (28 x 8 blocks of 8 channels): the
  // BRGEMMs 0.30 -> 0.23 ms on one core.
  void emit_taps(const CpuMatmul& matmul, const View& c, const CpuEpilogueCode& epilogue) {
    const CpuConvTaps& conv = *matmul.conv;
    const CpuTensor& a_tensor = plan_.tensor(matmul.a.tensor);
    const CpuTensor& b_tensor = plan_.tensor(matmul.b.tensor);
    used_.insert(a_tensor.name);
    used_.insert(b_tensor.name);
    const std::vector<std::int64_t> b_strides = row_major_strides(b_tensor.shape);
    std::vector<std::string> a_terms;
    for (std::size_t i = 0; i < conv.a_batch.size(); ++i)
      if (conv.a_batch[i] != 0) a_terms.push_back(variables_.batch.at(i) + " * " + std::to_string(conv.a_batch[i]));
    a_terms.push_back(variables_.m0 + (conv.lda == 1 ? "" : " * " + std::to_string(conv.lda)));
    if (conv.a_origin != 0) a_terms.push_back(std::to_string(conv.a_origin));
    std::vector<std::string> b_terms;
    std::string first, last;  // every outer tap at 0, at its end
    const std::size_t taps_outside = conv.taps.empty() ? 0 : conv.taps.size() - 1;
    const bool fold = matmul.conv_outer_batch();
    const std::size_t outer = fold ? taps_outside - 1 : taps_outside;  // the loops
    std::vector<std::string> loops;
    for (std::size_t t = 0; t < outer; ++t) {
      const CpuConvTap& tap = conv.taps[t];
      const std::string variable = names_.loop_variable(tap.index);
      // (a loop tap with a border runs over its taps [first, last): emit_border_range's names)
      const std::string from = tap.border ? names_.variable(variable + "_first") : "0";
      const std::string to = tap.border ? names_.variable(variable + "_last") : std::to_string(tap.extent);
      loops.push_back("for (int64_t " + variable + " = " + from + "; " + variable + " < " + to + "; ++" + variable + ")");
      a_terms.push_back(variable + " * " + std::to_string(tap.a_stride));
      b_terms.push_back(variable + " * " + std::to_string(tap.b_stride));
      first += (first.empty() ? "" : " && ") + variable + " == " + from;
      if (tap.extent > 1)
        last += (last.empty() ? "" : " && ") + variable + " == " +
                (tap.border ? to + " - 1" : std::to_string(tap.extent - 1));
    }
    const std::int64_t batch = conv.taps.empty() ? 1 : conv.taps.back().extent;
    const std::int64_t a_batch = conv.taps.empty() ? 0 : conv.taps.back().a_stride;
    const std::int64_t b_batch = conv.taps.empty() ? 0 : conv.taps.back().b_stride;
    const CpuConvTap* folded = fold ? &conv.taps[taps_outside - 1] : nullptr;
    // Pixels in vectors: A and C column-major, A's channels a_channel_stride apart.
    const bool pixel_major = conv.a_channel_stride > 0;
    const std::int64_t lda = pixel_major ? conv.a_channel_stride : conv.lda;
    const std::string major = pixel_major ? "Layout::col_major" : "Layout::row_major";
    const std::string inner = conv.taps.empty() ? std::string() : conv.taps.back().index;
    const std::string taps =
        folded ? std::to_string(folded->extent) + " x " + std::to_string(batch) + " taps, " + folded->index +
                     " its outer batch (A " + std::to_string(folded->a_stride) + ", B " + std::to_string(folded->b_stride) +
                     " elements apart) and " + inner + " its batch (A " + std::to_string(a_batch) + ", B " +
                     std::to_string(b_batch) + " apart), "
               : std::to_string(batch) + " tap(s) (A " + std::to_string(a_batch) + ", B " + std::to_string(b_batch) +
                     " elements apart), ";
    line("// main: " + std::string(outer ? "per outer tap, " : "") + "one BRGEMM over " + taps +
         std::to_string(matmul.k) + " channels each; " +
         (pixel_major ? "pixel-major: A's channels " + std::to_string(lda) + " elements apart, the pixels in vectors"
                      : "A's rows " + std::to_string(lda) + " elements apart"));
    const auto config = [&](bool accumulate, const std::string& finish, std::int64_t outer_batch = 0) {
      return "{.m = rows, .n = cols, .k = " + std::to_string(matmul.k) + ", .batch = " + std::to_string(batch) +
             (folded ? ", .outer_batch = " + std::to_string(outer_batch > 0 ? outer_batch : folded->extent) +
                           ", .outer_stride_a = " +
                           std::to_string(folded->a_stride) + ", .outer_stride_b = " + std::to_string(folded->b_stride)
                     : std::string()) +
             ",\n      .a_layout = " + major + ", .b_layout = Layout::row_major, .c_layout = " + major + ","
             "\n      .dtype = " + cxx_dtype(matmul.dtype) + ", .accumulate = " + (accumulate ? "true" : "false") +
             (matmul.dtype == ElementType::f32 ? ", .packing = Packing::never" : "") + finish + "}";
    };
    // With an epilogue, the last call (every outer tap at its end) is a kernel of its own, or
    // the only call's kernel has it when there is one call.
    const bool one_call = conv.outer_iterations() / (folded ? folded->extent : 1) == 1;
    const std::string finishing = !epilogue.config.empty() && !one_call ? object_name(matmul.statement, "finish") : "";
    const std::string one_call_finish = one_call ? epilogue.config : "";
    const std::string overwrite = matmul.zero_init ? object_name(matmul.statement, "main") : "";
    const std::string accumulate = !matmul.zero_init || !one_call ? object_name(matmul.statement, "accumulate") : "";
    if (!overwrite.empty()) line("static const Brgemm " + overwrite + "(" + config(false, one_call_finish) + ");");
    if (!accumulate.empty()) line("static const Brgemm " + accumulate + "(" + config(true, one_call_finish) + ");");
    if (!finishing.empty()) line("static const Brgemm " + finishing + "(" + config(true, epilogue.config) + ");");
    std::string kernel = overwrite.empty() ? accumulate
                         : accumulate.empty() ? overwrite
                                              : "(" + first + " ? " + overwrite + " : " + accumulate + ")";
    // B at the block: in the stored filter, the access's offset; in panels, the block's panel
    // (n0 / panel: blocks are panels) and the access's offset inside it without n; packed per
    // block, the thread's panel, packed first when it holds another.
    std::string b_origin = offset(matmul.b, b_strides), b_base = names_.tensor(b_tensor.name);
    std::int64_t ldb = 0;
    if (conv.panel_per_block) {
      PF_INTERNAL_CHECK(!variables_.filter_panel.empty(), "cpu block: no panel parameter for " + matmul.statement);
      const CpuFilterPanelCode panel = pack_panel(matmul, b_origin);
      b_base = panel.data;
      b_origin.clear();
      ldb = conv.filter_panel;
      if (folded && folded->border) {  // one call (two taps): the kernel of the block's taps
        PF_INTERNAL_CHECK(one_call && !panel.finite_taps.empty(), "cpu block: border taps of " + matmul.statement);
        const CpuBorderTapsCode border = emit_border_taps(
            *folded, variables_.batch.at(folded->border->batch), kernel,
            [&](std::int64_t count) { return config(!matmul.zero_init, one_call_finish, count); }, panel.finite_taps,
            [&](const std::string& what) { return object_name(matmul.statement, what); }, names_);
        body_ += border.lines;
        kernel = border.kernel;
        a_terms.push_back(border.first + " * " + std::to_string(folded->a_stride));
        b_terms.push_back(border.first + " * " + std::to_string(folded->b_stride));
      } else if (!fold && !conv.taps.empty() && conv.taps.front().border) {  // a loop of calls over the taps inside
        PF_INTERNAL_CHECK(!panel.finite_taps.empty(), "cpu block: border taps of " + matmul.statement);
        body_ += emit_border_range(conv.taps.front(), variables_.batch.at(conv.taps.front().border->batch),
                                   panel.finite_taps, names_, finishing.empty() ? 1 : 2)
                     .lines;
      }
    } else if (conv.filter_panel > 0) {
      const std::vector<std::int64_t> inside(b_strides.begin() + 1, b_strides.end());
      CpuAccess within = matmul.b;
      std::replace(within.dims.begin(), within.dims.end(), CpuDim::n, CpuDim::k);  // (k: no block offset)
      b_origin = offset(within, inside);
      if (b_tensor.shape.front() > 1)
        b_origin += " + " + variables_.n0 + " / " + std::to_string(conv.filter_panel) + " * " + std::to_string(b_strides.front());
      ldb = conv.filter_panel;
    } else {
      ldb = access_stride(matmul.b, b_strides, CpuDim::k);
    }
    const std::string operands = "(" + names_.tensor(a_tensor.name) + " + " + sum_text(a_terms) + ", " + b_base +
                                 b_origin + (b_terms.empty() ? "" : " + " + sum_text(b_terms)) + ", " + c.pointer +
                                 ", " + std::to_string(lda) + ", " + std::to_string(ldb) + ", " + c.ld + ", " +
                                 std::to_string(a_batch) + ", " + std::to_string(b_batch);
    std::string indent;
    for (const std::string& loop : loops) {
      line(indent + loop);
      indent += "  ";
    }
    if (finishing.empty()) {
      line(indent + kernel + operands + (one_call ? with_args(epilogue.args) : "") + ");");
    } else {
      line(indent + "if (" + last + ") " + finishing + operands + with_args(epilogue.args) + ");");
      line(indent + "else " + kernel + operands + ");");
    }
  }

  // The block's panel of the stored filter packed into the thread's buffer unless it holds it
  // (codegen/cpu_filter_panel_code.h); returns its pointer and finite-tap bits.
  CpuFilterPanelCode pack_panel(const CpuMatmul& matmul, const std::string& origin) {
    const CpuFilterPanelCode code =
        emit_filter_panel_pack(plan_, matmul, names_, variables_, object_name(matmul.statement, "pack"), origin);
    body_ += code.lines;
    return code;
  }

  // The entry function's packing of B (at `b_pointer`, rows `ldb` and batch members `stride_b`
  // elements apart) for `matmul`'s kernel `config`, one region per column block, and the
  // argument handing a block its region.
  void share_b(const CpuMatmul& matmul, const std::string& config, const std::string& b_pointer, std::int64_t ldb,
               std::int64_t stride_b) {
    const std::string kernel = object_name(matmul.statement, "pack_b");
    const std::string buffer = names_.variable(variables_.packed_b + "_buffer");
    const std::int64_t blocks = variables_.n_extent / variables_.block_cols;
    const std::string bytes = kernel + ".packed_b_bytes()";
    const std::string& b_name = names_.tensor(plan_.tensor(matmul.b.tensor).name);
    entry_ += "  // B of " + matmul.statement + (matmul.b_constant
                                                     ? " packed on the first call and kept (" + b_name +
                                                           " is a constant input: packed again for another pointer)"
                                                     : std::string(" packed once per call")) +
              " (kernels/cpu's panels) and shared by every row block\n";
    entry_ += "  static const Brgemm " + kernel + "(" + config + ");\n";
    entry_ += "  static thread_local PackBuffer " + buffer + ";\n";
    entry_ += "  char* const " + variables_.packed_b + " = static_cast<char*>(" + buffer + ".get(" +
              (blocks > 1 ? std::to_string(blocks) + " * " : std::string()) + bytes + "));\n";
    if (matmul.b_constant) {  // whether to pack is decided here, before any region
      const std::string from_variable = names_.variable(variables_.packed_b + "_from");
      pack_.condition = names_.variable(variables_.packed_b + "_again");
      entry_ += "  static thread_local PackedFrom " + from_variable + ";\n";
      entry_ += "  const bool " + pack_.condition + " = !" + from_variable + ".holds(" + b_name + ");\n";
      entry_ += "  if (" + pack_.condition + ") " + from_variable + " = PackedFrom::of(" + b_name + ");\n";
    }
    // One column block: B from its start (n0 is the block function's, always 0 here).
    pack_.call = kernel + ".pack_b(" + (blocks > 1 ? b_pointer : b_name) + ", " + std::to_string(ldb) + ", " +
                 std::to_string(stride_b) + ", " + variables_.packed_b;
    packed_b_argument_ = variables_.packed_b;
    if (blocks > 1) {
      const std::string& n0 = variables_.n0;
      const std::string region = " + " + n0 + " / " + std::to_string(variables_.block_cols) + " * " + bytes;
      pack_.loop = "for (int64_t " + n0 + " = 0; " + n0 + " < " + std::to_string(variables_.n_extent) + "; " + n0 +
                   " += " + std::to_string(variables_.block_cols) + ")";
      pack_.call += region;
      packed_b_argument_ += region;
    }
  }

  // The sinks through which codegen/cpu_pointwise_calls.h writes into this block function.
  CpuCallSink call_sink() {
    return {[this](const std::string& text) { line(text); },
            [this](const std::string& statement, const std::string& what) { return object_name(statement, what); }};
  }

  void emit_unary(const std::string& statement, const std::string& what, const std::string& op, const View& in,
                  const View& out) {
    emit_unary_call(call_sink(), statement, what, op, in, out);
  }

  // A fresh f32 block buffer for an intermediate value of `statement`.
  View scratch(const std::string& statement) {
    std::string base = statement;
    for (char& c : base)
      if (c == '.') c = '_';
    View view;
    view.pointer = block_buffer(names_.variable(base + "_t" + std::to_string(scratch_count_++)),
                                ElementType::f32);
    view.ld = "cols";
    return view;
  }

  void emit_pointwise(const CpuPointwise& pointwise) {
    if (pointwise.in_epilogue) {
      line("// last touch " + pointwise.statement + ": " + pointwise.source + " (done: the BRGEMM's epilogue)");
      return;
    }
    line(std::string("// ") + (stage_.matmuls.empty() ? "" : "last touch ") + pointwise.statement +
         ": " + pointwise.source);
    scratch_count_ = 0;
    writing_ = &pointwise.write;
    const View target = view(pointwise.write);
    writing_ = nullptr;
    written_.insert(pointwise.write.tensor);
    // Intermediate values may be built in the target when it is f32 and not read.
    const bool target_is_scratch = target.type == ElementType::f32 &&
                                   !reads_tensor(pointwise.expr, pointwise, pointwise.write.tensor);
    CpuExpressionSink sink;
    static_cast<CpuCallSink&>(sink) = call_sink();
    sink.view = [this](const CpuAccess& access) { return view(access); };
    sink.scratch = [this, &pointwise] { return scratch(pointwise.statement); };
    sink.variable = [this](const std::string& wanted) { return names_.variable(wanted); };
    sink.block_pointer = [this](const std::string& pointer, const std::string& type) {
      return block_pointers_.local(pointer, type, names_, [this](const std::string& text) { line(text); });
    };
    emit_expression(sink, pointwise, target, target_is_scratch,
                    plan_.pointwise_loops && !reads_tensor(pointwise.expr, pointwise, pointwise.write.tensor));
  }

  const CpuPlan& plan_;
  const CpuStage& stage_;
  const CpuNames& names_;
  const CpuStageVariables& variables_;
  const CpuAccess* writing_ = nullptr;  // the access being viewed as a written block
  CpuBlockPointers block_pointers_;     // of the pointwise statements
  std::string body_, entry_, packed_b_argument_;
  CpuSharedPack pack_;
  std::set<std::string> declared_, used_, written_;
  bool thread_buffers_ = false;
  std::map<std::string, int> object_counts_;
  int scratch_count_ = 0;
};

}  // namespace

CpuBlockCode emit_cpu_block(const CpuPlan& plan, const CpuStage& stage, const CpuNames& names,
                            const CpuStageVariables& variables) {
  return BlockEmitter(plan, stage, names, variables).run();
}

}  // namespace polyfuse
