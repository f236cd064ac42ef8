// cryptobench-pingpong-client: seed 001's ping-pong client in C++ on one
// epoll loop (one thread): N persistent connections to 127.0.0.1:PORT, each
// sending "Ping" and waiting for "Pong" before its next ping, the pings
// spread evenly over the connections (1,000,000 over 100 by default).
// Usage: kUsage below (--help prints it).
//
// Prints one JSON line: the seed's figure (wall time over pings, in µs),
// the round trip of every ping (timed with the steady clock from before the
// ping is sealed and written to after its pong is read, opened and checked;
// kept in memory allocated before the run) as percentiles, the crypto time,
// its CPU time over the pings (from just before the first connect to after
// the last pong) and its peak RSS. A pong that does not authenticate,
// carries the wrong nonce or is not "Pong", a connection the server closes
// or resets, or the --timeout fails the run: exit 1 and one line on stderr
// saying which ping of which connection.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "pingpong/common.h"

namespace cryptobench::pingpong {
namespace {

constexpr std::string_view kProgram = "cryptobench-pingpong-client";
constexpr std::string_view kUsage = R"(usage: cryptobench-pingpong-client --port=PORT [flags]
       cryptobench-pingpong-client --list-backends
Seed 001's ping-pong client: --connections persistent connections to
127.0.0.1:PORT, --pings pings in all spread evenly over them, each
connection sending "Ping" and waiting for "Pong"; one JSON line of figures.
  --port=PORT          the server's port (it prints it), required
  --connections=N      1 to 10000 (default 100)
  --pings=N            --connections to 100000000 (default 1000000)
  --timeout=S          fail after S seconds, 1 to 86400 (default 600)
  --key=HEX            seal every ping and pong with AES-128-GCM under this
                       key, 32 hex digits (the server's); plain without
  --backend=NAME       the cryptobench backend that seals (default openssl)
  --list-backends      which backends can seal here, as JSON
  --inject-fault=KIND  for the tests, break the protocol on purpose:
                       forge-ping (a tag bit of one ping flipped; plain: "Pinx"
                       sent), reuse-id (connection 1 uses connection 0's id)
  --fault-after=N      the ping forge-ping forges, counted over all
                       connections from 1 (default 100)
Exit 0; 1 when the run fails (one line on stderr); 2 on bad usage.
)";
enum class Fault { kNone, kForgePing, kReuseId };

struct Connection {
  int fd = -1;
  std::uint32_t id = 0;
  std::uint64_t total = 0;  // pings this connection sends
  std::uint64_t sent = 0;
  std::uint64_t started_ns = 0;  // of the ping in flight
  std::size_t have = 0;
  std::uint8_t in[kSealedFrameSize];
  std::uint8_t out[kSealedFrameSize];
};

// nearest_rank: the q-quantile of sorted samples (nearest-rank definition).
std::uint32_t nearest_rank(const std::vector<std::uint32_t>& sorted, double q) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

class Client {
 public:
  Client(std::optional<Crypto> crypto, std::uint64_t connections, std::uint64_t pings, Fault fault,
         std::uint64_t fault_after)
      : crypto_(std::move(crypto)),
        frame_size_(crypto_ ? kSealedFrameSize : kMessageSize),
        connections_(connections),
        pings_(pings),
        fault_(fault),
        fault_after_(fault_after) {
    // Every round trip's slot, allocated (and touched) before the run.
    try {
      samples_.assign(pings, 0);
    } catch (const std::bad_alloc&) {
      fail(kProgram,
           "--pings=" + std::to_string(pings) + " needs " + std::to_string(pings * 4 >> 20) +
               " MiB for its round trips, which cannot be allocated here: lower --pings",
           2);
    }
  }

  int run(std::uint16_t port, std::uint64_t timeout_seconds);

 private:
  void send_ping(Connection& c);
  // on_readable: true when the connection has sent all its pings.
  bool on_readable(Connection& c);

  std::optional<Crypto> crypto_;
  std::size_t frame_size_;
  std::uint64_t connections_, pings_;
  Fault fault_;
  std::uint64_t fault_after_;
  std::vector<std::uint32_t> samples_;
  std::uint64_t sent_ = 0, answered_ = 0, crypto_ns_ = 0;
};

void Client::send_ping(Connection& c) {
  c.started_ns = now_ns();
  std::size_t size = kMessageSize;
  if (crypto_) {
    if (!crypto_->frames->seal({c.id, Direction::kPing, c.sent}, kPingMessage.data(), c.out)) {
      fail(kProgram, "sealing ping " + std::to_string(c.sent) + " of connection " +
                         std::to_string(c.id) + " failed");
    }
    crypto_ns_ += now_ns() - c.started_ns;
    size = kSealedFrameSize;
  } else {
    std::memcpy(c.out, kPingMessage.data(), kMessageSize);
  }
  if (fault_ == Fault::kForgePing && ++sent_ == fault_after_) {
    if (crypto_) {
      c.out[kSealedFrameSize - 1] ^= 0x01;  // the tag
    } else {
      c.out[3] = 'x';  // "Pinx"
    }
  }
  // Lock-step: nothing else is in flight, so the empty send buffer takes it.
  const ssize_t n = send(c.fd, c.out, size, MSG_NOSIGNAL);
  if (n != static_cast<ssize_t>(size)) {
    fail(kProgram, "connection " + std::to_string(c.id) + ", ping " + std::to_string(c.sent) +
                       ": " + (n < 0 ? io_error("server", "write", errno) : "short write"));
  }
  ++c.sent;
}

bool Client::on_readable(Connection& c) {
  const ssize_t n = read(c.fd, c.in + c.have, frame_size_ - c.have);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  const std::string where =
      "connection " + std::to_string(c.id) + ", pong " + std::to_string(c.sent - 1);
  if (n < 0) fail(kProgram, where + ": " + io_error("server", "read", errno));
  if (n == 0) {
    fail(kProgram, where + ": the server closed the connection after " +
                       std::to_string(c.sent - 1) + " of " + std::to_string(c.total) + " pongs");
  }
  c.have += static_cast<std::size_t>(n);
  if (c.have < frame_size_) return false;
  c.have = 0;
  if (crypto_) {
    const std::uint64_t start = now_ns();
    const OpenStatus status =
        crypto_->frames->open(c.in, {c.id, Direction::kPong, c.sent - 1}, kPongMessage);
    if (status != OpenStatus::kOk) {
      fail(kProgram, where + ": the pong " + std::string(describe(status)));
    }
    crypto_ns_ += now_ns() - start;
  } else if (std::memcmp(c.in, kPongMessage.data(), kMessageSize) != 0) {
    fail(kProgram, where + ": the reply is not \"Pong\"");
  }
  const std::uint64_t round_trip = now_ns() - c.started_ns;
  samples_[answered_++] =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(round_trip, UINT32_MAX));
  if (c.sent < c.total) {
    send_ping(c);
    return false;
  }
  return true;
}

int Client::run(std::uint16_t port, std::uint64_t timeout_seconds) {
  const Deadline deadline(timeout_seconds);
  const int epoll = epoll_create1(EPOLL_CLOEXEC);
  if (epoll < 0) fail(kProgram, std::string("epoll_create1: ") + std::strerror(errno));
  std::vector<Connection> conns(connections_);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);

