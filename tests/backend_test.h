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
  }

  const AesBackend& backend() const { return *backend_; }

 private:
  std::unique_ptr<AesBackend> backend_;
};

inline std::string backend_param_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace cryptobench::testing

#define CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(fixture)                                          \
  INSTANTIATE_TEST_SUITE_P(Backends, fixture,                                                  \
                           ::testing::ValuesIn(cryptobench::testing::all_compiled_backends()), \
                           cryptobench::testing::backend_param_name)
