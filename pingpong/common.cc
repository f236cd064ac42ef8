#include "pingpong/common.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "kernels/registry.h"

namespace cryptobench::pingpong {

void fail(std::string_view program, const std::string& why, int status) {
  std::fflush(stdout);
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(program.size()), program.data(), why.c_str());
  std::exit(status);
}

Flags::Flags(std::string_view program, std::string_view usage, int argc, char** argv,
             std::initializer_list<std::string_view> known)
    : program_(program) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%.*s", static_cast<int>(usage.size()), usage.data());
      std::exit(0);
    }
    if (!arg.starts_with("--")) fail(program, "unexpected argument '" + std::string(arg) + "'", 2);
    const std::size_t eq = arg.find('=');
    const std::string name(arg.substr(2, eq == std::string_view::npos ? arg.npos : eq - 2));
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      fail(program, "unknown flag '--" + name + "' (--help lists them)", 2);
    }
    if (values_.contains(name)) fail(program, "--" + name + " given twice", 2);
    values_[name] = eq == std::string_view::npos ? "" : std::string(arg.substr(eq + 1));
  }
}

bool Flags::has(std::string_view name) const { return values_.contains(name); }

std::string Flags::text(std::string_view name, std::string_view fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::string(fallback) : it->second;
}

std::uint64_t Flags::number(std::string_view name, std::uint64_t fallback, std::uint64_t low,
                            std::uint64_t high) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || value < low || value > high) {
    fail(program_,
         "--" + std::string(name) + " must be a whole number from " + std::to_string(low) + " to " +
             std::to_string(high) + ", not '" + s + "'",
         2);
  }
  return value;
}

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

int Deadline::wait_ms() const {
  const std::uint64_t now = now_ns();
  if (now >= end_ns_) return 0;
  return static_cast<int>(std::min<std::uint64_t>((end_ns_ - now) / 1'000'000 + 1, 1000));
}

namespace {

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

std::unique_ptr<AesBackend> open_gcm_backend(std::string_view program, const std::string& name) {
  std::unique_ptr<AesBackend> backend;
  try {
    backend = open_backend(name);
  } catch (const BackendError& e) {
    fail(program, e.what(), 2);
  }
  if (!offers_key(*backend, Mode::kGcm, kKeySize)) {
    const std::string why = backend->info().not_offered;
    fail(program,
         "backend '" + name + "' does not offer AES-128-GCM with 12-byte nonces and 16-byte tags" +
             (why.empty() ? "" : ": " + why),
         2);
  }
  return backend;
}

}  // namespace

Crypto make_crypto(std::string_view program, const std::string& backend_name,
                   const std::array<std::uint8_t, kKeySize>& key) {
  Crypto crypto;
  crypto.backend = backend_name;
  std::unique_ptr<AesBackend> backend = open_gcm_backend(program, backend_name);
  // The checks and the timing below use a key of their own (a fixed one:
  // they protect nothing), so that the run's key seals the run's frames only
  // and none of its nonces is ever used twice.
  static constexpr std::array<std::uint8_t, kKeySize> kTestKey = {
      'p', 'i', 'n', 'g', 'p', 'o', 'n', 'g', ' ', 't', 'e', 's', 't', 'k', 'e', 'y'};
  std::unique_ptr<FrameCipher> test;
  try {
    crypto.frames = std::make_unique<FrameCipher>(backend->make_gcm(), key.data());
    test = std::make_unique<FrameCipher>(backend->make_gcm(), kTestKey.data());
  } catch (const std::exception& e) {
    fail(program, "backend '" + backend_name + "': " + e.what());
  }
  FrameCipher& mine = *test;
  const NonceFields ping{7, Direction::kPing, 3}, pong{7, Direction::kPong, 3};
  std::uint8_t frame[kSealedFrameSize], other[kSealedFrameSize];

  // The frame format against another library: the same bytes from both, each
  // opens the other's, and a flipped tag bit is refused.
  const std::string reference = counter_mode_reference_name(backend_name, Mode::kGcm, kKeySize);
  if (reference.empty()) {
    crypto.verified_against = "none (no other backend offers AES-128-GCM)";
  } else {
    std::unique_ptr<AesBackend> ref_backend = open_gcm_backend(program, reference);
    FrameCipher theirs(ref_backend->make_gcm(), kTestKey.data());
    for (const auto& [fields, message] :
         {std::pair{ping, kPingMessage}, std::pair{pong, kPongMessage}}) {
      if (!mine.seal(fields, message.data(), frame) ||
          !theirs.seal(fields, message.data(), other)) {
        fail(program, "sealing a test frame failed (" + backend_name + " or " + reference + ")");
      }
      if (std::memcmp(frame, other, kSealedFrameSize) != 0) {
        fail(program, "backend '" + backend_name + "' seals a frame as " +
                          hex(frame, kSealedFrameSize) + ", '" + reference + "' as " +
                          hex(other, kSealedFrameSize));
      }
      if (mine.open(other, fields, message) != OpenStatus::kOk ||
          theirs.open(frame, fields, message) != OpenStatus::kOk) {
        fail(program, "backend '" + backend_name + "' and '" + reference +
                          "' do not open each other's frames");
      }
    }
    crypto.verified_against = reference;
  }
  mine.seal(ping, kPingMessage.data(), frame);
  frame[kSealedFrameSize - 1] ^= 1;
  if (mine.open(frame, ping, kPingMessage) != OpenStatus::kBadTag) {
    fail(program, "backend '" + backend_name + "' accepts a frame with a flipped tag bit");
  }

  // Crypto alone: a ping's two seals and two opens, best of 5 rounds (on
  // connection 1000, which the checks above do not use).
  constexpr int kRounds = 5, kPerRound = 4000;
  double best = 1e300;
  for (int round = 0; round < kRounds; ++round) {
    const std::uint64_t start = now_ns();
    bool ok = true;
    for (int i = 0; i < kPerRound; ++i) {
      const auto counter = static_cast<std::uint64_t>(round * kPerRound + i);
      const NonceFields a{1000, Direction::kPing, counter};
      const NonceFields b{1000, Direction::kPong, counter};
      ok &= mine.seal(a, kPingMessage.data(), frame);
      ok &= mine.open(frame, a, kPingMessage) == OpenStatus::kOk;
      ok &= mine.seal(b, kPongMessage.data(), frame);
      ok &= mine.open(frame, b, kPongMessage) == OpenStatus::kOk;
    }
    if (!ok) fail(program, "backend '" + backend_name + "' failed a seal or open while timed");
    best = std::min(best, static_cast<double>(now_ns() - start) / kPerRound);
  }
  crypto.isolated_ns_per_ping = best;
  return crypto;
}

