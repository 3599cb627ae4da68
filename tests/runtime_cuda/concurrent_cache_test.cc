// Several processes compile the same kernel into one cache directory at once: every one
// succeeds and the directory ends with exactly one valid entry and no temporary files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "handwritten_kernel.h"
#include "runtime/cache/cache_entry.h"
#include "runtime/cuda/kernel_cache.h"
#include "test_dir.h"

namespace {
using namespace polyfuse::cuda;
namespace fs = std::filesystem;

TEST(KernelCacheConcurrency, ForkedWritersOfOneKeyAllSucceedAndLeaveOneValidEntry) {
  const pf_runtime_test::ScopedDirectory scoped("cache");
  const fs::path& dir = scoped.path;
  const std::string source = pf_runtime_test::scale_relu_source("concurrent");
  constexpr int writers = 6;
  int start_pipe[2];
  ASSERT_EQ(pipe(start_pipe), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < writers; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(start_pipe[1]);
      char go;
      if (read(start_pipe[0], &go, 1) != 1) _exit(3);  // all start together
      try {
        KernelCache cache({true, dir});
        const CacheLookup r = cache.compile(source, NvrtcOptions{}, "scale_relu");
        _exit(r.output && !r.output->cubin.empty() ? 0 : 1);
      } catch (...) {
        _exit(2);
      }
    }
    children.push_back(pid);
  }
  close(start_pipe[0]);
  const std::string go(writers, 'g');
  ASSERT_EQ(write(start_pipe[1], go.data(), go.size()), static_cast<ssize_t>(go.size()));
  close(start_pipe[1]);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "writer " << pid;
  }

  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u) << "expected one entry and no temporary files";
  KernelCache cache({true, dir});
  EXPECT_EQ(files[0], cache.entry_path(source, NvrtcOptions{}));
  std::ifstream in(files[0], std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  EXPECT_TRUE(polyfuse::cache::decode_entry(bytes.str(), cache.key_text(NvrtcOptions{}) + '\0' + source).has_value());
  EXPECT_EQ(cache.compile(source, NvrtcOptions{}, "scale_relu").outcome, CacheOutcome::disk_hit);
}

}  // namespace
