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

ProgressReporter* g_progress = nullptr;  // the run's reporter; one run at a time

}  // namespace

ProgressReporter::ProgressReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, Plan plan,
                                   bool print_ops_per_ms)
    : inner_(std::move(inner)),
      plan_(plan),
      print_ops_per_ms_(print_ops_per_ms),
      start_(std::chrono::steady_clock::now()) {
  g_progress = this;
}

ProgressReporter::~ProgressReporter() { g_progress = nullptr; }

bool ProgressReporter::ReportContext(const Context& context) {
  start_ = last_line_ = std::chrono::steady_clock::now();
  return inner_->ReportContext(context);
}

void ProgressReporter::print_progress(std::size_t done, std::size_t total) {
  done = std::min(done, total);
  const auto now = std::chrono::steady_clock::now();
  last_line_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double left = done > 0 && done < total
                          ? elapsed / static_cast<double>(done) * static_cast<double>(total - done)
                          : 0.0;
  std::fprintf(stderr, "[%zu/%zu%s] %s elapsed, ~%s left\n", done, total,
               plan_.interleaved ? " repetitions" : "", clock_text(elapsed).c_str(),
               clock_text(left).c_str());
}

void ProgressReporter::note_timed_loop(double seconds) {
  ProgressReporter* p = g_progress;
  // Loops much shorter than a repetition are Google Benchmark sizing the run.
  if (p == nullptr || !p->plan_.interleaved || seconds < 0.5 * p->plan_.min_time) return;
  ++p->loops_done_;
  const auto since = std::chrono::steady_clock::now() - p->last_line_;
  if (since > std::chrono::seconds(5)) {
    p->print_progress(p->loops_done_,
                      p->plan_.benchmarks * static_cast<std::size_t>(p->plan_.repetitions));
  }
}

void ProgressReporter::ReportRuns(const std::vector<Run>& runs) {
  inner_->ReportRuns(runs);
  // Repetitions arrive as one call for the runs and one for the aggregates:
  // count benchmarks by name.
  for (const Run& run : runs) {
    const std::string name = run.run_name.str();
    // A round's benchmark is its benchmark's repetition: one line for all rounds.
    std::string base = name;
    if (const std::size_t at = base.find("/round:"); at != std::string::npos) {
      base.erase(at, base.find('/', at + 1) - at);
    }
    done_.insert(name);
    const auto counter = run.counters.find("ops_per_ms");
    if (run.run_type == Run::RT_Iteration && !run.error_occurred && counter != run.counters.end() &&
        name.rfind("seed000/", 0) == 0) {
      ops_per_ms_[base].push_back(counter->second.value);
    }
  }
  // A handful of benchmarks needs no progress line; interleaved runs count
  // repetitions instead.
  if (plan_.benchmarks <= 3 || plan_.interleaved) return;
  // Rounds register thousands of short benchmarks: a line every 5 s.
  if (plan_.benchmarks > 100 && done_.size() < plan_.benchmarks &&
      std::chrono::steady_clock::now() - last_line_ < std::chrono::seconds(5)) {
    return;
  }
  print_progress(done_.size(), plan_.benchmarks);
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