  // As the seed: the clock runs from before the first connection is made;
  // so does the CPU time reported.
  const CpuTime cpu_start = cpu_time();
  const std::uint64_t start = now_ns();
  for (std::uint64_t i = 0; i < connections_; ++i) {
    Connection& c = conns[i];
    c.id = static_cast<std::uint32_t>(fault_ == Fault::kReuseId && i == 1 ? 0 : i);
    c.total = pings_ / connections_ + (i < pings_ % connections_ ? 1 : 0);
    c.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0) fail(kProgram, std::string("socket: ") + std::strerror(errno));
    if (connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      fail(kProgram, "cannot connect to 127.0.0.1:" + std::to_string(port) + " (connection " +
                         std::to_string(i) + "): " + std::strerror(errno));
    }
    fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK);
    set_no_delay(c.fd);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &c;
    epoll_ctl(epoll, EPOLL_CTL_ADD, c.fd, &ev);
  }
  for (Connection& c : conns) send_ping(c);

  std::uint64_t done = 0;
  epoll_event events[256];
  while (done < connections_) {
    if (deadline.passed()) {
      fail(kProgram, "timed out after " + std::to_string(timeout_seconds) +
                         " s: " + std::to_string(answered_) + " of " + std::to_string(pings_) +
                         " pings answered");
    }
    const int ready = epoll_wait(epoll, events, 256, deadline.wait_ms());
    if (ready < 0) {
      if (errno == EINTR) continue;
      fail(kProgram, std::string("epoll_wait: ") + std::strerror(errno));
    }
    for (int i = 0; i < ready; ++i) {
      Connection& c = *static_cast<Connection*>(events[i].data.ptr);
      if (on_readable(c)) {
        close(c.fd);
        ++done;
      }
    }
  }
  const std::uint64_t wall = now_ns() - start;
  const CpuTime cpu_end = cpu_time();
  close(epoll);

  const std::uint64_t user_ns = cpu_end.user_ns - cpu_start.user_ns;
  const std::uint64_t system_ns = cpu_end.system_ns - cpu_start.system_ns;
  std::sort(samples_.begin(), samples_.end());
  double sum = 0;
  for (const std::uint32_t s : samples_) sum += s;
  std::printf(
      "{\"role\": \"client\", \"impl\": \"cpp-epoll\", \"cipher\": \"%s\", \"backend\": \"%s\", "
      "\"verified_against\": \"%s\", \"connections\": %" PRIu64 ", \"pings\": %" PRIu64
      ", \"wall_ns\": %" PRIu64
      ", \"us_per_ping\": %.6f, \"rtt_p50_ns\": %u, \"rtt_p90_ns\": %u, \"rtt_p99_ns\": %u, "
      "\"rtt_p999_ns\": %u, \"rtt_max_ns\": %u, \"rtt_mean_ns\": %.1f, \"crypto_ns\": %" PRIu64
      ", \"crypto_isolated_ns_per_ping\": %.2f, \"cpu_ns\": %" PRIu64 ", \"user_ns\": %" PRIu64
      ", \"system_ns\": %" PRIu64 ", \"peak_rss_kib\": %" PRIu64 "}\n",
      crypto_ ? "aes-128-gcm" : "none", crypto_ ? crypto_->backend.c_str() : "none",
      crypto_ ? crypto_->verified_against.c_str() : "", connections_, answered_, wall,
      static_cast<double>(wall) / 1000.0 / static_cast<double>(pings_),
      nearest_rank(samples_, 0.50), nearest_rank(samples_, 0.90), nearest_rank(samples_, 0.99),
      nearest_rank(samples_, 0.999), samples_.back(), sum / static_cast<double>(pings_), crypto_ns_,
      crypto_ ? crypto_->isolated_ns_per_ping : 0.0, user_ns + system_ns, user_ns, system_ns,
      peak_rss_kib());
  return 0;
}

