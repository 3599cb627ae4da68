// to_string(CpuPlan): the readable dump of the CPU schedule.
#include <algorithm>
#include <string>

#include "schedule/cpu_plan.h"

namespace polyfuse {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// A convolution's blocks run output-channel block outermost (codegen/cpu_emit.cc).
std::string loops_text(const CpuStage& stage) {
  std::string text;
  const bool conv = std::any_of(stage.matmuls.begin(), stage.matmuls.end(),
                                [](const CpuMatmul& matmul) { return matmul.conv; });
  const std::int64_t rows = std::min(stage.blocking.mc, stage.m_extent);
  const std::int64_t cols = std::min(stage.blocking.nc, stage.n_extent);
  const std::string columns = (stage.n_name.empty() ? "(no columns)" : stage.n_name) + " < " +
                              std::to_string(stage.n_extent) + " in blocks of " + std::to_string(cols);
  if (conv) text += columns + " (outermost: consecutive blocks share the filter's slice), ";
  for (std::size_t i = 0; i < stage.batch_names.size(); ++i)
    text += stage.batch_names[i] + " < " + std::to_string(stage.batch_extents[i]) + ", ";
  text += (stage.m_name.empty() ? "(no rows)" : stage.m_name) + " < " +
          std::to_string(stage.m_extent) + " in blocks of " + std::to_string(rows);
  if (!conv) text += ", " + columns;
  return text;
}

// A copy stage below the parallel threshold runs on the calling thread: say so.
std::string copy_threads(const CpuStage& stage) {
  return stage.parallel ? std::string()
                        : ", one thread (" + std::to_string(stage.flops / kCpuFlopsPerElement) +
                              " elements, below the parallel threshold)";
}

// Whether a loop nest splits its outermost written loop over the threads, or why not.
std::string loop_nest_threads(const CpuPlan& plan, const CpuStage& stage) {
  const CpuLoopNest& nest = *stage.loop_nest;
  if (stage.parallel)
    return ", parallel over " + nest.outer +
           (plan.threads > 0 ? " on " + std::to_string(plan.threads) + (plan.threads == 1 ? " thread" : " threads") : "");
  if (!nest.serial.empty()) return ", one thread (" + nest.serial + ")";
  return ", one thread (" + std::to_string(nest.flops) + " flops, below the parallel threshold)";
}

// A pointwise statement done by the BRGEMM's epilogue (schedule/cpu_epilogue.h).
std::string epilogue_text(const CpuMatmul& matmul) {
  const CpuEpilogue& epilogue = *matmul.epilogue;
  std::string what;
  if (epilogue.bias) {
    const bool row = std::find(epilogue.bias->dims.begin(), epilogue.bias->dims.end(), CpuDim::n) !=
                     epilogue.bias->dims.end();
    what = "+ " + epilogue.bias->tensor + " along " + (row ? "n" : "m");
  }
  if (epilogue.addend) what += (what.empty() ? "+ " : ", then + ") + epilogue.addend->tensor;
  if (epilogue.post) what += (what.empty() ? "" : ", then ") + std::string(to_string(*epilogue.post));
  return "      in " + matmul.statement + "'s BRGEMM epilogue, before its store" + (what.empty() ? "" : ": " + what) +
         " (" + matmul.c.tensor + "'s block " +
         (matmul.c.tensor == epilogue.output.tensor ? "updated in place, stored once" : "is not read back") + ")\n";
}

// The line that opens a row chain (schedule/cpu_row_chains.h).
std::string row_chain_text(const CpuPlan& plan, const CpuRowChain& chain) {
  const std::string threads =
      chain.parallel ? ", parallel over the blocks" + (plan.threads > 0 ? " on " + std::to_string(plan.threads) +
                                                                              (plan.threads == 1 ? " thread" : " threads")
                                                                        : std::string())
                     : ", one thread (" + std::to_string(chain.flops) + " flops, below the parallel threshold)";
  std::string temporaries;  // "; e only a block of rows (per thread)"
  for (const std::string& name : chain.temporaries) temporaries += (temporaries.empty() ? "; " : ", ") + name;
  if (!temporaries.empty()) temporaries += " only a block of rows (per thread)";
  return "  row chain " + plan.stages[chain.first].name + ".." + plan.stages[chain.last].name + ": " + chain.index +
         " < " + std::to_string(chain.extent) + " in blocks of " + std::to_string(chain.rows) +
         " rows, each through every stage in turn (" + std::to_string(chain.row_bytes) +
         " bytes a row: what a stage writes, the next reads from L2)" + threads +
         temporaries + "\n";
}

}  // namespace

