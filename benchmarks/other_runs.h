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

// read_proc_file: a /proc file of a process that may end while it is read:
// its content, or "" when it cannot be opened or a read fails (ESRCH: the
// process is gone), never an exception.
std::string read_proc_file(const std::string& path);

}  // namespace cryptobench::bench
