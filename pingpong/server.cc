// cryptobench-pingpong-server: seed 001's ping-pong server in C++ on one
// epoll loop (one thread): answers every 4-byte "Ping" with "Pong", plain or
// each message sealed with AES-128-GCM (frame.h) by a cryptobench backend.
// Usage: kUsage below (--help prints it).
//
// Listens on 127.0.0.1 only (port 0: a free one) and prints
// "listening on 127.0.0.1:PORT" first. It ends when N connections have
// closed (--connections; 0: when signalled), on SIGINT/SIGTERM/SIGHUP, or
// fails after --timeout seconds; it then prints one JSON line with what it
// served, its crypto time, its CPU time over the pings (from just before
// its first accept to the end of its last connection) and its peak RSS.
// Exit 0, 1 on any protocol or crypto error (each said on stderr), 2 on bad
// usage, 128 + the signal when stopped before N connections ended.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "pingpong/common.h"

namespace cryptobench::pingpong {
namespace {

constexpr std::string_view kProgram = "cryptobench-pingpong-server";
constexpr std::string_view kUsage = R"(usage: cryptobench-pingpong-server [flags]
       cryptobench-pingpong-server --list-backends
Seed 001's ping-pong server on 127.0.0.1: answers each "Ping" with "Pong";
prints "listening on 127.0.0.1:PORT" first and one JSON line of figures at
the end.
  --port=PORT          0 to 65535 (default 0: a free port)
  --connections=N      end after N connections have closed, 0 to 1000000
                       (default 0: serve until SIGINT, SIGTERM or SIGHUP)
  --timeout=S          fail after S seconds, 1 to 86400 (default 600)
  --key=HEX            every ping and pong sealed with AES-128-GCM under this
                       key, 32 hex digits (the client's); plain without
  --backend=NAME       the cryptobench backend that seals (default openssl)
  --list-backends      which backends can seal here, as JSON
  --inject-fault=KIND  for the tests, break the protocol on purpose at the
                       --fault-after'th ping answered (default 100):
                       flip-tag (a tag bit of the pong flipped), stale-nonce
                       (the pong sealed under the previous nonce), wrong-reply
                       ("Pang", sealed properly), stall (no more answers)
Exit 0; 1 on any protocol or crypto error (each said on stderr); 2 on bad
usage; 128 + the signal when stopped before --connections ended.
)";
enum class Fault { kNone, kFlipTag, kStaleNonce, kWrongReply, kStall };
constexpr std::array<std::uint8_t, kMessageSize> kPang = {'P', 'a', 'n', 'g'};

struct Connection {
  int fd = -1;
  std::uint64_t number = 0;  // in accept order, for messages
  bool identified = false;   // sealed: the connection id is known (from ping 0)
  std::uint32_t id = 0;
  std::uint64_t pings = 0;  // answered
  std::size_t have = 0;     // bytes of the current frame read
  std::uint8_t in[kSealedFrameSize];
  std::uint8_t out[kSealedFrameSize];
};

class Server {
 public:
  Server(std::optional<Crypto> crypto, std::uint64_t connections, Fault fault,
         std::uint64_t fault_after)
      : crypto_(std::move(crypto)),
        target_(connections),
        fault_(fault),
        fault_after_(fault_after),
        frame_size_(crypto_ ? kSealedFrameSize : kMessageSize) {}

  std::uint16_t listen_on(std::uint16_t port);
  int run(std::uint64_t timeout_seconds);

 private:
  void accept_all();
  void on_readable(Connection& c);
  // answer: false when the connection must be closed (an error was said).
  bool answer(Connection& c);
  void close_connection(Connection& c);
  void error(const Connection& c, const std::string& why);

