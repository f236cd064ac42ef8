// backend_test.h: a fixture parameterized over every backend compiled in.
// A backend that cannot run on this CPU is skipped with the reason, never
// passed silently.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.h"

namespace cryptobench::testing {

inline std::vector<std::string> all_compiled_backends() {
  std::vector<std::string> names;
  for (const BackendEntry* entry : compiled_backends()) names.emplace_back(entry->name);
  return names;
}

class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const BackendEntry* entry = find_backend(GetParam());
    ASSERT_NE(entry, nullptr);
    if (const std::string why = unusable_reason(*entry); !why.empty()) {
      GTEST_SKIP() << "backend " << GetParam() << " cannot run on this CPU: " << why;
    }
    backend_ = entry->open();
    info_ = backend_->info();
    for (const Mode m : info_.modes) {
      if (is_block_mode(m)) block_modes_.push_back(m);
    }
  }

  const AesBackend& backend() const { return *backend_; }
  // modes: the block modes (AesCipher's) the backend offers (tests loop over
  // these, never over a fixed list, so a backend without ECB needs no special
  // case). CTR and GCM have tests of their own.
  const std::vector<Mode>& modes() const { return block_modes_; }
  bool offers(Mode mode) const { return info_.offers(mode); }

 private:
  std::unique_ptr<AesBackend> backend_;
  BackendInfo info_;
  std::vector<Mode> block_modes_;
};

// test_name_of: a backend name as a GoogleTest name part ('-', as in
// openssl-aes, is not allowed there).
inline std::string test_name_of(std::string backend) {
  for (char& c : backend) {
    if (c == '-') c = '_';
  }
  return backend;
}

inline std::string backend_param_name(const ::testing::TestParamInfo<std::string>& info) {
  return test_name_of(info.param);
}

}  // namespace cryptobench::testing

// Skips a test that needs `mode` when the backend does not offer it.
#define CRYPTOBENCH_REQUIRE_MODE(mode)                                                       \
  do {                                                                                       \
    if (!offers(mode)) GTEST_SKIP() << "mode not offered: " << backend().info().not_offered; \
  } while (0)

// Skips a test of the block modes for a backend that offers none (a
// GCM-only library): its loops over modes() would pass without a check.
#define CRYPTOBENCH_REQUIRE_BLOCK_MODE()                                         \
  do {                                                                           \
    if (modes().empty()) {                                                       \
      GTEST_SKIP() << "no block mode offered: " << backend().info().not_offered; \
    }                                                                            \
  } while (0)

#define CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(fixture)                                          \
  INSTANTIATE_TEST_SUITE_P(Backends, fixture,                                                  \
                           ::testing::ValuesIn(cryptobench::testing::all_compiled_backends()), \
                           cryptobench::testing::backend_param_name)
