#!/usr/bin/env bash
# Stage "relocation" of gpu-kit/check --no-gpu: every binary and library of the kit loads
# nothing from outside the kit but the system's base libraries (glibc, the GCC runtime)
# and CUDA's (driver, runtime, NVRTC, cuBLAS, cuDNN), and finds its own through
# $ORIGIN/../lib (bin/) or $ORIGIN (lib/).
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

log="$OUT_DIR/relocation.log"
: >"$log"
base='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1)$'
cuda='^(libcuda\.so\.1|libcudart\.so\.13|libnvrtc\.so\.13|libnvrtc-builtins\.so\.[0-9.]+|libcublas\.so\.13|libcublasLt\.so\.13|libcudnn[a-z_]*\.so\.9)$'
is_elf() { [[ -f "$1" && "$(head -c 4 "$1" | od -An -c | tr -d ' ')" == '177ELF' ]]; }

checked=0 outside=0 missing_cuda=""
for file in "$KIT"/bin/* "$KIT"/lib/*.so*; do
  is_elf "$file" || continue
  checked=$((checked + 1))
  relative=${file#"$KIT"/}
  echo "== $relative" >>"$log"
  if have readelf; then
    runpath=$(readelf -d "$file" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
    # shellcheck disable=SC2016  # the literal $ORIGIN of a run path
    expected='$ORIGIN/../lib'
    # shellcheck disable=SC2016
    [[ $relative == lib/* ]] && expected='$ORIGIN'
    echo "runpath: ${runpath:-none}" >>"$log"
    if [[ "$runpath" != "$expected" ]]; then
      echo "OUTSIDE: runpath '$runpath', expected '$expected'" >>"$log"
      outside=$((outside + 1))
    fi
  fi
  while read -r name arrow path _; do
    [[ -z "$name" || "$name" == statically ]] && continue
    [[ "$arrow" != "=>" ]] && path=$name
    if [[ "$path" == "$KIT"/* ]]; then
      verdict="kit"
    elif [[ "$(basename "$name")" =~ $base ]]; then
      verdict="system base"
    elif [[ "$(basename "$name")" =~ $cuda ]]; then
      verdict="CUDA"
      [[ "$path" == not ]] && missing_cuda="$missing_cuda $name"
    else
      verdict="OUTSIDE"
      outside=$((outside + 1))
    fi
    echo "$verdict: $name => $path" >>"$log"
  done < <(ldd "$file" 2>&1 | sed 's/ (0x[0-9a-f]*)$//')
done

source_root=$(sed -n 's/^source_root=//p' "$KIT/share/polyfuse/kit/manifest.txt" 2>/dev/null)
if [[ -n "$source_root" && -d "$source_root" ]]; then
  echo "note: the build's source tree $source_root is visible here (hide it to prove that nothing reads it)" >>"$log"
fi
if ((outside)); then
  record relocation FAILED "$outside libraries or run paths outside the kit, base and CUDA libraries (relocation.log)"
  grep '^OUTSIDE' "$log" | sort -u | head -n 4 | cut -c1-110 >"$WORK/relocation-notes.txt"
  add_notes "$WORK/relocation-notes.txt"
else
  record relocation ok "$checked binaries and libraries load only the kit's, base and CUDA libraries"
fi
if [[ -n "$missing_cuda" ]]; then
  echo "CUDA libraries not on this machine:$(echo "$missing_cuda" | tr ' ' '\n' | sort -u | tr '\n' ' ')" >"$WORK/relocation-cuda.txt"
  add_notes "$WORK/relocation-cuda.txt"
fi
