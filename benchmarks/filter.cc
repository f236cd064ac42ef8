// filter.cc: Debian's libbenchmark 1.7.1 matches with std::regex, extended
// syntax, and a leading '-' inverts the filter; this mirrors it exactly.
#include "benchmarks/filter.h"

// GCC 12 reports a false -Wmaybe-uninitialized inside <regex> when building
// with sanitizers (std::function moves in the NFA builder).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop

namespace cryptobench::bench {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
std::optional<std::vector<std::size_t>> select(const std::vector<std::string>& names,
                                               std::string filter) {
  std::vector<std::size_t> chosen;
  if (filter.empty() || filter == "all") {
    for (std::size_t i = 0; i < names.size(); ++i) chosen.push_back(i);
    return chosen;
  }
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
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (std::regex_search(names[i], re) != negate) chosen.push_back(i);
  }
  return chosen;
}
#pragma GCC diagnostic pop

}  // namespace cryptobench::bench
