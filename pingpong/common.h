// common.h: what the C++ ping-pong server and client share: flags, clocks,
// sockets, signals, the AES-GCM backend set-up and its check against another
// library.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pingpong/frame.h"

namespace cryptobench::pingpong {

// Usage errors exit 2, run failures 1; both print one line "<program>: <why>".
[[noreturn]] void fail(std::string_view program, const std::string& why, int status = 1);

// The most pings a client takes (the protocol's programs in every language
// and the driver): each ping's round trip is kept, 4 bytes, allocated before
// the run, so 400 MB at most.
inline constexpr std::uint64_t kMaxPings = 100'000'000;

// Flags: --name=value (or --name for a switch), each at most once, from a
// fixed list; anything else is a usage error naming it. --help prints
// `usage` and exits 0.
class Flags {
 public:
  Flags(std::string_view program, std::string_view usage, int argc, char** argv,
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

// crypto_from_flags: the sealed set-up from --key and --backend (openssl
// when absent; make_crypto), or none without --key. `peer` names the other
// side ("server", "client") in the usage errors (exit 2).
std::optional<Crypto> crypto_from_flags(std::string_view program, const Flags& flags,
                                        std::string_view peer);

// list_backends: a JSON object on stdout: for every compiled backend, whether
// it can run the sealed ping-pong here (usable, offers AES-128-GCM with
// 12-byte nonces and 16-byte tags) or why not, and its registry context.
int list_backends();

// CpuTime: this process's user and system CPU time so far (getrusage).
struct CpuTime {
  std::uint64_t user_ns = 0;
  std::uint64_t system_ns = 0;
};
CpuTime cpu_time();

// peak_rss_kib: this process's peak resident set (VmHWM of
// /proc/self/status; 0 when unreadable).
std::uint64_t peak_rss_kib();

// ignore_sigpipe: a write to a connection the peer has reset fails with
// EPIPE (said as such) instead of killing the process without a word. The
// programs also write with MSG_NOSIGNAL.
void ignore_sigpipe();

// io_error: "the server reset the connection (read: Connection reset by
// peer)" for ECONNRESET and EPIPE, else "read: <strerror>"; `peer` is
// "server" or "client", `call` "read" or "write".
std::string io_error(std::string_view peer, std::string_view call, int error);

// signal_fd: blocks SIGINT, SIGTERM and SIGHUP and returns a signalfd that
// reports them (for the event loop).
int signal_fd();

// set_no_delay: TCP_NODELAY (Go's default for TCP; the Java peers set it too).
void set_no_delay(int fd);

}  // namespace cryptobench::pingpong
