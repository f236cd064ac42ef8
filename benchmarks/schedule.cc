#include "benchmarks/schedule.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>

namespace cryptobench::bench {
namespace {

void register_cell(const Cell& cell, const CellSetup* setup, std::int64_t iterations) {
  auto* b = benchmark::RegisterBenchmark(
      cell.name().c_str(),
      [cell, setup](benchmark::State& state) { run_cell(state, cell, *setup); });
  b->Threads(cell.threads)
      ->UseRealTime()
      ->Unit(cell.size >= 65536 ? benchmark::kMicrosecond : benchmark::kNanosecond);
  if (iterations > 0) b->Iterations(iterations);
}

}  // namespace

void add_slower_twins(std::vector<Planned>& plan, const std::string& backend, int percent,
                      std::deque<CellSetup>& storage) {
  const std::size_t planned = plan.size();
  for (std::size_t k = 0; k < planned; ++k) {
    if (plan[k].cell.backend != backend) continue;
    Cell twin = plan[k].cell;
    twin.backend += "-slower" + std::to_string(percent);
    storage.push_back(*plan[k].setup);
    storage.back().extra_percent = percent;
    plan.push_back({twin, &storage.back()});
  }
}

std::size_t register_benchmarks(const std::vector<Planned>& plan, int first_round, int last_round,
                                double min_time) {
  if (first_round <= 0) {
    for (const Planned& p : plan) register_cell(p.cell, p.setup, 0);
    return plan.size();
  }
  // A workload class: the benchmarks that differ only in backend.
  std::vector<std::string> class_order;
  std::map<std::string, std::vector<std::size_t>> classes;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    Cell without_backend = plan[k].cell;
    without_backend.backend.clear();
    const std::string key = without_backend.full_name();
    if (!classes.count(key)) class_order.push_back(key);
    classes[key].push_back(k);
  }
  // Each benchmark's iterations are sized once, here, for the minimum time
  // (Google Benchmark would size every round's run again, in runs it throws
  // away); the clock is then sampled briefly around each loop.
  std::vector<std::int64_t> iterations(plan.size(), 1);
  for (std::size_t k = 0; k < plan.size() && !interrupted(); ++k) {
    iterations[k] = calibrate_iterations(plan[k].cell, *plan[k].setup, min_time);
  }
  for (const Planned& p : plan) {
    p.setup->clock_samples = 1;
    p.setup->calibrated = true;
  }
  // In each round the classes come in a new random order, and a class's
  // backends one after the other in a new random order: every ratio between
  // them compares moments a few hundred milliseconds apart.
  std::mt19937_64 random(std::random_device{}());
  for (int round = first_round; round <= last_round; ++round) {
    std::shuffle(class_order.begin(), class_order.end(), random);
    for (const std::string& key : class_order) {
      std::vector<std::size_t>& members = classes[key];
      std::shuffle(members.begin(), members.end(), random);
      for (const std::size_t k : members) {
        Cell cell = plan[k].cell;
        cell.round = round;
        register_cell(cell, plan[k].setup, iterations[k]);
      }
    }
  }
  return plan.size() * static_cast<std::size_t>(last_round - first_round + 1);
}

}  // namespace cryptobench::bench