int main_client(int argc, char** argv) {
  const Flags flags(kProgram, kUsage, argc, argv,
                    {"port", "connections", "pings", "timeout", "key", "backend", "list-backends",
                     "inject-fault", "fault-after"});
  if (flags.has("list-backends")) return list_backends();
  if (!flags.has("port")) fail(kProgram, "--port is required (the server prints it)", 2);
  const auto port = static_cast<std::uint16_t>(flags.number("port", 0, 1, 65535));
  const std::uint64_t connections = flags.number("connections", 100, 1, 10'000);
  const std::uint64_t pings = flags.number("pings", 1'000'000, 1, kMaxPings);
  const std::uint64_t timeout = flags.number("timeout", 600, 1, 86'400);
  const std::uint64_t fault_after = flags.number("fault-after", 100, 1, kMaxPings);
  if (pings < connections) {
    fail(kProgram,
         "--pings (" + std::to_string(pings) + ") must be at least --connections (" +
             std::to_string(connections) + ")",
         2);
  }
  const std::string fault_name = flags.text("inject-fault", "");
  Fault fault = Fault::kNone;
  if (fault_name == "forge-ping") {
    fault = Fault::kForgePing;
  } else if (fault_name == "reuse-id") {
    fault = Fault::kReuseId;
  } else if (!fault_name.empty()) {
    fail(kProgram, "--inject-fault must be forge-ping or reuse-id, not '" + fault_name + "'", 2);
  }
  if (fault == Fault::kReuseId && (connections < 2 || !flags.has("key"))) {
    fail(kProgram, "--inject-fault=reuse-id needs --key and 2 or more --connections", 2);
  }
  ignore_sigpipe();
  std::optional<Crypto> crypto = crypto_from_flags(kProgram, flags, "server");
  Client client(std::move(crypto), connections, pings, fault, fault_after);
  return client.run(port, timeout);
}

}  // namespace
}  // namespace cryptobench::pingpong

int main(int argc, char** argv) { return cryptobench::pingpong::main_client(argc, argv); }
