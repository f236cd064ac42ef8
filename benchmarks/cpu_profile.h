// cpu_profile.h: --cpuprofile without losing anything. gperftools' profiler
// writes its file as it goes and aborts the process on a failed write (a
// full disk: "Check failed: r >= 0: write failed"), which would also lose
// the benchmark results. So the profiler writes into a pipe that a thread
// of ours drains into memory (a pipe write cannot fail for lack of space),
// and the profile goes to disk at the end like --benchmark_out: through a
// temporary file beside the target, every write checked, synced, renamed.
#pragma once

#include <string>
#include <thread>

namespace cryptobench::bench {

class CpuProfile {
 public:
  // start: the profiler runs from now on; false, with `*error`, when it
  // cannot start.
  bool start(std::string* error);
  // stop: the profiler stops and its output is complete in memory.
  void stop();
  // save: writes the profile to `path` (never half a file in its place);
  // false, with `*error`, when it cannot, the old file kept.
  bool save(const std::string& path, std::string* error) const;

 private:
  int read_fd_ = -1, write_fd_ = -1;
  std::thread drain_;
  std::string data_;
};

}  // namespace cryptobench::bench
