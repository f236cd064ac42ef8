// progress_reporter.h: wraps the display reporter to print progress on
// stderr (done/total, elapsed, estimate of what is left) and, at the end, the
// operations per millisecond of every benchmark that reports them, the seeds'
// figure, which the console table would label as a per-second rate.
// With interleaved repetitions Google Benchmark reports a benchmark only after
// its last repetition, near the end of the run, so progress is counted in
// repetitions instead, as the timed loops finish (note_timed_loop).
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace cryptobench::bench {

class ProgressReporter final : public benchmark::BenchmarkReporter {
 public:
  struct Plan {
    std::size_t benchmarks = 0;
    int repetitions = 1;
    double min_time = 0;  // seconds per repetition
    bool interleaved = false;
  };
  ProgressReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, Plan plan,
                   bool print_ops_per_ms);
  ~ProgressReporter() override;

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // note_timed_loop: thread 0 of a benchmark, after its timed loop.
  static void note_timed_loop(double seconds);

 private:
  void print_progress(std::size_t done, std::size_t total);

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  Plan plan_;
  std::size_t loops_done_ = 0;  // interleaved: loops as long as a repetition
  std::chrono::steady_clock::time_point last_line_;
  bool print_ops_per_ms_;
  std::set<std::string> done_;  // benchmark names reported so far
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, std::vector<double>> ops_per_ms_;  // seed000 runs, per repetition
};

}  // namespace cryptobench::bench
