// The polyfuse runtime API in a few lines: compile a .tc program at run time, then run it
// on the GPU if there is one, else on the CPU emulator (the very same CUDA source).
//   build/tests/runtime_api/polyfuse-api-example examples/gemm.tc
#include <polyfuse/polyfuse.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) try {
  auto program = polyfuse::TensorProgram::from_file(argc > 1 ? argv[1] : "examples/gemm.tc");
  program.bind({{"M", 256}, {"N", 256}, {"K", 128}});
  polyfuse::CompileOptions options;
  options.backend = polyfuse::cuda_device_available() ? polyfuse::Backend::cuda : polyfuse::Backend::emu;
  polyfuse::CompiledKernel kernel = program.compile(options);

  std::vector<std::uint16_t> A(256 * 128, 0x3c00), B(128 * 256, 0x3c00), C(256 * 256);  // f16 1.0
  kernel.run_on_host({A, B, C});  // or kernel.launch({d_A, d_B, d_C}, stream) with device pointers
  std::printf("%s on %s: C[0] = 0x%04x (128.0 is 0x5800)\n", kernel.info().name.c_str(),
              polyfuse::to_string(options.backend).c_str(), C[0]);
  return C[0] == 0x5800 ? 0 : 1;
} catch (const polyfuse::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
