// common.h: what the C++ ping-pong server and client share: flags, clocks,
// sockets, signals, the AES-GCM backend set-up and its check against another
// library.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "pingpong/frame.h"

namespace cryptobench::pingpong {

// Usage errors exit 2, run failures 1; both print one line "<program>: <why>".
[[noreturn]] void fail(std::string_view program, const std::string& why, int status = 1);

// Flags: --name=value (or --name for a switch), each at most once, from a
// fixed list; anything else is a usage error naming it.
class Flags {
 public:
  Flags(std::string_view program, int argc, char** argv,
        std::initializer_list<std::string_view> known);
  bool has(std::string_view name) const;
  std::string text(std::string_view name, std::string_view fallback) const;
  // number: a whole number in [low, high]; fallback when absent.
  std::uint64_t number(std::string_view name, std::uint64_t fallback, std::uint64_t low,
                       std::uint64_t high) const;

 private:
  std::string program_;
  std::map<std::string, std::string, std::less<>> values_;
};

// now_ns: the steady (monotonic) clock in nanoseconds.
std::uint64_t now_ns();

// Deadline: a time limit, checked by the event loops.
class Deadline {
 public:
  explicit Deadline(std::uint64_t seconds) : end_ns_(now_ns() + seconds * 1'000'000'000ull) {}
  bool passed() const { return now_ns() >= end_ns_; }
  // wait_ms: how long epoll_wait may sleep: until the deadline, at most 1 s.
  int wait_ms() const;

 private:
  std::uint64_t end_ns_;
};

// Crypto: the AES-128-GCM set-up of one side: the backend's FrameCipher,
// checked first against another library's on the frame format.
struct Crypto {
  std::string backend;
  std::string verified_against;  // the other backend, or why none
  std::unique_ptr<FrameCipher> frames;
  double isolated_ns_per_ping = 0;  // 2 seals + 2 opens of 4-byte frames, in a tight loop
};

// make_crypto: opens `backend` (the registry), keys it, seals and opens a
// ping and a pong with it and with the reference backend of another library
// (the same ciphertext and tag either way, each opens the other's) and
// times seal+open in a loop. Fails the program (exit 1) with the reason.
Crypto make_crypto(std::string_view program, const std::string& backend,
                   const std::array<std::uint8_t, kKeySize>& key);

// list_backends: a JSON object on stdout: for every compiled backend, whether
// it can run the sealed ping-pong here (usable, offers AES-128-GCM with
// 12-byte nonces and 16-byte tags) or why not, and its registry context.
int list_backends();

// Resources: this process's CPU time (getrusage) and peak resident set
// (VmHWM of /proc/self/status; 0 when unreadable).
struct Resources {
  std::uint64_t user_ns = 0;
  std::uint64_t system_ns = 0;
  std::uint64_t peak_rss_kib = 0;
};
Resources own_resources();

// signal_fd: blocks SIGINT, SIGTERM and SIGHUP and returns a signalfd that
// reports them (for the event loop).
int signal_fd();

// set_no_delay: TCP_NODELAY (Go's default for TCP; the Java peers set it too).
void set_no_delay(int fd);

}  // namespace cryptobench::pingpong
