// The check for other measuring programs reads /proc files of processes that
// may end while they are read: a failed read is an empty file, not an
// exception (std::ifstream threw std::ios_base::failure there, ending a run).
#include "benchmarks/other_runs.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

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

TEST(OtherRuns, ListsAMeasuringProgramButNeverThisProcess) {
  // This process named as the benchmark binary is: a child of it is
  // another run, the process itself is not.
  char name[16] = {};
  ASSERT_EQ(prctl(PR_GET_NAME, name), 0);
  ASSERT_EQ(prctl(PR_SET_NAME, "cryptobench"), 0);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // waits until its parent closes the pipe
    char byte;
    close(ready[1]);
    while (read(ready[0], &byte, 1) < 0) {
    }
    _exit(0);
  }
  close(ready[0]);
  const std::vector<std::string> runs = other_runs();
  close(ready[1]);
  waitpid(child, nullptr, 0);
  prctl(PR_SET_NAME, name);
  const std::string self = std::to_string(getpid()) + " ";
  const std::string other = std::to_string(child) + " ";
  bool child_listed = false;
  for (const std::string& run : runs) {
    EXPECT_NE(run.rfind(self, 0), 0U) << run;
    child_listed |= run.rfind(other, 0) == 0;
  }
  EXPECT_TRUE(child_listed);
}

}  // namespace
}  // namespace cryptobench::bench