  std::optional<Crypto> crypto_;
  std::uint64_t target_;
  Fault fault_;
  std::uint64_t fault_after_;
  std::size_t frame_size_;
  int listener_ = -1, epoll_ = -1, signals_ = -1;
  std::unordered_map<int, std::unique_ptr<Connection>> open_;
  std::set<std::uint32_t> ids_seen_;
  std::uint64_t accepted_ = 0, finished_ = 0, answered_ = 0, errors_ = 0, crypto_ns_ = 0;
  bool stalled_ = false;
};

std::uint16_t Server::listen_on(std::uint16_t port) {
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listener_ < 0) fail(kProgram, std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    fail(kProgram,
         "cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno));
  }
  if (listen(listener_, 4096) != 0) fail(kProgram, std::string("listen: ") + std::strerror(errno));
  socklen_t len = sizeof addr;
  getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);

  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  signals_ = signal_fd();
  if (epoll_ < 0 || signals_ < 0) fail(kProgram, std::string("epoll: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // the listener
  epoll_ctl(epoll_, EPOLL_CTL_ADD, listener_, &ev);
  ev.data.ptr = &signals_;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, signals_, &ev);
  return ntohs(addr.sin_port);
}

void Server::error(const Connection& c, const std::string& why) {
  ++errors_;
  if (errors_ <= 10) {
    std::fprintf(stderr, "%s: connection %" PRIu64 ", ping %" PRIu64 ": %s\n", kProgram.data(),
                 c.number, c.pings, why.c_str());
  }
}

void Server::accept_all() {
  while (true) {
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
        fail(kProgram, std::string("accept: ") + std::strerror(errno));
      }
      return;
    }
    set_no_delay(fd);
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->number = accepted_++;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c.get();
    epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
    open_[fd] = std::move(c);
  }
}

void Server::close_connection(Connection& c) {
  close(c.fd);  // also leaves the epoll set
  ++finished_;
  open_.erase(c.fd);  // destroys c
}

bool Server::answer(Connection& c) {
  std::size_t out_size = kMessageSize;
  const bool faulty = fault_ != Fault::kNone && answered_ + 1 == fault_after_;
  if (faulty && fault_ == Fault::kStall) stalled_ = true;
  if (stalled_) return true;  // keeps reading, answers nothing
  if (!crypto_) {
    if (std::memcmp(c.in, kPingMessage.data(), kMessageSize) != 0) {
      error(c, "the message is not \"Ping\"");
      return false;
    }
    std::memcpy(c.out, (faulty && fault_ == Fault::kWrongReply ? kPang : kPongMessage).data(),
                kMessageSize);
  } else {
    const std::uint64_t start = now_ns();
    if (!c.identified) {
      NonceFields first;
      if (!read_nonce(c.in, first) || first.direction != Direction::kPing || first.counter != 0) {
        error(c, "the first ping's nonce is not a ping's with counter 0");
        return false;
      }
      if (!ids_seen_.insert(first.connection).second) {
        error(c, "connection id " + std::to_string(first.connection) +
                     " was used before (a nonce would repeat)");
        return false;
      }
      c.identified = true;
      c.id = first.connection;
    }
    const OpenStatus status =
        crypto_->frames->open(c.in, {c.id, Direction::kPing, c.pings}, kPingMessage);
    if (status != OpenStatus::kOk) {
      error(c, "the ping " + std::string(describe(status)));
      return false;
    }
    if (c.pings > kMaxCounter) {
      error(c, "the nonce counter is exhausted");
      return false;
    }
    NonceFields reply{c.id, Direction::kPong, c.pings};
    if (faulty && fault_ == Fault::kStaleNonce) reply.counter = c.pings == 0 ? 1 : c.pings - 1;
    const auto& message = faulty && fault_ == Fault::kWrongReply ? kPang : kPongMessage;
    if (!crypto_->frames->seal(reply, message.data(), c.out)) {
      error(c, "sealing the pong failed");
      return false;
    }
    if (faulty && fault_ == Fault::kFlipTag) c.out[kSealedFrameSize - 1] ^= 0x01;
    crypto_ns_ += now_ns() - start;
    out_size = kSealedFrameSize;
  }
  // Lock-step: the client has nothing else in flight, so the whole reply
  // fits the empty send buffer; anything less means it does not read.
  const ssize_t n = send(c.fd, c.out, out_size, MSG_NOSIGNAL);
  if (n != static_cast<ssize_t>(out_size)) {
    error(c, n < 0 ? io_error("client", "write", errno)
                   : "short write: the client does not read its pongs");
    return false;
  }
  ++c.pings;
  ++answered_;
  return true;
}

void Server::on_readable(Connection& c) {
  const ssize_t n = read(c.fd, c.in + c.have, frame_size_ - c.have);
  if (n > 0) {
    c.have += static_cast<std::size_t>(n);
    if (c.have < frame_size_) return;
    c.have = 0;
    if (!answer(c)) close_connection(c);
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n < 0) {
    error(c, io_error("client", "read", errno));
  } else if (c.have != 0) {
    error(c, "the client closed the connection in the middle of a message");
  }
  close_connection(c);
}

