#!/usr/bin/env bash
# Stage "inventory" of gpu-kit/check: what this machine is and whether the kit runs on it.
# Writes $OUT_DIR/inventory.txt, the summary's header ($WORK/header.txt) and $WORK/env.sh
# (sourced by check): LD_LIBRARY_PATH with the folders where the CUDA libraries were
# found, the paths of ncu and compute-sanitizer, HAVE_GPU, and KIT_UNUSABLE when the
# carried binaries cannot run here.
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

log="$OUT_DIR/inventory.txt"
: >"$log"
header="$WORK/header.txt"
: >"$header"
env_file="$WORK/env.sh"
manifest="$KIT/share/polyfuse/kit/manifest.txt"
field() { sed -n "s/^$1=//p" "$manifest" 2>/dev/null | head -n 1; }
section() { printf '\n== %s\n' "$1" >>"$log"; }

# A tool on the PATH, else in the usual CUDA folders; empty if nowhere.
locate_tool() {
  local name=$1 candidate
  if have "$name"; then command -v "$name"; return; fi
  for candidate in /usr/local/cuda/bin/"$name" /usr/local/cuda-*/bin/"$name" /usr/local/cuda*/compute-sanitizer/"$name" \
    /opt/nvidia/nsight-compute/*/"$name" /usr/local/cuda*/nsight-compute*/"$name"; do
    [[ -x "$candidate" ]] && { echo "$candidate"; return; }
  done
}

section "kit"
{
  echo "kit folder: $KIT"
  echo "commit: $(field commit) ($(field date)), built on $(field build_host)"
  echo "kit size: $(du -sh "$KIT" 2>/dev/null | cut -f1)"
  echo "check started: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
} >>"$log"

section "machine"
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
needs_glibc=$(field glibc_needed)
{
  echo "host: $(uname -srm)"
  # shellcheck disable=SC1091
  [[ -r /etc/os-release ]] && echo "os: $(. /etc/os-release && echo "${PRETTY_NAME:-unknown}")"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), $(nproc) threads"
  echo "memory: $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
  echo "glibc: ${glibc:-unknown} (the kit needs >= ${needs_glibc:-?})"
  libstdcxx=$(find_library libstdc++.so.6)
  echo "libstdc++: ${libstdcxx:-not found} (newest: $(grep -ao 'GLIBCXX_3\.4\.[0-9]*' "$(readlink -f "${libstdcxx:-/dev/null}")" 2>/dev/null | sort -V | tail -n 1); the kit needs $(field glibcxx_needed))"
  for compiler in g++ c++ gcc clang++; do
    if have "$compiler"; then echo "$compiler: $(command -v "$compiler"), $("$compiler" --version | head -n 1)"; else echo "$compiler: not found"; fi
  done
  if have python3; then
    echo "python3: $(command -v python3), $(python3 --version 2>&1)"
    echo "matplotlib: $(python3 -c 'import matplotlib; print(matplotlib.__version__)' 2>&1 | tail -n 1)"
  else
    echo "python3: not found (no table of results per family and no plot)"
  fi
} >>"$log"

