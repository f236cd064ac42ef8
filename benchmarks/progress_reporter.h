// progress_reporter.h: wraps the display reporter to print progress on
// stderr (done/total, elapsed, estimate of what is left) and, at the end, the
// operations per millisecond of every benchmark that reports them, the seeds'
// figure, which the console table would label as a per-second rate.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace cryptobench::bench {

class ProgressReporter final : public benchmark::BenchmarkReporter {
 public:
  ProgressReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, std::size_t total,
                   bool print_ops_per_ms);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::size_t total_;
  bool print_ops_per_ms_;
  std::set<std::string> done_;  // benchmark names reported so far
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, std::vector<double>> ops_per_ms_;  // seed000 runs, per repetition
};

}  // namespace cryptobench::bench
