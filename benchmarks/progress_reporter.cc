#include "benchmarks/progress_reporter.h"

#include <cstdio>

namespace cryptobench::bench {
namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

}  // namespace

ProgressReporter::ProgressReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner,
                                   std::size_t total)
    : inner_(std::move(inner)), total_(total), start_(std::chrono::steady_clock::now()) {}

bool ProgressReporter::ReportContext(const Context& context) {
  start_ = std::chrono::steady_clock::now();
  return inner_->ReportContext(context);
}

void ProgressReporter::ReportRuns(const std::vector<Run>& runs) {
  inner_->ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.error_occurred) {
      failures_.push_back(run.benchmark_name() + ": " + run.error_message);
      break;
    }
  }
  ++done_;
  if (total_ <= 3) return;  // a handful of benchmarks needs no progress line
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double left =
      done_ < total_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_)
                     : 0.0;
  std::fprintf(
      stderr, "[%zu/%zu] %s elapsed, ~%s left%s\n", done_, total_, clock_text(elapsed).c_str(),
      clock_text(left).c_str(),
      failures_.empty() ? "" : (", " + std::to_string(failures_.size()) + " FAILED").c_str());
}

void ProgressReporter::Finalize() { inner_->Finalize(); }

}  // namespace cryptobench::bench
