// filter.h: --benchmark_filter as Google Benchmark applies it (a regular
// expression searched for in each name; a leading '-' inverts it), so the
// binary can count what will run (for progress) and reject a filter that
// would silently run nothing.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace cryptobench::bench {

// The longest filter accepted: far above a list of every benchmark of a
// suite joined by '|', far below what could exhaust memory.
inline constexpr std::size_t kMaxFilterLength = 65536;

struct FilterError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// select: the indices of the `names` the filter selects, in order. Throws
// FilterError, with the reason, for a filter that is too long or not a
// valid regular expression.
std::vector<std::size_t> select(const std::vector<std::string>& names, std::string filter);

}  // namespace cryptobench::bench
