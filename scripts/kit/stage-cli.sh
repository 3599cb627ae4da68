#!/usr/bin/env bash
# Stage "cli" of gpu-kit/check --no-gpu: the kit's polyfuse on every example (CUDA source
# and sidecar; a run on the emulator at small sizes for the plans and five of the fused
# kernels; brgemm, a CPU idiom, through the CPU target), one NVRTC cubin, every program that must fail (a located error, exit 1,
# never a crash) and every fuzzing seed (compiles, or a user error).
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

log="$OUT_DIR/cli.log"
: >"$log"
polyfuse="$KIT/bin/polyfuse"
data="$KIT/share/polyfuse"
scratch="$WORK/cli"
mkdir -p "$scratch"
start=$(now)
bad=0 checks=0

# expect WHAT STATUS-PATTERN OUTPUT-PATTERN COMMAND...: runs COMMAND (time-boxed), logs it,
# and counts a failure unless its status matches STATUS-PATTERN (e.g. "0" or "[01]") and
# its output the extended regex OUTPUT-PATTERN.
expect() {
  local what=$1 want_status=$2 want_output=$3 status
  shift 3
  checks=$((checks + 1))
  printf '\n== %s\n$ %s\n' "$what" "$*" >>"$log"
  timeout --kill-after=5 120 "$@" >"$scratch/out" 2>&1
  status=$?
  cat "$scratch/out" >>"$log"
  # shellcheck disable=SC2053  # the status is a pattern
  if [[ $status == $want_status ]] && { [[ -z "$want_output" ]] || grep -Eq "$want_output" "$scratch/out"; }; then
    echo "-> ok (status $status)" >>"$log"
  else
    echo "-> UNEXPECTED: status $status (wanted $want_status), output must match: $want_output" >>"$log"
    echo "$what: status $status" >>"$scratch/failures"
    bad=$((bad + 1))
  fi
}

