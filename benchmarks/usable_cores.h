// usable_cores.h: the cores this process may run on: its CPU affinity mask
// (taskset, cpuset) and its cgroup's CPU quota (cpu.max), not the machine's
// CPU count. Threads beyond them share cores, and cycles per byte must count
// only the cores the run had.
#pragma once

#include <string>

namespace cryptobench::bench {

struct UsableCores {
  int cores = 1;              // min(affinity CPUs, the quota rounded up), at least 1
  int online = 1;             // CPUs of the machine (what num_cpus says)
  int affinity = 1;           // CPUs in the affinity mask
  std::string affinity_list;  // "0-1", "0,2"
  double quota = 0;           // CPUs' worth of time the cgroup allows; 0: no quota
  std::string quota_text;     // "150000/100000 in /sys/fs/cgroup/x/cpu.max", or "none"
};

UsableCores usable_cores();

}  // namespace cryptobench::bench
