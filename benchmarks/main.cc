// cryptobench: the benchmark binary. Its own flags are parsed before any
// benchmark is registered; every Google Benchmark flag keeps working.
//
//   cryptobench [--suite=NAME] [--backends=A,B] [--list-backends] [--list-suites]
//               [--benchmark_* flags]
//
// The jobs live apart: cli.* (the command line and Google Benchmark's
// flags), run_context.* (the JSON context), timed_loop.* (one cell's timed
// loop), workload.* (the operations), suites.* (which cells).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/aes_limits.h"
#include "benchmarks/cli.h"
#include "benchmarks/core_clock.h"
#include "benchmarks/cpu_profile.h"
#include "benchmarks/filter.h"
#include "benchmarks/other_runs.h"
#include "benchmarks/output_file.h"
#include "benchmarks/progress_reporter.h"
#include "benchmarks/run_context.h"
#include "benchmarks/samples.h"
#include "benchmarks/schedule.h"
#include "benchmarks/suites.h"
#include "benchmarks/timed_loop.h"
#include "benchmarks/usable_cores.h"
#include "kernels/registry.h"

namespace cryptobench::bench {
namespace {

void list_backends() {
  for (const BackendEntry* entry : compiled_backends()) {
    const std::string why = unusable_reason(*entry);
    if (!why.empty()) {
      std::printf("%-11s %s\n            UNUSABLE here: %s\n", entry->name, entry->summary,
                  why.c_str());
      continue;
    }
    const BackendInfo info = entry->open()->info();
    std::printf(
        "%-11s %s\n            %s %s\n            code path: %s\n            modes: %s%s%s\n"
        "            codec: %s\n            kdf: %s\n",
        entry->name, entry->summary, info.library.c_str(), info.version.c_str(),
        info.code_path.c_str(), mode_names(info.modes).c_str(),
        info.not_offered.empty() ? "" : "; not offered: ", info.not_offered.c_str(),
        info.codec.c_str(), kdf_description(info).c_str());
  }
  std::printf(
      "PKCS#7 padding is applied by cryptobench's AesCipher base class for every backend.\n");
}

// offered_cells: the suite's cells whose mode and key size the backend offers
// (one it lacks has no cells; --list-backends says why).
std::vector<Cell> offered_cells(const Suite& suite, const BackendSet& backends, int cores) {
  std::vector<Cell> cells = suite.cells(backends.names(), cores);
  std::erase_if(
      cells, [&](const Cell& c) { return !backends.find(c.backend)->offers(c.mode, c.key_bytes); });
  return cells;
}

// finish: the run's exit status, with what failed or was interrupted said.
int finish(const BenchmarkFlags& flags, std::size_t ran, std::size_t selected) {
  const std::vector<std::string> failed = failures();
  if (!failed.empty()) {
    std::fprintf(stderr, "cryptobench: %zu benchmark(s) FAILED:\n", failed.size());
    for (const std::string& f : failed) std::fprintf(stderr, "  %s\n", f.c_str());
  }
  if (interrupted() && (flags.interleaved() || flags.rounds() > 0)) {
    std::fprintf(stderr,
                 "cryptobench: interrupted: the repetitions that finished are kept%s%s; the "
                 "others are marked \"not run: the run was interrupted\"\n",
                 flags.out_file().empty() ? "" : " in ", flags.out_file().c_str());
    return 128 + interrupt_signal();
  }
  if (interrupted()) {
    const std::size_t skipped = std::min(skipped_after_interrupt(), ran);
    std::fprintf(
        stderr,
        "cryptobench: interrupted: %zu of %zu benchmarks finished%s%s; the %zu not run are "
        "marked \"not run: the run was interrupted\"\n",
        ran - skipped, ran, flags.out_file().empty() ? "" : ", results in ",
        flags.out_file().c_str(), skipped);
    return 128 + interrupt_signal();
  }
  if (!failed.empty()) return 1;
  if (ran != selected) {
    std::fprintf(stderr, "cryptobench: ran %zu of the %zu benchmarks the filter selects\n", ran,
                 selected);
    return 1;
  }
  return 0;
}

int run(int argc, char** argv) {
  // Botan serves small secure allocations from an mlock'ed pool that bypasses
  // malloc; turn it off so its allocations are counted like everyone else's.
  setenv("BOTAN_MLOCK_POOL_SIZE", "0", 0);
  // A file-size limit must make a write fail (EFBIG), which is checked,
  // rather than kill the run and lose what it measured.
  std::signal(SIGXFSZ, SIG_IGN);
  // A closed pipe on stdout (| head) must not kill the run either: the
  // results still go to --benchmark_out. And Ctrl-\ must quit at once even
  // when a shell started the binary in the background, with SIGQUIT ignored.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGQUIT, SIG_DFL);

  const Options o = parse_options(argc, argv);
  if (o.list_backends) {
    list_backends();
    return 0;
  }
  std::optional<BackendSet> backends;
  try {
    backends.emplace(o.backends);
  } catch (const BackendError& e) {
    usage_error(e.what());
  }
  // The cores the run may use (affinity mask, cgroup quota), not the machine's.
  const UsableCores usable = usable_cores();
  const int cores = usable.cores;
  const Suite& suite = *find_suite(o.suite);
  if (o.list_suites) {
    for (const Suite& s : suites()) {
      std::printf("%-13s %6zu benchmarks  %s\n", std::string(s.name).c_str(),
                  offered_cells(s, *backends, cores).size(), std::string(s.description).c_str());
    }
    return 0;
  }

  // From here on Ctrl-C is handled (a Ctrl-C during set-up skips everything).
  catch_interrupts(true);
  BenchmarkFlags flags(o.benchmark_args, suite, o);
  catch_interrupts(true, flags.interleaved(), flags.min_time());
  if (!o.cpuprofile.empty() && !flags.out_file().empty() &&
      std::filesystem::weakly_canonical(o.cpuprofile) ==
          std::filesystem::weakly_canonical(flags.out_file())) {
    usage_error(
        "--cpuprofile and --benchmark_out name the same file: one would overwrite the "
        "other");
  }
  const std::vector<Cell> cells = offered_cells(suite, *backends, cores);
  if (cells.empty()) {
    // A backend offering none of the suite's modes (a GCM-only library) has no cells.
    std::string offered;
    for (const BackendSet::Member& m : backends->members()) {
      offered += (offered.empty() ? "" : "; ") + m.name + ": " + mode_names(m.info.modes);
    }
    usage_error("suite " + o.suite + " has no benchmark in a mode these backends offer (" +
                offered + ")");
  }
  std::vector<std::string> names;
  names.reserve(cells.size());
  for (const Cell& cell : cells) names.push_back(cell.full_name());
  std::vector<std::size_t> selected;
  try {
    selected = select(names, flags.filter());
  } catch (const FilterError& e) {
    usage_error("--benchmark_filter " + std::string(e.what()));
  }
  if (selected.empty()) {
    usage_error("--benchmark_filter matches none of the " + std::to_string(cells.size()) +
                " benchmarks of suite " + o.suite);
  }
  if (!o.slower_backend.empty() &&
      std::none_of(selected.begin(), selected.end(),
                   [&](std::size_t k) { return cells[k].backend == o.slower_backend; })) {
    usage_error("--inject-slower: no selected benchmark runs backend '" + o.slower_backend + "'");
  }
  flags.initialize();

  // The clock and the AES limits take about 0.4 s; a listing reports neither.
  const AesLimits limits = flags.list_only() ? AesLimits{} : measure_aes_limits();
  const double core_hz =
      flags.list_only() ? 0 : (limits.core_hz > 0 ? limits.core_hz : measure_core_hz());
  add_run_context(o.suite, flags.interleaved() || flags.rounds() > 0, core_hz, limits, *backends);
  add_usable_cores(usable);
  if (!flags.list_only() && usable.cores < usable.online) {
    int most = 1;
    for (const std::size_t index : selected) most = std::max(most, cells[index].threads);
    if (most > usable.cores) {
      std::fprintf(stderr,
                   "cryptobench WARNING: this run may use %d of the machine's %d CPUs (affinity "
                   "%s, quota %s): its %d-thread benchmarks share cores (cycles per byte counts "
                   "%d)\n",
                   usable.cores, usable.online, usable.affinity_list.c_str(),
                   usable.quota_text.c_str(), most, usable.cores);
    }
  }
  if (!flags.list_only()) {
    // Another run measuring beside this one shares its cores: said, and
    // recorded for the results tools, which say it first.
    const std::vector<std::string> others = other_runs();
    add_concurrent_runs(others);
    if (!others.empty()) {
      std::fprintf(stderr,
                   "cryptobench WARNING: %zu other cryptobench run(s) measuring on this machine "
                   "(%s%s): their figures and this run's share the cores\n",
                   others.size(), others.front().c_str(), others.size() > 1 ? "; ..." : "");
    }
  }
  add_user_context(flags.user_context());

  // Only the selected cells are registered: listing or filtering the full
  // grid costs time linear in its size.
  std::vector<CellSetup> setups;
  for (const BackendSet::Member& m : backends->members()) {
    setups.push_back({&m, cores, o.inject_verify_fault, o.inject_tag_fault});
  }
  std::vector<Planned> plan;
  for (const std::size_t index : selected) {
    const Cell& cell = cells[index];
    const auto& members = backends->members();
    const auto member = std::find_if(members.begin(), members.end(),
                                     [&](const auto& m) { return m.name == cell.backend; });
    plan.push_back({cell, &setups[static_cast<std::size_t>(member - members.begin())]});
  }
  std::deque<CellSetup> slower_setups;
  if (!o.slower_backend.empty()) {
    add_slower_twins(plan, o.slower_backend, o.slower_percent, slower_setups);
  }
  // A listing names each benchmark once.
  const std::size_t instances =
      flags.list_only()
          ? register_benchmarks(plan, 0, 0, flags.min_time())
          : register_benchmarks(plan, flags.first_round(), flags.last_round(), flags.min_time());
  if (!flags.list_only()) {
    if (!o.samples_out.empty()) {
      char id[32];
      std::snprintf(
          id, sizeof id, "%016llx",
          static_cast<unsigned long long>(std::random_device{}()) << 32 ^ std::random_device{}());
      std::string error;
      if (!open_samples_file(o.samples_out, id, &error)) usage_error("--samples_out: " + error);
      benchmark::AddCustomContext("samples_run_id", id);
      benchmark::AddCustomContext("samples_file",
                                  std::filesystem::path(o.samples_out).filename().string());
    }
    if (o.inject_noise) {
      // Each part of a run its own neighbour (a real one does not restart
      // its schedule with each process).
      const std::uint64_t seed =
          o.noise_seed + 1000 * static_cast<std::uint64_t>(std::max(o.round_part, 0));
      start_noisy_neighbour(seed);
      benchmark::AddCustomContext("inject_noise", std::to_string(seed));
    }
    if (!o.slower_backend.empty()) {
      benchmark::AddCustomContext("inject_slower",
                                  o.slower_backend + ":" + std::to_string(o.slower_percent));
    }
  }
  benchmark::AddCustomContext("design", flags.rounds() > 0 ? "rounds" : "repetitions");
  if (flags.rounds() > 0) benchmark::AddCustomContext("rounds", std::to_string(flags.rounds()));
  if (o.round_parts > 0) {
    benchmark::AddCustomContext("round_part",
                                std::to_string(o.round_part) + "/" + std::to_string(o.round_parts));
  }

  ProgressReporter reporter(flags.display_reporter(),
                            {.benchmarks = instances,
                             .repetitions = flags.rounds() > 0 ? 1 : flags.repetitions(),
                             .min_time = flags.min_time(),
                             .interleaved = flags.interleaved()},
                            flags.console_format());
#ifdef CRYPTOBENCH_HAVE_GPERFTOOLS
  CpuProfile profile;
  if (std::string error; !o.cpuprofile.empty() && !profile.start(&error)) {
    usage_error("--cpuprofile: " + error);
  }
#endif
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  bool profile_lost = false;
#ifdef CRYPTOBENCH_HAVE_GPERFTOOLS
  profile.stop();
#endif
  benchmark::Shutdown();
  // The results first: a profile that cannot be written never costs them.
  if (!flags.finish_output(ran)) return 1;
  if (const std::string problem = console_write_problem(); !problem.empty()) {
    std::fprintf(stderr, "cryptobench: the console table could not be written (%s)%s%s\n",
                 problem.c_str(), flags.out_file().empty() ? "" : "; the results are in ",
                 flags.out_file().c_str());
    return 1;
  }
#ifdef CRYPTOBENCH_HAVE_GPERFTOOLS
  if (!o.cpuprofile.empty()) {
    if (std::string error; profile.save(o.cpuprofile, &error)) {
      std::fprintf(stderr, "cryptobench: CPU profile written to %s (google-pprof --text %s %s)\n",
                   o.cpuprofile.c_str(), argv[0], o.cpuprofile.c_str());
    } else {
      std::fprintf(stderr, "cryptobench: the CPU profile could not be written to %s (%s); %s\n",
                   o.cpuprofile.c_str(), error.c_str(),
                   flags.out_file().empty() ? "the results are above"
                                            : ("the results are in " + flags.out_file()).c_str());
      profile_lost = true;
    }
  }
#endif
  const bool samples_kept = finish_samples_file(ran > 0);
  const int status = finish(flags, ran, instances);
  if (status == 0 && !samples_kept) return 1;
  return status == 0 && profile_lost ? 1 : status;
}

}  // namespace
}  // namespace cryptobench::bench

int main(int argc, char** argv) { return cryptobench::bench::run(argc, argv); }
