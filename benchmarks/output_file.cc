#include "benchmarks/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

namespace cryptobench::bench {

void keep_mode(const std::string& temporary, const std::string& path) {
  struct stat st {};
  mode_t mode = 0666;
  if (stat(path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    // The umask, read without changing it (umask() would, process-wide).
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("Umask:", 0) == 0) {
        mode = 0666 & ~static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
        break;
      }
    }
  }
  chmod(temporary.c_str(), mode);
}

std::string output_target_problem(const std::string& path) {
  if (path.empty()) return "needs a file name";
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return "'" + path +
           "' exists and is not a regular file (a folder, link, device or FIFO): give the name "
           "of a file";
  }
  const std::string dir =
      path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/') + 1);
  if (access(dir.c_str(), W_OK) != 0) {
    return "cannot write in '" + dir + "' (" + std::strerror(errno) + ")";
  }
  const std::string base = path.substr(path.rfind('/') + 1);
  const long name_max = pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && base.size() + kTemporarySuffix.size() > static_cast<std::size_t>(name_max)) {
    return "the name '" + base + "' is too long (the folder allows " + std::to_string(name_max) +
           " characters, and the temporary file adds " + std::to_string(kTemporarySuffix.size()) +
           ")";
  }
  return "";
}

bool write_file_replacing(const std::string& path, const std::string& data, std::string* error) {
  std::string temporary = path + std::string(kTemporarySuffix);
  const int fd = mkstemps(temporary.data(), static_cast<int>(std::strlen(".partial")));
  if (fd < 0) {
    *error = std::string("cannot create a temporary file beside it (") + std::strerror(errno) + ")";
    return false;
  }
  const char* p = data.data();
  std::size_t left = data.size();
  int failure = 0;
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (failure == 0 && fsync(fd) != 0) failure = errno;
  if (close(fd) != 0 && failure == 0) failure = errno;
  if (failure == 0) keep_mode(temporary, path);
  if (failure == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) failure = errno;
  if (failure != 0) {
    unlink(temporary.c_str());
    *error = std::strerror(failure);
    return false;
  }
  return true;
}

std::string console_write_problem() {
  std::cout.flush();
  const bool failed = std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  struct stat st {};
  if (!failed || fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return "";
  // The folder of the file is not known from the descriptor; /proc says it.
  std::string where = "its file system";
  char target[4096];
  const ssize_t n = readlink("/proc/self/fd/1", target, sizeof target - 1);
  if (n > 0) {
    std::string path(target, static_cast<std::size_t>(n));
    where = path.substr(0, path.rfind('/') + 1);
  }
  struct statvfs fs {};
  if (fstatvfs(STDOUT_FILENO, &fs) == 0 &&
      static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize) < 65536.0) {
    return "no space left on device in " + where;
  }
  return "a write error in " + where;
}

}  // namespace cryptobench::bench
