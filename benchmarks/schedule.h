// schedule.h: which benchmark runs when. The paired design registers each
// benchmark once per round, a workload's backends side by side in a new
// random order each round, its iterations sized beforehand; otherwise each
// benchmark is registered once and Google Benchmark orders the repetitions.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "benchmarks/grid.h"
#include "benchmarks/timed_loop.h"

namespace cryptobench::bench {

struct Planned {
  Cell cell;
  CellSetup* setup;
};

// add_slower_twins: for --inject-slower, a test-only copy BACKEND-slowerPCT
// of each of the backend's planned cells, running PCT% of its operations
// twice; the copies' setups live in `storage`.
void add_slower_twins(std::vector<Planned>& plan, const std::string& backend, int percent,
                      std::deque<CellSetup>& storage);

// register_benchmarks: registers the plan with Google Benchmark, in rounds
// first_round to last_round (0: once each), and returns how many benchmark
// runs that makes.
std::size_t register_benchmarks(const std::vector<Planned>& plan, int first_round, int last_round,
                                double min_time);

}  // namespace cryptobench::bench