std::optional<Crypto> crypto_from_flags(std::string_view program, const Flags& flags,
                                        std::string_view peer) {
  if (!flags.has("key")) {
    if (flags.has("backend")) {
      fail(program,
           "--backend needs --key (the same 32 hex digits as the " + std::string(peer) + "'s)", 2);
    }
    return std::nullopt;
  }
  std::array<std::uint8_t, kKeySize> key{};
  if (!parse_key(flags.text("key", ""), key)) fail(program, "--key must be 32 hex digits", 2);
  return make_crypto(program, flags.text("backend", "openssl"), key);
}

int list_backends() {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const BackendEntry* entry : compiled_backends()) {
    nlohmann::ordered_json b;
    b["name"] = entry->name;
    const std::string unusable = unusable_reason(*entry);
    std::string why_not;
    if (!unusable.empty()) {
      why_not = "cannot run on this CPU: " + unusable;
    } else {
      const std::unique_ptr<AesBackend> backend = open_backend(entry->name);
      if (!offers_key(*backend, Mode::kGcm, kKeySize)) {
        const std::string detail = backend->info().not_offered;
        why_not = "does not offer AES-128-GCM" + (detail.empty() ? "" : ": " + detail);
      }
    }
    b["sealed_pingpong"] = why_not.empty();
    b["why_not"] = why_not;
    nlohmann::ordered_json context = nlohmann::ordered_json::object();
    if (unusable.empty()) {
      const BackendSet set({entry->name});
      for (const auto& [key, value] : set.context()) context[key] = value;
    }
    b["context"] = context;
    out.push_back(b);
  }
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

CpuTime cpu_time() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto ns = [](const timeval& t) {
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ull +
           static_cast<std::uint64_t>(t.tv_usec) * 1000ull;
  };
  return {ns(usage.ru_utime), ns(usage.ru_stime)};
}

std::uint64_t peak_rss_kib() {
  // VmHWM, this address space's own high-water mark: ru_maxrss also counts
  // the RSS of whatever exec'd this program (a Python driver's 14 MB would
  // show as this program's).
  std::uint64_t peak = 0;
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      unsigned long long kib = 0;
      if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1) peak = kib;
    }
    std::fclose(f);
  }
  return peak;
}

void ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }

std::string io_error(std::string_view peer, std::string_view call, int error) {
  const std::string what = std::string(call) + ": " + std::strerror(error);
  if (error == ECONNRESET || error == EPIPE) {
    return "the " + std::string(peer) + " reset the connection (" + what + ")";
  }
  return what;
}

int signal_fd() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

void set_no_delay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace cryptobench::pingpong
