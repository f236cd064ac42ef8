// cli.h: cryptobench's command line: its own flags, and Google Benchmark's
// flags as they are handed on, with the checks and workarounds Debian's
// libbenchmark 1.7.1 needs (it aborts on some values, misreads others, and
// writes --benchmark_out in place).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "benchmarks/suites.h"

namespace cryptobench::bench {

struct Options {
  std::string suite = "decision";
  std::vector<std::string> backends;
  // plugins: shared libraries to run as backends (--plugin, repeatable, and
  // $CRYPTOBENCH_PLUGINS, ':'-separated), loaded once they pass their self-check.
  std::vector<std::string> plugins;
  bool list_backends = false;
  bool list_suites = false;
  bool inject_verify_fault = false;  // --inject-fault=verify: for the tests of verification
  bool inject_tag_fault = false;     // --inject-fault=tag: for the tests of GCM's tag check
  std::string cpuprofile;
  // design: "rounds" (repetitions become rounds; a workload class's backends
  // run side by side in each, in a new random order) or "interleaved"
  // (Google Benchmark's random interleaving of repetitions).
  std::string design = "rounds";
  bool design_given = false;
  std::string samples_out;  // the per-sample record (samples.h); "" for none
  // --round-part=K/N: this process runs the K-th of N equal parts of the
  // rounds (0/0: all), so that a run's rounds can span several processes,
  // each with its own memory layout (tools/run-benchmarks joins them).
  int round_part = 0;
  int round_parts = 0;
  // --inject-noise=SEED: the noisy neighbour (samples.h), for tests.
  bool inject_noise = false;
  std::uint64_t noise_seed = 0;
  // --inject-slower=BACKEND:PCT: a test-only copy BACKEND-slowerPCT doing PCT% more work.
  std::string slower_backend;
  int slower_percent = 0;
  std::vector<std::string> benchmark_args;  // Google Benchmark's, argv[0] first
};

// usage_error: prints "cryptobench: MESSAGE" and exits 2.
[[noreturn]] void usage_error(const std::string& message);

// parse_options: cryptobench's flags; the rest are kept for Google
// Benchmark. --help prints the usage and exits 0; a bad flag exits 2.
Options parse_options(int argc, char** argv);

// BenchmarkFlags: Google Benchmark's flags, checked, ready for Initialize().
class BenchmarkFlags {
 public:
  // Takes the BENCHMARK_* environment flags as arguments, adds the suite's
  // minimum time unless one is given, checks the numeric flags, and sends
  // --benchmark_out to a temporary file (see finish_output).
  BenchmarkFlags(std::vector<std::string> args, const Suite& suite, const Options& options);

  const std::string& filter() const { return filter_; }
  bool list_only() const { return list_only_; }
  bool console_format() const { return format_.empty() || format_ == "console"; }
  const std::string& out_file() const { return out_file_; }
  int repetitions() const { return repetitions_; }
  bool interleaved() const { return interleaved_; }
  // rounds: the paired design's rounds (the repetitions asked for), 0 when
  // the design is not in use; Google Benchmark then runs one repetition each.
  int rounds() const { return rounds_; }
  // first_round, last_round: the rounds this process runs (1-based, both
  // included): all of them, or its part of them (--round-part).
  int first_round() const { return first_round_; }
  int last_round() const { return last_round_; }
  double min_time() const;  // seconds per repetition
  // user_context: the --benchmark_context (or BENCHMARK_CONTEXT) pairs, in order.
  const std::vector<std::pair<std::string, std::string>>& user_context() const {
    return user_context_;
  }

  // initialize: benchmark::Initialize with these flags; exits 2 on an
  // unknown flag. Only the benchmarks the filter selects are registered, so
  // Google Benchmark is given ".*" instead: 1.7.1 treats the default "."
  // specially and reserves its instance vector one family at a time, which
  // is quadratic in the number of benchmarks.
  void initialize();
  // display_reporter: console (colour only on a terminal) or JSON.
  std::unique_ptr<benchmark::BenchmarkReporter> display_reporter() const;
  // finish_output: after the run, check that the temporary --benchmark_out
  // file holds complete JSON and move it into place when benchmarks ran, or
  // drop it (a listing keeps the old file). False, with the old file kept,
  // when the JSON is incomplete or the rename fails.
  bool finish_output(std::size_t ran) const;

 private:
  bool has(const std::string& name) const;
  std::string value(const std::string& name) const;  // the last --name=value

  std::vector<std::string> args_;
  std::vector<std::string> initialized_args_;
  std::vector<char*> argv_;

  std::string filter_, format_, out_file_;
  long out_arg_ = -1;  // index of the last --benchmark_out= in args_
  bool list_only_ = false;
  int repetitions_ = 1;
  bool interleaved_ = false;
  int rounds_ = 0;
  int first_round_ = 0, last_round_ = 0;
  std::vector<std::pair<std::string, std::string>> user_context_;
};

}  // namespace cryptobench::bench
