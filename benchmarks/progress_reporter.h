// progress_reporter.h: wraps the display reporter to (1) print progress on
// stderr (done/total, elapsed, estimate of what is left) and (2) remember
// whether any benchmark failed, so the binary can exit non-zero.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace cryptobench::bench {

class ProgressReporter final : public benchmark::BenchmarkReporter {
 public:
  ProgressReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, std::size_t total);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  std::size_t failed() const { return failures_.size(); }
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::vector<std::string> failures_;
};

}  // namespace cryptobench::bench
