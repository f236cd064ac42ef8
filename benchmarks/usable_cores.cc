#include "benchmarks/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

namespace cryptobench::bench {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "0-3,6": the CPUs of the mask as ranges.
std::string cpu_list(const cpu_set_t& set) {
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out.push_back(',');
    out.append(std::to_string(cpu));
    if (last > cpu) {
      out.push_back('-');
      out.append(std::to_string(last));
    }
    cpu = last;
  }
  return out;
}

// The smallest cgroup v2 cpu.max quota from this process's cgroup up to the
// root ("max PERIOD" is none), or cgroup v1's cpu.cfs_quota_us.
void read_quota(UsableCores* u) {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  std::string v2_path;
  while (std::getline(cgroups, line)) {
    if (line.rfind("0::", 0) == 0) v2_path = line.substr(3);
  }
  if (!v2_path.empty()) {
    for (std::string path = v2_path;; path = path.substr(0, path.rfind('/'))) {
      const std::string file = "/sys/fs/cgroup" + path + "/cpu.max";
      std::istringstream fields(first_line(file));
      std::string quota;
      double period = 0;
      if (fields >> quota >> period && quota != "max" && period > 0) {
        const double cpus = std::strtod(quota.c_str(), nullptr) / period;
        if (cpus > 0 && (u->quota == 0 || cpus < u->quota)) {
          u->quota = cpus;
          u->quota_text = quota + "/" + std::to_string(static_cast<long>(period)) + " in " + file;
        }
      }
      if (path.empty() || path == "/") break;
    }
    return;
  }
  const double quota =
      std::strtod(first_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").c_str(), nullptr);
  const double period =
      std::strtod(first_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us").c_str(), nullptr);
  if (quota > 0 && period > 0) {
    u->quota = quota / period;
    u->quota_text = std::to_string(static_cast<long>(quota)) + "/" +
                    std::to_string(static_cast<long>(period)) +
                    " in /sys/fs/cgroup/cpu/cpu.cfs_quota_us";
  }
}

}  // namespace

UsableCores usable_cores() {
  UsableCores u;
  u.online = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  u.affinity = u.online;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    u.affinity = CPU_COUNT(&set);
    u.affinity_list = cpu_list(set);
  }
  u.quota_text = "none";
  read_quota(&u);
  u.cores = u.affinity;
  if (u.quota > 0) u.cores = std::min(u.cores, static_cast<int>(std::ceil(u.quota - 1e-9)));
  u.cores = std::max(1, u.cores);
  return u;
}

}  // namespace cryptobench::bench
