#include "benchmarks/other_runs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>
#include <system_error>

namespace cryptobench::bench {
namespace {

// The programs that measure, by their /proc comm (15 characters at most).
bool measures(const std::string& comm) {
  constexpr std::array<std::string_view, 4> kNames = {"cryptobench", "cryptobench-pin",
                                                      "cryptobench-dud", "cryptobench-lim"};
  return std::find(kNames.begin(), kNames.end(), comm) != kNames.end();
}

}  // namespace

// std::ifstream would throw here: libstdc++'s filebuf throws on a failed
// read, and a /proc file of a process that ended after it was opened fails
// with ESRCH (a run's own parts starting and ending did it).
std::string read_proc_file(const std::string& path) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  const std::unique_ptr<const int, void (*)(const int*)> closer(&fd,
                                                                [](const int* f) { ::close(*f); });
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) out.clear();
      break;
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

std::vector<std::string> other_runs() {
  std::vector<std::string> found;
  std::error_code ec;
  const pid_t self = getpid();
  // increment(ec), not ++: /proc changes as it is read, and a failed step
  // ends the listing rather than the run.
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::filesystem::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    if (std::atol(name.c_str()) == self) continue;
    std::string comm = read_proc_file(entry.path() / "comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (!measures(comm)) continue;
    std::string cmdline = read_proc_file(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    while (!cmdline.empty() && cmdline.back() == ' ') cmdline.pop_back();
    if (cmdline.empty()) continue;  // ended meanwhile, or a zombie
    // Listing, or asking for help, measures nothing.
    if (cmdline.find("--benchmark_list_tests") != std::string::npos ||
        cmdline.find("--list-") != std::string::npos ||
        cmdline.find("--help") != std::string::npos) {
      continue;
    }
    for (char& c : cmdline) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    if (cmdline.size() > 120) cmdline = cmdline.substr(0, 117) + "...";
    found.push_back(name + " " + cmdline);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace cryptobench::bench
