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
  }

  const AesBackend& backend() const { return *backend_; }
  // modes: the modes the backend offers (tests loop over these, never over a
  // fixed list, so a backend without ECB needs no special case).
  const std::vector<Mode>& modes() const { return info_.modes; }
  bool offers(Mode mode) const { return info_.offers(mode); }

 private:
  std::unique_ptr<AesBackend> backend_;
  BackendInfo info_;
};

inline std::string backend_param_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace cryptobench::testing

// Skips a test that needs `mode` when the backend does not offer it.
#define CRYPTOBENCH_REQUIRE_MODE(mode)                                                       \
  do {                                                                                       \
    if (!offers(mode)) GTEST_SKIP() << "mode not offered: " << backend().info().not_offered; \
  } while (0)

#define CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(fixture)                                          \
  INSTANTIATE_TEST_SUITE_P(Backends, fixture,                                                  \
                           ::testing::ValuesIn(cryptobench::testing::all_compiled_backends()), \
                           cryptobench::testing::backend_param_name)
