#include "benchmarks/cpu_profile.h"

#include <fcntl.h>
#include <gperftools/profiler.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "benchmarks/output_file.h"

namespace cryptobench::bench {

bool CpuProfile::start(std::string* error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("cannot make a pipe (") + std::strerror(errno) + ")";
    return false;
  }
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  fcntl(write_fd_, F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups; the default 64 KiB also works
  // The profiler's SIGPROF handler may write into the pipe; were it to run on
  // the draining thread while the pipe is full, nothing would drain it.
  sigset_t prof, old;
  sigemptyset(&prof);
  sigaddset(&prof, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &prof, &old);
  drain_ = std::thread([this] {
    char buffer[65536];
    while (true) {
      const ssize_t n = read(read_fd_, buffer, sizeof buffer);
      if (n > 0) {
        data_.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
  });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  // gperftools opens the file by name: the pipe's own name in /proc.
  const std::string name = "/proc/self/fd/" + std::to_string(write_fd_);
  if (ProfilerStart(name.c_str()) == 0) {
    *error = "the profiler did not start";
    stop();
    return false;
  }
  return true;
}

void CpuProfile::stop() {
  if (write_fd_ < 0) return;
  ProfilerStop();  // closes the profiler's descriptor of the pipe
  close(write_fd_);
  write_fd_ = -1;
  drain_.join();  // the pipe's end of file: everything is in data_
  close(read_fd_);
  read_fd_ = -1;
}

bool CpuProfile::save(const std::string& path, std::string* error) const {
  return write_file_replacing(path, data_, error);
}

}  // namespace cryptobench::bench
