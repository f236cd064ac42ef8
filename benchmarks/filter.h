// filter.h: --benchmark_filter as Google Benchmark 1.7.1 applies it, so the
// binary can count what will run (for progress) and reject a filter that
// would silently run nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cryptobench::bench {

// count_selected: how many of `names` the filter selects, or nullopt when the
// filter is not a valid regular expression.
std::optional<std::size_t> count_selected(const std::vector<std::string>& names,
                                          std::string filter);

}  // namespace cryptobench::bench
