// Compiles a .tc file at run time with an installed polyfuse and runs it on the GPU if
// there is one, else on the emulator; checks one element.  usage: consumer FILE.tc
#include <polyfuse/polyfuse.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  try {
    auto program = polyfuse::TensorProgram::from_file(argv[1]);
    program.bind({{"M", 128}, {"N", 128}, {"K", 32}});
    polyfuse::CompileOptions options;
    options.backend = polyfuse::cuda_device_available() ? polyfuse::Backend::cuda : polyfuse::Backend::emu;
    polyfuse::CompiledKernel kernel = program.compile(options);

    std::vector<std::uint16_t> a(128 * 32, 0x3c00), b(32 * 128, 0x3c00), c(128 * 128);  // f16 ones
    if (options.backend == polyfuse::Backend::emu) {
      kernel.launch({a, b, c});
    } else {
      polyfuse::DeviceBuffer da(a.size() * 2), db(b.size() * 2), dc(c.size() * 2);
      da.upload(a.data(), da.bytes());
      db.upload(b.data(), db.bytes());
      kernel.launch({da.data(), db.data(), dc.data()});
      polyfuse::synchronize();
      dc.download(c.data(), dc.bytes());
    }
    std::printf("polyfuse %s, backend %s, C[0] bits 0x%04x\n", polyfuse::version(),
                polyfuse::to_string(options.backend).c_str(), c[0]);
    return c[0] == 0x5000 && c[128 * 128 - 1] == 0x5000 ? 0 : 1;  // 32.0 in f16
  } catch (const polyfuse::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