int Server::run(std::uint64_t timeout_seconds) {
  const Deadline deadline(timeout_seconds);
  epoll_event events[256];
  int signalled = 0;
  bool timed_out = false;
  const CpuTime cpu_start = cpu_time();  // before the first accept
  while (target_ == 0 || finished_ < target_) {
    if (deadline.passed()) {
      timed_out = true;
      break;
    }
    const int ready = epoll_wait(epoll_, events, 256, deadline.wait_ms());
    if (ready < 0) {
      if (errno == EINTR) continue;
      fail(kProgram, std::string("epoll_wait: ") + std::strerror(errno));
    }
    for (int i = 0; i < ready; ++i) {
      void* who = events[i].data.ptr;
      if (who == nullptr) {
        accept_all();
      } else if (who == &signals_) {
        signalfd_siginfo info{};
        if (read(signals_, &info, sizeof info) == sizeof info) {
          signalled = static_cast<int>(info.ssi_signo);
        }
      } else {
        on_readable(*static_cast<Connection*>(who));
      }
    }
    if (signalled != 0) break;
  }
  const CpuTime cpu_end = cpu_time();
  const std::uint64_t user_ns = cpu_end.user_ns - cpu_start.user_ns;
  const std::uint64_t system_ns = cpu_end.system_ns - cpu_start.system_ns;
  std::printf(
      "{\"role\": \"server\", \"impl\": \"cpp-epoll\", \"cipher\": \"%s\", \"backend\": \"%s\", "
      "\"connections\": %" PRIu64 ", \"pings\": %" PRIu64 ", \"errors\": %" PRIu64
      ", \"crypto_ns\": %" PRIu64 ", \"cpu_ns\": %" PRIu64 ", \"user_ns\": %" PRIu64
      ", \"system_ns\": %" PRIu64 ", \"peak_rss_kib\": %" PRIu64 "}\n",
      crypto_ ? "aes-128-gcm" : "none", crypto_ ? crypto_->backend.c_str() : "none", finished_,
      answered_, errors_, crypto_ns_, user_ns + system_ns, user_ns, system_ns, peak_rss_kib());
  std::fflush(stdout);
  if (timed_out) {
    fail(kProgram, "timed out after " + std::to_string(timeout_seconds) +
                       " s: " + std::to_string(finished_) + " of " + std::to_string(target_) +
                       " connections finished, " + std::to_string(answered_) + " pings answered");
  }
  // Stopped before the end: the signal's status (errors such as clients
  // vanishing mid-message are then expected).
  if (signalled != 0 && target_ != 0) return 128 + signalled;
  if (errors_ > 0) {
    fail(kProgram, std::to_string(errors_) + " protocol or crypto error(s); the run is not valid");
  }
  return 0;
}

int main_server(int argc, char** argv) {
  const Flags flags(kProgram, kUsage, argc, argv,
                    {"port", "connections", "timeout", "key", "backend", "inject-fault",
                     "fault-after", "list-backends"});
  if (flags.has("list-backends")) return list_backends();
  const auto port = static_cast<std::uint16_t>(flags.number("port", 0, 0, 65535));
  const std::uint64_t connections = flags.number("connections", 0, 0, 1'000'000);
  const std::uint64_t timeout = flags.number("timeout", 600, 1, 86'400);
  const std::uint64_t fault_after = flags.number("fault-after", 100, 1, kMaxPings);
  const std::string fault_name = flags.text("inject-fault", "");
  Fault fault = Fault::kNone;
  if (fault_name == "flip-tag") {
    fault = Fault::kFlipTag;
  } else if (fault_name == "stale-nonce") {
    fault = Fault::kStaleNonce;
  } else if (fault_name == "wrong-reply") {
    fault = Fault::kWrongReply;
  } else if (fault_name == "stall") {
    fault = Fault::kStall;
  } else if (!fault_name.empty()) {
    fail(kProgram,
         "--inject-fault must be flip-tag, stale-nonce, wrong-reply or stall, not '" + fault_name +
             "'",
         2);
  }
  ignore_sigpipe();
  std::optional<Crypto> crypto = crypto_from_flags(kProgram, flags, "client");
  if (!crypto && (fault == Fault::kFlipTag || fault == Fault::kStaleNonce)) {
    fail(kProgram, "--inject-fault=" + fault_name + " needs --key (sealed frames)", 2);
  }
  Server server(std::move(crypto), connections, fault, fault_after);
  const std::uint16_t bound = server.listen_on(port);
  std::printf("listening on 127.0.0.1:%u\n", static_cast<unsigned>(bound));
  std::fflush(stdout);
  return server.run(timeout);
}

}  // namespace
}  // namespace cryptobench::pingpong

int main(int argc, char** argv) { return cryptobench::pingpong::main_server(argc, argv); }
