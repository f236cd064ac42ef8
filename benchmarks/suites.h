// suites.h: named slices of the grid. Not every cell is worth running by
// default; each suite answers one question in a bounded time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "benchmarks/grid.h"

namespace cryptobench::bench {

struct Suite {
  std::string_view name;
  std::string_view description;
  double min_time_seconds;  // per repetition, unless --benchmark_min_time is given
  // repetitions: the suite's default, unless --benchmark_repetitions is given.
  // Above 1 they are interleaved at random across benchmarks, so that the
  // machine's drift over the run hits every backend alike and shows up in
  // each benchmark's spread instead of between benchmarks.
  int repetitions;
  std::vector<Cell> (*cells)(const std::vector<std::string>& backends, int cores);
};

const std::vector<Suite>& suites();
// find_suite: nullptr when unknown.
const Suite* find_suite(std::string_view name);
std::string suite_names();  // "quick, seed000, ..."

}  // namespace cryptobench::bench
