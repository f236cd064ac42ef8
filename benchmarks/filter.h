// filter.h: --benchmark_filter as Google Benchmark 1.7.1 applies it, so the
// binary can count what will run (for progress) and reject a filter that
// would silently run nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cryptobench::bench {

// select: the indices of the `names` the filter selects, in order, or
// nullopt when the filter is not a valid regular expression.
std::optional<std::vector<std::size_t>> select(const std::vector<std::string>& names,
                                               std::string filter);

}  // namespace cryptobench::bench
