// filter.cc: Debian's libbenchmark 1.7.1 matches with std::regex, extended
// syntax, and a leading '-' inverts the filter; this mirrors it exactly.
#include "benchmarks/filter.h"

#include <algorithm>

// GCC 12 reports a false -Wmaybe-uninitialized inside <regex> when building
// with sanitizers (std::function moves in the NFA builder).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop

namespace cryptobench::bench {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
std::optional<std::size_t> count_selected(const std::vector<std::string>& names,
                                          std::string filter) {
  if (filter.empty() || filter == "all") return names.size();
  bool negate = false;
  if (filter[0] == '-') {
    negate = true;
    filter.erase(0, 1);
  }
  std::regex re;
  try {
    re = std::regex(filter, std::regex::extended);
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(
      std::count_if(names.begin(), names.end(),
                    [&](const std::string& n) { return std::regex_search(n, re) != negate; }));
}
#pragma GCC diagnostic pop

}  // namespace cryptobench::bench
