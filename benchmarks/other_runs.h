// other_runs.h: other cryptobench programs measuring on this machine as a run
// starts (their figures and this run's share the cores).
#pragma once

#include <string>
#include <vector>

namespace cryptobench::bench {

// other_runs: "PID COMMAND LINE" (cut to 120 characters) of every other
// process that measures: a cryptobench binary that is not only
// listing, a ping-pong server or client, dudect, cryptobench-limits. Read
// from /proc; empty when none (or /proc is not readable).
std::vector<std::string> other_runs();

}  // namespace cryptobench::bench
