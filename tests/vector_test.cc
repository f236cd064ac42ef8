// vector_test.cc: every shipped vector file on every backend, one test each.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "tests/backend_test.h"
#include "tools/vectors/vector_check.h"

namespace cryptobench {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> vector_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(CRYPTOBENCH_VECTOR_DIR)) {
    const auto ext = entry.path().extension();
    if (ext == ".rsp" || ext == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

using Param = std::tuple<std::string, std::string>;  // backend, file

class VectorFileTest : public ::testing::TestWithParam<Param> {};

TEST_P(VectorFileTest, AllCasesPass) {
  const auto& [name, path] = GetParam();
  const BackendEntry* entry = find_backend(name);
  ASSERT_NE(entry, nullptr);
  if (const std::string why = unusable_reason(*entry); !why.empty()) {
    GTEST_SKIP() << "backend " << name << " cannot run on this CPU: " << why;
  }
  const auto backend = entry->open();
  const std::string text = vectors::read_file(path);
  const std::string file_name = fs::path(path).filename().string();
  const vectors::FileReport report =
      vectors::check_file(*backend, vectors::parse_vector_file(path, file_name, text));
  if (!report.not_offered.empty()) GTEST_SKIP() << name << ": " << report.not_offered;
  EXPECT_GT(report.cases, 0u);
  EXPECT_EQ(report.failed(), 0u) << (report.failures.empty() ? "" : report.failures.front());
  std::cout << "[ vectors  ] " << name << " " << file_name << ": " << report.passed << "/"
            << report.cases << " passed";
  if (report.outside_limits != 0) {
    std::cout << ", " << report.outside_limits
              << " cases outside the library's limits: " << report.limits;
  }
  std::cout << "\n";
}

TEST(VectorFiles, AllStandardFilesAreShipped) {
  // NIST KAT/MMT for ECB and CBC and CBC MCT at every key size, plus
  // Wycheproof AES-CBC-PKCS5 (216 cases) and AES-GCM (316).
  const auto files = vector_files();
  EXPECT_EQ(files.size(), 35u);
  std::size_t cbc_cases = 0, gcm_cases = 0;
  for (const auto& f : files) {
    if (fs::path(f).extension() == ".json") {
      const auto file = vectors::parse_wycheproof(f, vectors::read_file(f));
      (file.algorithm == vectors::WycheproofAlgorithm::kAesGcm ? gcm_cases : cbc_cases) +=
          file.cases.size();
    }
  }
  EXPECT_EQ(cbc_cases, 216u);
  EXPECT_EQ(gcm_cases, 316u);
}

std::string vector_test_name(const ::testing::TestParamInfo<Param>& param_info) {
  std::string stem = fs::path(std::get<1>(param_info.param)).stem().string();
  std::replace_if(
      stem.begin(), stem.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return testing::test_name_of(std::get<0>(param_info.param)) + "_" + stem;
}

INSTANTIATE_TEST_SUITE_P(Vectors, VectorFileTest,
                         ::testing::Combine(::testing::ValuesIn(testing::all_compiled_backends()),
                                            ::testing::ValuesIn(vector_files())),
                         vector_test_name);

}  // namespace
}  // namespace cryptobench
