// The data root's rules in the build tree: $POLYFUSE_DATA_DIR first, else (no
// share/polyfuse beside the test executable) the source tree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "runtime/paths/data_root.h"

namespace {
using polyfuse::paths::data_root;
using polyfuse::paths::DataRootOrigin;

void anchor() {}

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnvironment() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(DataRoot, EnvironmentComesFirst) {
  ScopedEnvironment env("POLYFUSE_DATA_DIR", "/some/where");
  const auto root = data_root(reinterpret_cast<const void*>(&anchor), "/the/source/tree");
  EXPECT_EQ(root.path, "/some/where");
  EXPECT_EQ(root.origin, DataRootOrigin::environment);
}

TEST(DataRoot, EmptyEnvironmentIsIgnored) {
  ScopedEnvironment env("POLYFUSE_DATA_DIR", "");
  EXPECT_EQ(data_root(reinterpret_cast<const void*>(&anchor), "/the/source/tree").origin, DataRootOrigin::source_tree);
}

TEST(DataRoot, TheSourceTreeWithoutACopyBesideTheBinary) {
  ScopedEnvironment env("POLYFUSE_DATA_DIR", nullptr);
  const auto root = data_root(reinterpret_cast<const void*>(&anchor), "/the/source/tree");
  EXPECT_EQ(root.path, "/the/source/tree");
  EXPECT_EQ(root.origin, DataRootOrigin::source_tree);
  EXPECT_EQ(data_root(nullptr, "/the/source/tree").origin, DataRootOrigin::source_tree);
}

}  // namespace
