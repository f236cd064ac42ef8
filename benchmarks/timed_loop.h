// timed_loop.h: one benchmark cell's run: its workload prepared outside
// the timing, the timed loop with the clock sampled around it, the check of
// the last output, and the counters. Also the run's failure log and Ctrl-C.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "benchmarks/grid.h"
#include "kernels/backend.h"
#include "kernels/registry.h"

namespace cryptobench::bench {

struct CellSetup {
  // member: the backend, and whose results each cell's output must equal.
  const BackendSet::Member* member;
  int cores;
  bool inject_verify_fault;
  bool inject_tag_fault;  // GCM decrypt: open a message whose tag is wrong
  // extra_percent: a test-only slower copy of a backend (--inject-slower)
  // runs this many of every 100 operations twice (3: 3% more work).
  int extra_percent = 0;
  // clock_samples: 0.25 ms core-clock samples before and after each loop.
  int clock_samples = 9;
  // calibrated: the loop's iterations were set beforehand (the paired
  // design: Google Benchmark does not size each round's run again).
  bool calibrated = false;
};

// calibrate_iterations: how many iterations of the cell fill `seconds`,
// from about 1 ms of them after one to warm up (at least 1).
std::int64_t calibrate_iterations(const Cell& cell, const CellSetup& setup, double seconds);

// noise_sensitivity: how much the injected neighbour (--inject-noise) slows
// this cell, as the real one does: a CBC-encryption chain barely (it is
// latency-bound), throughput-bound code fully, per backend a little apart.
double noise_sensitivity(const Cell& cell);

// run_cell: the benchmark function of every cell.
void run_cell(benchmark::State& state, const Cell& cell, const CellSetup& setup);

// failures: "<benchmark>: <message>" for every cell that failed so far.
std::vector<std::string> failures();

// catch_interrupts: Ctrl-C (or SIGTERM, SIGHUP) lets the running benchmark
// finish, skips the rest quickly and completes the JSON, so what finished
// stays usable; a second signal stops the running benchmark too. With
// interleaved repetitions only the running repetition finishes: every
// benchmark has started by then, and the rest of them would be the run.
// min_time: seconds per repetition, to tell a repetition's loop from the
// shorter ones that size it.
void catch_interrupts(bool on, bool interleaved = false, double min_time = 0);
bool interrupted();
// interrupt_signal: the first signal caught (SIGINT, SIGTERM, SIGHUP), or 0.
int interrupt_signal();
// skipped_after_interrupt: benchmarks not run because of Ctrl-C.
std::size_t skipped_after_interrupt();

}  // namespace cryptobench::bench