section "GPU"
have_gpu=0
gpu_line="GPU: none found"
if have nvidia-smi; then
  timeout 20 nvidia-smi >"$WORK/nvidia-smi.txt" 2>&1
  cat "$WORK/nvidia-smi.txt" >>"$log"
  # Older drivers lack some query fields: fewer fields, then the plain list.
  query=""
  for fields in name,driver_version,memory.total,compute_cap name,driver_version,memory.total; do
    query=$(timeout 20 nvidia-smi --query-gpu="$fields" --format=csv,noheader 2>/dev/null | head -n 1)
    [[ -n "$query" && "$query" != *"Field"* ]] && break
    query=""
  done
  [[ -n "$query" ]] || query=$(timeout 20 nvidia-smi -L 2>/dev/null | head -n 1)
  cuda_version=$(sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' "$WORK/nvidia-smi.txt" | head -n 1)
  if [[ -n "$query" ]]; then
    have_gpu=1
    gpu_line="GPU: $query; driver CUDA ${cuda_version:-?}"
  fi
else
  echo "nvidia-smi: not found" >>"$log"
fi
echo "$gpu_line" >>"$log"
if have nvcc; then echo "nvcc: $(command -v nvcc), $(nvcc --version | tail -n 1)" >>"$log"; else echo "nvcc: not found" >>"$log"; fi

# Libraries: every one a kit binary needs that the loader does not find, plus those
# loaded at run time (libcuda by polyfuse and cudart, libnvrtc-builtins by NVRTC, cuDNN's
# parts by cuDNN), looked for in the CUDA folders and PyTorch's wheels.
section "libraries"
missing=$(for binary in "$KIT"/bin/*; do ldd "$binary" 2>/dev/null; done | awk '/=> not found/ { print $1 }' | sort -u)
wanted=$(printf '%s\n' "$missing" libcuda.so.1 libcudart.so.13 libnvrtc.so.13 libnvrtc-builtins.so.13.0 libcublas.so.13 \
  libcublasLt.so.13 libcudnn.so.9 libcudnn_ops.so.9 | sort -u)
extra_folders=""
CUDA_FOLDERS=$(cuda_library_folders)  # searched once, by every find_library below
for soname in $wanted; do
  path=$(find_library "$soname")
  if [[ -z "$path" ]]; then
    echo "$soname: not found" >>"$log"
    continue
  fi
  echo "$soname: $path" >>"$log"
  folder=$(dirname "$path")
  if ! ldconfig -p 2>/dev/null | grep -q " => $path\$" && [[ ":${LD_LIBRARY_PATH:-}:$extra_folders:" != *":$folder:"* ]]; then
    extra_folders="${extra_folders:+$extra_folders:}$folder"
  fi
done
library_path="$extra_folders${LD_LIBRARY_PATH:+${extra_folders:+:}$LD_LIBRARY_PATH}"
echo "LD_LIBRARY_PATH for the stages: ${library_path:-(unchanged, empty)}" >>"$log"

# Can the carried binaries run here? glibc too old cannot be helped; a libstdc++ older than
# the build machine's is replaced by the one carried in lib/fallback.
section "kit binaries"
probe() { LD_LIBRARY_PATH="$1" "$KIT/bin/polyfuse" --help >/dev/null 2>"$WORK/probe.err"; }
unusable=""
if probe "$library_path"; then
  echo "bin/polyfuse runs with the system's libraries" >>"$log"
elif grep -q 'GLIBCXX\|CXXABI\|GCC_' "$WORK/probe.err" && probe "$KIT/lib/fallback${library_path:+:$library_path}"; then
  library_path="$KIT/lib/fallback${library_path:+:$library_path}"
  echo "bin/polyfuse runs with the carried libstdc++ (lib/fallback): the system's is older than the build's" >>"$log"
  cat "$WORK/probe.err" >>"$log"
else
  cat "$WORK/probe.err" >>"$log"
  if grep -q "GLIBC_" "$WORK/probe.err"; then
    unusable="glibc ${glibc:-?} here, the kit needs >= ${needs_glibc:-?}: its binaries cannot run (build polyfuse on a machine with an older glibc, or here from source)"
  else
    unusable="bin/polyfuse does not start here: $(head -n 1 "$WORK/probe.err")"
  fi
fi
for binary in "$KIT"/bin/*; do
  LD_LIBRARY_PATH="$library_path" ldd "$binary" 2>&1 | awk -v b="$(basename "$binary")" '/not found|version .* not found/ { print b ": " $0 }'
done >>"$log"

section "tools"
ncu=$(locate_tool ncu)
sanitizer=$(locate_tool compute-sanitizer)
if [[ -n "$ncu" ]]; then echo "ncu: $ncu, $("$ncu" --version 2>&1 | tail -n 1)" >>"$log"; else echo "ncu: not found" >>"$log"; fi
if [[ -n "$sanitizer" ]]; then echo "compute-sanitizer: $sanitizer, $("$sanitizer" --version 2>&1 | tail -n 1)" >>"$log"; else echo "compute-sanitizer: not found" >>"$log"; fi

{
  printf 'export LD_LIBRARY_PATH=%q\n' "$library_path"
  printf 'export HAVE_GPU=%q NCU=%q SANITIZER=%q\n' "$have_gpu" "$ncu" "$sanitizer"
  [[ -n "$unusable" ]] && printf 'export KIT_UNUSABLE=%q\n' "$unusable"
} >"$env_file"

{
  echo "$gpu_line"
  echo "kit: commit $(field commit) ($(field date)); glibc ${glibc:-?}; $(uname -r); $(nproc) CPU threads"
  libraries=""
  for soname in libcudart.so.13 libnvrtc.so.13 libcublas.so.13 libcudnn.so.9; do
    libraries+="${libraries:+, }${soname%%.so*} $(grep -q "^$soname: /" "$log" && echo found || echo MISSING)"
  done
  echo "CUDA libraries: $libraries"
} >"$header"

if [[ -n "$unusable" ]]; then
  record inventory FAILED "$unusable"
elif ((NO_GPU == 0 && have_gpu == 0)); then
  record inventory FAILED "no GPU found (nvidia-smi: $(have nvidia-smi && echo 'no device' || echo 'not found')); GPU tests will skip (use --no-gpu here)"
else
  not_found=$(grep ': not found$' "$log" | cut -d: -f1 | sort -u | paste -sd ' ' -)
  if [[ -n "$not_found" ]]; then
    record inventory ok "not found here: $not_found"
  else
    record inventory ok "every library and tool looked for was found"
  fi
fi
