// The check for other measuring programs reads /proc files of processes that
// may end while they are read: a failed read is an empty file, not an
// exception (std::ifstream threw std::ios_base::failure there, ending a run).
#include "benchmarks/other_runs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace cryptobench::bench {
namespace {

TEST(ReadProcFile, ReadsAProcessFile) {
  std::string comm = read_proc_file("/proc/self/comm");
  ASSERT_FALSE(comm.empty());
  EXPECT_EQ(comm.back(), '\n');
}

TEST(ReadProcFile, AFailedReadIsEmptyNotAnException) {
  // A directory opens but fails to read (EISDIR), as a process's cmdline
  // does (ESRCH) once the process is gone.
  EXPECT_EQ(read_proc_file("/proc/self"), "");
  EXPECT_EQ(read_proc_file("/proc/0/no-such-file"), "");
}

TEST(OtherRuns, NeverListsThisProcess) {
  const std::string self = std::to_string(getpid()) + " ";
  for (const std::string& run : other_runs()) EXPECT_NE(run.rfind(self, 0), 0U) << run;
}

}  // namespace
}  // namespace cryptobench::bench
