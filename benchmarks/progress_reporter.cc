#include "benchmarks/progress_reporter.h"

#include <algorithm>
#include <cstdio>

namespace cryptobench::bench {
namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

}  // namespace

ProgressReporter::ProgressReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner,
                                   std::size_t total, bool print_ops_per_ms)
    : inner_(std::move(inner)),
      total_(total),
      print_ops_per_ms_(print_ops_per_ms),
      start_(std::chrono::steady_clock::now()) {}

bool ProgressReporter::ReportContext(const Context& context) {
  start_ = std::chrono::steady_clock::now();
  return inner_->ReportContext(context);
}

void ProgressReporter::ReportRuns(const std::vector<Run>& runs) {
  inner_->ReportRuns(runs);
  // Repetitions arrive as one call for the runs and one for the aggregates:
  // count benchmarks by name.
  for (const Run& run : runs) {
    const std::string name = run.run_name.str();
    done_.insert(name);
    const auto counter = run.counters.find("ops_per_ms");
    if (run.run_type == Run::RT_Iteration && !run.error_occurred && counter != run.counters.end() &&
        name.rfind("seed000/", 0) == 0) {
      ops_per_ms_[name].push_back(counter->second.value);
    }
  }
  if (total_ <= 3) return;  // a handful of benchmarks needs no progress line
  const std::size_t done = std::min(done_.size(), total_);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double left = done < total_
                          ? elapsed / static_cast<double>(done) * static_cast<double>(total_ - done)
                          : 0.0;
  std::fprintf(stderr, "[%zu/%zu] %s elapsed, ~%s left\n", done, total_,
               clock_text(elapsed).c_str(), clock_text(left).c_str());
}

void ProgressReporter::Finalize() {
  inner_->Finalize();
  if (!print_ops_per_ms_ || ops_per_ms_.empty()) return;
  std::printf("\nops/ms, all threads together (median of repetitions):\n");
  for (const auto& [name, values] : ops_per_ms_) {
    std::printf("  %-110s %10.1f\n", name.c_str(), median(values));
  }
}

}  // namespace cryptobench::bench