# Row reductions (softmax, norms, cross-entropy) are plans of several kernels on the GPU
# path (issue 20): the plan prints with its cuts, the kernels run on the emulator against the
# reference, and their IR prints.
plans_of_several_kernels=" gemm_softmax softmax layernorm layernorm_rows rmsnorm cross_entropy mlp attention causal_attention "
for example in "$data"/examples/*.tc; do
  name=$(basename "$example" .tc)
  if [[ $plans_of_several_kernels == *" $name "* ]]; then
    sizes=(-D M=40 -D N=24 -D K=24)
    [[ $name == mlp ]] && sizes+=(-D H=32)
    [[ $name == attention ]] && sizes=(-D B=2 -D S=19 -D T=37 -D D=16)
    [[ $name == causal_attention ]] && sizes=(-D B=2 -D S=37 -D T=37 -D D=16)
    expect "$name: IR" 0 'idioms:' "$polyfuse" compile "$example" "${sizes[@]}" --emit=ir
    # A row chain without a matmul is one kernel (its partition printed); after a matmul whose
    # row (N = 24) fits a block tile, it runs in the matmul kernel's epilogue; attention (the
    # causal mask too) is one attention kernel (online softmax); the MLP's two matmuls are one
    # back-to-back kernel (H = 32 fits on chip).
    plan_text='partition: '
    [[ $name == gemm_softmax || $name == layernorm || $name == rmsnorm ]] && plan_text='runs in the epilogue'
    [[ $name == *attention ]] && plan_text='attention in one kernel'
    [[ $name == mlp ]] && plan_text='back-to-back matmuls in one kernel'
    expect "$name: plan" 0 "$plan_text" "$polyfuse" compile "$example" "${sizes[@]}" --emit=plan
    expect "$name: run on the emulator (a plan)" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --backend=emu
    # Without a matmul the CPU target runs each reduction as a loop nest between blocked stages.
    if [[ $name == softmax || $name == cross_entropy || $name == layernorm_rows ]]; then
      expect "$name: run on the CPU target (loop-nest stages)" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --target=cpu
    fi
    continue
  fi
  # Convolutions (issue 24): reduction kernels of a plan on the GPU path, loop nests on the CPU
  # target, at small odd sizes (C = 3, stride 2 with padding); each binds the sizes it uses.
  if [[ $name == conv2d* ]]; then
    sizes=(-D N=2 -D H=9 -D W=7 -D C=3 -D K=5 -D R=3 -D S=3 -D P=5 -D Q=4 -D G=2)
    expect "$name: plan" 0 'plan of def' "$polyfuse" compile "$example" "${sizes[@]}" --emit=plan
    # runs: the padded, strided one, the one with epilogues and the grouped one (ctest runs all seven)
    if [[ $name == conv2d_strided || $name == conv2d_residual || $name == conv2d_grouped_bias_relu ]]; then
      expect "$name: run on the emulator (a plan)" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --backend=emu
      expect "$name: run on the CPU target (loop nests)" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --target=cpu
    fi
    continue
  fi
  # General contractions (issue 23): a GEMM over grouped indices on tensor cores (the plan says
  # how it grouped them) and a BRGEMM over the same view on the CPU target.
  if [[ $name == tensordot ]]; then
    sizes=(-D A=6 -D B=5 -D K=4 -D L=9 -D C=24)
    expect "$name: plan" 0 'M=\(a, b\) N=\(c\) K=\(k, l\)' "$polyfuse" compile "$example" "${sizes[@]}" --emit=plan
    expect "$name: run on the emulator (a GEMM over grouped indices)" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --backend=emu
    expect "$name: run on the CPU target (a BRGEMM over grouped indices)" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --target=cpu
    continue
  fi
  # FP8 inputs (issue 22 item 4): the CPU target runs them; on the GPU path FP8 wgmma on sm_90a
  # (the emulator here), refused (exit 1) at the tensor's declaration on the other archs.
  if [[ $name == gemm_fp8 ]]; then
    sizes=(-D M=7 -D N=33 -D K=96)
    expect "$name: run on the CPU target" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --target=cpu
    expect "$name: run on sm_90a (FP8 wgmma, emulator)" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" \
      --backend=emu --arch sm_90a
    expect "$name: refused on sm_80" 1 'error: tensor .A. of def .gemm_fp8. is e4m3: FP8 tensor cores on the GPU path are' \
      "$polyfuse" compile "$example" "${sizes[@]}" --emit=cuda --arch sm_80
    continue
  fi
  if [[ $name == brgemm ]]; then
    sizes=(-D R=2 -D M=24 -D N=20 -D K=16)
    expect "$name: C++ for the CPU target" 0 'brgemm' "$polyfuse" compile "$example" "${sizes[@]}" --target=cpu --emit=cpu
    expect "$name: run on the CPU target" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --target=cpu
    continue
  fi
  sizes=(-D M=40 -D N=24 -D K=24)
  [[ $name == batched_gemm ]] && sizes+=(-D B=2)
  [[ $name == multihead_batched_gemm ]] && sizes+=(-D B=2 -D H=3)
  expect "$name: CUDA source and sidecar" 0 '' "$polyfuse" compile "$example" --emit=cuda -o "$scratch/$name.cu"
  [[ -s "$scratch/$name.cu" && -s "$scratch/$name.json" ]] || { echo "$name: no .cu or .json written" >>"$scratch/failures"; bad=$((bad + 1)); }
  # The emulator runs of the fused kernels: a few representatives (ctest runs every example;
  # here the point is the relocated kit: its headers, runtime and caches).
  case $name in
    gemm | gemm_bias_relu | batched_gemm | dequant_gemm | swiglu | gemm_f32)
      expect "$name: run on the emulator" 0 'check: ok' "$polyfuse" run "$example" "${sizes[@]}" --backend=emu --stats ;;
  esac
done
expect "gemm: cubin through NVRTC (sm_90)" 0 '' "$polyfuse" compile "$data/examples/gemm.tc" -D M=256 -D N=256 -D K=64 \
  --arch sm_90 --cubin "$scratch/gemm.cubin"
[[ -s "$scratch/gemm.cubin" ]] || { echo "gemm: no cubin written" >>"$scratch/failures"; bad=$((bad + 1)); }

for program in "$data"/tests/frontend/errors/*.tc; do
  expect "must fail: $(basename "$program")" 1 ':[0-9]+:[0-9]+: error: ' "$polyfuse" compile "$program" --emit=ir
done
for seed in "$data"/tests/fuzz/seeds/*.tc; do
  expect "fuzz seed: $(basename "$seed")" '[01]' '' "$polyfuse" compile "$seed" --emit=cuda -o "$scratch/seed.cu"
done

if ((bad)); then
  record cli FAILED "$bad of $checks checks unexpected (cli.log)"
  head -n 4 "$scratch/failures" | cut -c1-110 >"$scratch/notes"
  add_notes "$scratch/notes"
else
  record cli ok "$checks checks: every example (emulator runs of the plans and representatives), cubin, error programs, fuzz seeds, in $(($(now) - start)) s"
fi
