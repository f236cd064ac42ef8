// filter.cc: the filter is matched with RE2, not std::regex as Google
// Benchmark 1.7.1 does: libstdc++'s regex recurses once per nesting level
// and per character (20,000 nested parentheses or a 100,000-character
// pattern overflow the stack) and backtracks ((.*)*x$ runs for minutes).
// RE2 runs in time linear in the name and within a memory budget, and its
// syntax is a superset of the POSIX extended syntax users write for Google
// Benchmark (alternation, groups, classes, anchors, repetition counts).
#include "benchmarks/filter.h"

#include <re2/re2.h>

namespace cryptobench::bench {

std::vector<std::size_t> select(const std::vector<std::string>& names, std::string filter) {
  std::vector<std::size_t> chosen;
  if (filter.empty() || filter == "all") {
    for (std::size_t i = 0; i < names.size(); ++i) chosen.push_back(i);
    return chosen;
  }
  if (filter.size() > kMaxFilterLength) {
    throw FilterError("is " + std::to_string(filter.size()) + " characters long; the limit is " +
                      std::to_string(kMaxFilterLength));
  }
  bool negate = false;
  if (filter[0] == '-') {
    negate = true;
    filter.erase(0, 1);
  }
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);  // compiled program and DFA cache
  const RE2 re(filter, options);
  if (!re.ok()) throw FilterError("is not a valid regular expression (" + re.error() + ")");
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (RE2::PartialMatch(names[i], re) != negate) chosen.push_back(i);
  }
  return chosen;
}

}  // namespace cryptobench::bench