std::string_view to_string(CpuStorage storage) {
  switch (storage) {
    case CpuStorage::parameter: return "parameter";
    case CpuStorage::full_temporary: return "full temporary";
    case CpuStorage::block_local: return "block local";
    case CpuStorage::chain_local: return "chain temporary";
  }
  return "?";
}

std::string to_string(const CpuPlan& plan) {
  std::string text = "cpu schedule of def " + plan.name + "\n  tensors:\n";
  for (const CpuTensor& tensor : plan.tensors) {
    text += "    " + tensor.name + ": " + std::string(to_string(tensor.role)) + " " +
            std::string(to_string(tensor.type)) + " " + shape_text(tensor.shape) + ", " +
            std::string(to_string(tensor.storage)) + (tensor.synthetic ? " (prologue result)" : "") +
            (std::find(plan.constant_inputs.begin(), plan.constant_inputs.end(), tensor.name) != plan.constant_inputs.end()
                 ? ", constant (the same values behind the same pointer)"
                 : "") +
            "\n";
  }
  for (const CpuStage& stage : plan.stages) {
    if (stage.row_chain) {  // a stage of a row chain: on the chain's block of rows
      const CpuRowChain& chain = plan.row_chains.at(*stage.row_chain);
      if (&stage == &plan.stages[chain.first]) text += row_chain_text(plan, chain);
      if (const std::optional<CpuLoopNest>& nest = stage.loop_nest) {
        text += "    " + stage.name + ": loop nest over the block's rows (" + nest->why + ")\n";
        text += "      " + nest->statement + ": " + nest->source + "\n";
        continue;
      }
      text += "    " + stage.name + ": the block's rows" +
              (stage.m_name.empty() || stage.n_name.empty()
                   ? std::string(" (a value per row)")
                   : ", " + stage.n_name + " < " + std::to_string(stage.n_extent) + " in blocks of " +
                         std::to_string(std::min(stage.blocking.nc, stage.n_extent))) +
              "\n";
      for (const CpuPointwise& pointwise : stage.pointwise)
        text += "      pointwise " + pointwise.statement + ": " + pointwise.source + "\n";
      continue;
    }
    if (const std::optional<CpuLoopNest>& nest = stage.loop_nest) {
      text += "  " + stage.name + ": loop nest over whole tensors (" + nest->why + ")" + loop_nest_threads(plan, stage) + "\n";
      text += "    " + nest->statement + ": " + nest->source + "\n";
      continue;
    }
    if (const std::optional<CpuPadCopy>& pad = stage.pad) {
      const std::string moved =
          pad->innermost_dim ? " with its dimension " + std::to_string(*pad->innermost_dim) +
                                   " (the pixel column) innermost, so that pixels fill the vectors,"
                             : std::string();
      text += "  " + stage.name + ": " + pad->to + " = " + pad->from + moved + " with a border of zeros, before " +
              shape_text(pad->before) + " and after " + shape_text(pad->after) +
              " (the convolution's reads outside " + pad->from + ")" + copy_threads(stage) + "\n";
      continue;
    }
    if (const std::optional<CpuPermuteCopy>& copy = stage.permute) {
      text += "  " + stage.name + ": reordering copy " + copy->source + "  (" + copy->why + ")" + copy_threads(stage) + "\n";
      continue;
    }
    if (stage.parallel)
      text += "  " + stage.name + ": parallel over " + loops_text(stage) +
              (plan.threads > 0 ? " on " + std::to_string(plan.threads) + (plan.threads == 1 ? " thread" : " threads")
                                : std::string()) + " (" +
              to_string(stage.blocking) + ")\n";
    else
      text += "  " + stage.name + ": one thread over " + loops_text(stage) + " (" + to_string(stage.blocking) +
              "; " + std::to_string(stage.flops) + " flops, below the parallel threshold)\n";
    if (std::any_of(stage.matmuls.begin(), stage.matmuls.end(), [](const CpuMatmul& matmul) {
          return std::find(matmul.c.dims.begin(), matmul.c.dims.end(), CpuDim::folded) != matmul.c.dims.end();
        }))
      text += "    rows " + stage.m_name + ": batch indices folded into the rows, every access reads them contiguous "
              "with the rows (one GEMM, schedule/cpu_fold.h)\n";
    for (const CpuMatmul& matmul : stage.matmuls) {
      text += "    main " + matmul.statement + ": " + matmul.source + "\n";
      if (const std::optional<CpuConvTaps>& conv = matmul.conv) {
        std::string outer, inner;
        std::string outer_batch;  // the innermost outer tap, when the BRGEMM takes it
        const std::size_t loops = conv->taps.size() - (conv->taps.empty() ? 0 : matmul.conv_outer_batch() ? 2 : 1);
        for (std::size_t t = 0; t < conv->taps.size(); ++t)
          (t < loops ? outer : t + 1 < conv->taps.size() ? outer_batch : inner) += (t < loops && t ? ", " : "") +
                                                                                    conv->taps[t].index;
        const auto border = [](const CpuConvTap& tap) {  // schedule/cpu_conv_border.h
          if (!tap.border) return std::string();
          std::string counts;
          for (const std::int64_t count : tap.border->counts) counts += (counts.empty() ? "" : " or ") + std::to_string(count);
          return " (" + counts + " where the others read only the zero border and the filter is finite there)";
        };
        if (!outer_batch.empty()) {
          const CpuConvTap& tap = conv->taps[loops];
          outer_batch = ", outer batch = " + std::to_string(tap.extent) + " taps of " + outer_batch + border(tap);
        }
        if (loops == 1) outer += border(conv->taps.front());
        text += "      convolution as BRGEMM over the filter taps " + std::string(to_string(matmul.dtype)) + ": A = " +
                matmul.a.tensor +
                (conv->a_channel_stride > 0
                     ? " pixel-major (pixels in vectors: channels " + std::to_string(conv->a_channel_stride) +
                           " apart; the block accumulates column-major and a transposition stores it)"
                     : " rows " + std::to_string(conv->lda) + " apart") +
                ", B = " + matmul.b.tensor +
                (!conv->filter_packed ? std::string(" (as stored)")
                 : conv->panel_per_block
                     ? " (packed by each thread, per column block, into a panel [taps, c, " +
                           std::to_string(conv->filter_panel) + "]" +
                           (matmul.b_constant ? "; constant: every panel kept between calls" : "") + ")"
                     : " (" + conv->filter + " packed as [k / " + std::to_string(conv->filter_panel) + ", taps, c, " +
                           std::to_string(conv->filter_panel) + "])") +
                ", k = " + std::to_string(matmul.k) + " channels, batch = " + std::to_string(matmul.reduce_batch) +
                (inner.empty() ? std::string(" (no taps)") : " taps of " + inner) + outer_batch +
                (outer.empty() ? std::string() : " per loop over " + outer) +
                (matmul.zero_init ? ", first touch: zero\n" : ", first touch: current C\n");
        continue;
      }
      text += "      brgemm " + std::string(to_string(matmul.dtype)) + ": A = " + matmul.a.tensor +
              " (" + std::string(to_string(matmul.a_layout)) + "), B = " + matmul.b.tensor + " (" +
              std::string(to_string(matmul.b_layout)) + "), ";
      if (matmul.reduce_batch > 1)
        text += "batch = " + std::to_string(matmul.reduce_batch) + " pairs of k = " +
                std::to_string(matmul.k);
      else
        text += "k = " + std::to_string(matmul.k) + " as batch = " + std::to_string(matmul.k_slices) +
                " slice(s) of " + std::to_string(matmul.kc) +
                (matmul.k_tail ? " + a tail of " + std::to_string(matmul.k_tail) : "");
      text += matmul.zero_init ? ", first touch: zero" : ", first touch: current C";
      text += matmul.b_constant ? ", B packed on the first call and kept (a constant input)\n" : "\n";
    }
    for (const CpuPointwise& pointwise : stage.pointwise) {
      text += std::string(stage.matmuls.empty() ? "    pointwise " : "    last touch ") +
              pointwise.statement + ": " + pointwise.source + "\n";
      if (pointwise.in_epilogue) text += epilogue_text(stage.matmuls.front());
    }
  }
  return text;
}

}  // namespace polyfuse
