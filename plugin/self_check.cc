#include "plugin/self_check.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "kernels/registry.h"
#include "plugin/plugin_backend.h"
#include "tools/vectors/vector_check.h"

#ifndef CRYPTOBENCH_VECTOR_FOLDERS
#define CRYPTOBENCH_VECTOR_FOLDERS ""
#endif

namespace cryptobench::plugin {
namespace {

namespace fs = std::filesystem;
using ByteVector = std::vector<std::uint8_t>;

constexpr std::size_t kGuard = 64;
constexpr std::uint8_t kGuardByte = 0xa5;
// How long a self-check may take: 300 s, or $CRYPTOBENCH_PLUGIN_TIMEOUT (the
// tests' hanging plugin).
unsigned timeout_seconds() {
  const char* env = std::getenv("CRYPTOBENCH_PLUGIN_TIMEOUT");
  const long value = env != nullptr ? std::strtol(env, nullptr, 10) : 0;
  return value > 0 && value <= 3600 ? static_cast<unsigned>(value) : 300;
}

// Guarded: an output buffer with guard bytes on both sides, to catch a write
// past either end.
class Guarded {
 public:
  explicit Guarded(std::size_t size) : bytes_(size + 2 * kGuard, kGuardByte), size_(size) {}
  std::uint8_t* data() { return bytes_.data() + kGuard; }
  MutableBytes span() { return {data(), size_}; }
  ByteVector contents() const {
    return {bytes_.begin() + kGuard, bytes_.begin() + static_cast<long>(kGuard + size_)};
  }
  bool intact() const {
    const auto guard = [](std::uint8_t b) { return b == kGuardByte; };
    return std::all_of(bytes_.begin(), bytes_.begin() + kGuard, guard) &&
           std::all_of(bytes_.end() - kGuard, bytes_.end(), guard);
  }

 private:
  ByteVector bytes_;
  std::size_t size_;
};

// Child: the checks, run in the child process; each step says where it is on
// the pipe first, so that a crash can be placed.
class Child {
 public:
  Child(int fd, const AesBackend& plugin) : fd_(fd), plugin_(plugin), name_(plugin.info().name) {}

  void at(const std::string& what) { say("AT " + what); }
  void say(const std::string& line) {
    const std::string text = line + "\n";
    if (write(fd_, text.data(), text.size()) < 0) _exit(4);
  }
  // check: the first failure ends the check (the caller _exits).
  void check(bool ok, const std::string& what) {
    ++checks_;
    if (!ok) {
      say("FAIL " + what);
      _exit(1);
    }
  }
  void check_result(Result r, const std::string& what) {
    check(r.ok(), what + ": " + std::string(describe(r.error)));
  }
  std::size_t checks() const { return checks_; }

  ByteVector random_bytes(std::size_t n) {
    ByteVector out(n);
    for (std::uint8_t& b : out) b = static_cast<std::uint8_t>(rng_());
    return out;
  }

  void block_mode(Mode mode, std::size_t key_bytes, const AesBackend& ref,
                  const std::string& ref_name);
  void ctr(std::size_t key_bytes, const AesBackend& ref, const std::string& ref_name);
  void gcm(std::size_t key_bytes, const AesBackend& ref, const std::string& ref_name);
  void codec();
  void kdf(const AesBackend& ref, const std::string& ref_name);

 private:
  int fd_;
  const AesBackend& plugin_;
  std::string name_;
  std::mt19937_64 rng_{20261203};
  std::size_t checks_ = 0;
};

std::string label(Mode mode, std::size_t key_bytes) {
  std::string m(mode_name(mode));
  for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "AES-" + std::to_string(key_bytes * 8) + "-" + m;
}

void Child::block_mode(Mode mode, std::size_t key_bytes, const AesBackend& ref,
                       const std::string& ref_name) {
  const std::string what = label(mode, key_bytes);
  at(what + " against " + ref_name);
  const auto mine = plugin_.make_cipher(mode);
  const auto theirs = ref.make_cipher(mode);
  const ByteVector key = random_bytes(key_bytes);
  check(mine->set_key(key) == Error::kNone,
        what + ": set_key refused a " + std::to_string(key_bytes * 8) + "-bit key");
  check(theirs->set_key(key) == Error::kNone, what + ": the reference refused the key");
  for (const Padding padding : {Padding::kPkcs7, Padding::kNone}) {
    const std::vector<std::size_t> sizes =
        padding == Padding::kPkcs7
            ? std::vector<std::size_t>{0, 1, 15, 16, 17, 31, 100, 255, 1000, 4101}
            : std::vector<std::size_t>{16, 32, 48, 112, 128, 144, 256, 528, 4096};
    for (const std::size_t size : sizes) {
      const std::string at_size = what + ", " + std::to_string(size) + " bytes" +
                                  (padding == Padding::kPkcs7 ? " with PKCS#7" : "");
      const ByteVector msg = random_bytes(size);
      const ByteVector iv = mode == Mode::kCbc ? random_bytes(16) : ByteVector{};
      const std::size_t out_size = padding == Padding::kPkcs7 ? pkcs7_padded_size(size) : size;
      Guarded ct(out_size);
      ByteVector want(out_size);
      check_result(mine->encrypt(padding, iv, msg, ct.span()), at_size + ": encrypt");
      check(ct.intact(), at_size + ": encrypt wrote past its output");
      check_result(theirs->encrypt(padding, iv, msg, want), at_size + ": the reference's encrypt");
      check(ct.contents() == want, at_size + ": the ciphertext differs from " + ref_name + "'s");
      Guarded back(out_size);
      const Result dec = mine->decrypt(padding, iv, want, back.span());
      check_result(dec, at_size + ": decrypt");
      check(back.intact(), at_size + ": decrypt wrote past its output");
      check(dec.size == size && std::equal(msg.begin(), msg.end(), back.data()),
            at_size + ": decrypt does not give the message back");
      // In place.
      ByteVector buffer(out_size);
      std::copy(msg.begin(), msg.end(), buffer.begin());
      check_result(mine->encrypt(padding, iv, Bytes(buffer.data(), size), buffer),
                   at_size + ": in-place encrypt");
      check(buffer == want, at_size + ": in-place encrypt differs from " + ref_name + "'s");
      check_result(mine->decrypt(padding, iv, buffer, buffer), at_size + ": in-place decrypt");
      check(std::equal(msg.begin(), msg.end(), buffer.begin()),
            at_size + ": in-place decrypt does not give the message back");
    }
  }
}

void Child::ctr(std::size_t key_bytes, const AesBackend& ref, const std::string& ref_name) {
  const std::string what = label(Mode::kCtr, key_bytes);
  at(what + " against " + ref_name);
  const auto mine = plugin_.make_ctr();
  const auto theirs = ref.make_ctr();
  const ByteVector key = random_bytes(key_bytes);
  check(mine->set_key(key) == Error::kNone, what + ": set_key refused the key");
  check(theirs->set_key(key) == Error::kNone, what + ": the reference refused the key");
  ByteVector near_wrap(16, 0xff);
  near_wrap[15] = 0xfd;
  for (const ByteVector& counter : {random_bytes(16), near_wrap}) {
    for (const std::size_t size : {1, 15, 16, 17, 63, 64, 65, 255, 256, 4096, 4113}) {
      const std::string at_size = what + ", " + std::to_string(size) + " bytes";
      const ByteVector msg = random_bytes(size);
      Guarded out(size);
      ByteVector want(size);
      check_result(mine->crypt(counter, msg, out.span()), at_size);
      check(out.intact(), at_size + ": wrote past its output");
      check_result(theirs->crypt(counter, msg, want), at_size + ": the reference");
      check(out.contents() == want, at_size + ": the output differs from " + ref_name + "'s");
      ByteVector buffer = msg;
      check_result(mine->crypt(counter, buffer, buffer), at_size + " in place");
      check(buffer == want, at_size + ": in place differs from " + ref_name + "'s");
    }
  }
}

void Child::gcm(std::size_t key_bytes, const AesBackend& ref, const std::string& ref_name) {
  const std::string what = label(Mode::kGcm, key_bytes);
  at(what + " against " + ref_name);
  const auto mine = plugin_.make_gcm();
  const auto theirs = ref.make_gcm();
  const ByteVector key = random_bytes(key_bytes);
  check(mine->set_key(key) == Error::kNone, what + ": set_key refused the key");
  check(theirs->set_key(key) == Error::kNone, what + ": the reference refused the key");
  for (const std::size_t aad_size : {0, 13}) {
    for (const std::size_t size : {0, 1, 15, 16, 17, 64, 255, 4096, 4113}) {
      const std::string at_size = what + ", " + std::to_string(size) + " bytes, " +
                                  std::to_string(aad_size) + " bytes of AAD";
      const ByteVector msg = random_bytes(size), aad = random_bytes(aad_size);
      const ByteVector nonce = random_bytes(12);
      Guarded ct(size), tag(16);
      ByteVector want(size), want_tag(16);
      check_result(mine->seal(nonce, aad, msg, ct.span(), tag.span()), at_size + ": seal");
      check(ct.intact() && tag.intact(), at_size + ": seal wrote past its output or tag");
      check_result(theirs->seal(nonce, aad, msg, want, want_tag), at_size + ": the reference");
      check(ct.contents() == want && tag.contents() == want_tag,
            at_size + ": the ciphertext or tag differs from " + ref_name + "'s");
      Guarded back(size);
      check_result(mine->open(nonce, aad, want, want_tag, back.span()), at_size + ": open");
      check(back.intact(), at_size + ": open wrote past its output");
      check(back.contents() == msg, at_size + ": open does not give the message back");
      ByteVector forged = want_tag;
      forged[size % 16] ^= 0x01;
      const Result r = mine->open(nonce, aad, want, forged, back.span());
      check(r.error == Error::kBadTag,
            at_size + ": a forged tag was " +
                (r.ok() ? "accepted"
                        : "refused with " + std::string(describe(r.error)) +
                              " rather than a tag mismatch"));
      if (size > 0) {
        ByteVector altered = want;
        altered[size / 2] ^= 0x80;
        check(mine->open(nonce, aad, altered, want_tag, back.span()).error == Error::kBadTag,
              at_size + ": an altered ciphertext was not refused");
      }
      ByteVector buffer = msg;
      ByteVector in_tag(16);
      check_result(mine->seal(nonce, aad, buffer, buffer, in_tag), at_size + ": in-place seal");
      check(buffer == want && in_tag == want_tag, at_size + ": in-place seal differs");
      check_result(mine->open(nonce, aad, buffer, in_tag, buffer), at_size + ": in-place open");
      check(buffer == msg, at_size + ": in-place open does not give the message back");
    }
  }
}

void Child::codec() {
  at("the codec against cryptobench's own");
  const TextCodec& mine = plugin_.codec();
  const TextCodec& ours = project_codec();
  for (const Encoding e : {Encoding::kBase64, Encoding::kHex}) {
    const std::string what = std::string(encoding_name(e));
    for (const std::size_t size : {0, 1, 2, 3, 4, 5, 47, 48, 49, 100, 1000, 4099}) {
      const std::string at_size = what + ", " + std::to_string(size) + " bytes";
      const ByteVector data = random_bytes(size);
      const std::size_t n = encoded_size(e, size);
      std::string text(n, '\0'), want(n, '\0');
      std::vector<char> guarded(n + 2 * kGuard, static_cast<char>(kGuardByte));
      check_result(mine.encode(e, data, std::span<char>(guarded.data() + kGuard, n)),
                   at_size + ": encode");
      check(std::all_of(guarded.begin(), guarded.begin() + kGuard,
                        [](char c) { return c == static_cast<char>(kGuardByte); }) &&
                std::all_of(guarded.end() - kGuard, guarded.end(),
                            [](char c) { return c == static_cast<char>(kGuardByte); }),
            at_size + ": encode wrote past its output");
      text.assign(guarded.data() + kGuard, n);
      check_result(ours.encode(e, data, want), at_size + ": cryptobench's encode");
      check(text == want, at_size + ": the text differs from RFC 4648's");
      Guarded back(decode_capacity(e, n));
      const Result r = mine.decode(e, text, back.span());
      check_result(r, at_size + ": decode");
      check(back.intact(), at_size + ": decode wrote past its output");
      check(r.size == size && std::equal(data.begin(), data.end(), back.data()),
            at_size + ": decode does not give the bytes back");
    }
    for (const std::string bad : {"Zm9v!", "Zm9=v", "abc", "zz", "Zg=a"}) {
      ByteVector out(decode_capacity(e, bad.size()) + 4);
      check(mine.decode(e, bad, out).error == Error::kBadEncoding,
            what + ": the malformed text \"" + bad + "\" was decoded");
    }
  }
}

void Child::kdf(const AesBackend& ref, const std::string& ref_name) {
  at("the KDF against " + ref_name + "'s");
  const auto mine = plugin_.key_deriver();
  const auto theirs = ref.key_deriver();
  if (theirs == nullptr) return;
  const ByteVector secret = random_bytes(32), message = random_bytes(16);
  for (const std::size_t n : {16, 32}) {
    ByteVector out(n), want(n);
    check(mine->hmac_sha256(secret, message, out) == Error::kNone, "HMAC-SHA256 failed");
    check(theirs->hmac_sha256(secret, message, want) == Error::kNone, "the reference's HMAC");
    check(out == want,
          "HMAC-SHA256 (" + std::to_string(n) + " bytes) differs from " + ref_name + "'s");
    check(mine->pbkdf2_sha256(secret, message, 3, out) == Error::kNone, "PBKDF2 failed");
    check(theirs->pbkdf2_sha256(secret, message, 3, want) == Error::kNone,
          "the reference's PBKDF2");
    check(out == want, "PBKDF2-HMAC-SHA256 differs from " + ref_name + "'s");
  }
}

std::vector<fs::path> vector_files(const std::vector<std::string>& folders) {
  std::vector<fs::path> files;
  for (const std::string& folder : folders) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;
    std::vector<fs::path> found;
    for (const auto& entry : fs::recursive_directory_iterator(folder, ec)) {
      if (!entry.is_regular_file(ec)) continue;
      const auto ext = entry.path().extension();
      if (ext == ".rsp" || ext == ".json") {
        found.push_back(entry.path());
      } else if (ext == ".txt") {
        const auto head = vectors::read_head(entry.path(), 4096);
        if (head && vectors::is_rfc3686_txt(*head)) found.push_back(entry.path());
      }
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// has_verdict: the child's output holds a whole line that ends its check.
bool has_verdict(const std::string& text) {
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    for (const char* prefix : {"OK ", "FAIL ", "LOAD ", "ERROR ", "CRASH "}) {
      if (text.compare(start, std::strlen(prefix), prefix) == 0) return true;
    }
  }
  return false;
}

int g_crash_fd = -1;

// on_crash: says which signal on the pipe, then dies of it. Installed in the
// child over any sanitizer's handler, which would exit instead of dying.
extern "C" void on_crash(int sig) {
  char line[] = "CRASH 00\n";
  line[6] = static_cast<char>('0' + sig / 10 % 10);
  line[7] = static_cast<char>('0' + sig % 10);
  if (write(g_crash_fd, line, sizeof line - 1) < 0) {
  }
  std::signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

std::string fingerprint(const Plugin& plugin) { return plugin.sha256 + " " + plugin.claims; }

namespace {

// check_plugin: every check, in the child; throws on what is not the plugin's
// fault (a vector file that cannot be read).
void check_plugin(int fd, const Plugin& plugin, const std::vector<std::string>& folders) {
  const std::unique_ptr<AesBackend> backend = open_plugin_backend(plugin);
  Child child(fd, *backend);
  const BackendInfo info = backend->info();
  // The vectors of every mode it claims.
  std::size_t files = 0, cases = 0;
  const std::vector<fs::path> paths = vector_files(folders);
  child.check(
      !paths.empty(), "no test vectors found in " + [&] {
        std::string all;
        for (const std::string& f : folders) all += (all.empty() ? "" : ", ") + f;
        return all.empty() ? std::string("(none given)") : all;
      }() + ": set CRYPTOBENCH_VECTORS to the project's tests/vectors");
  for (const fs::path& p : paths) {
    child.at("the vectors of " + p.filename().string());
    const vectors::VectorFile file =
        vectors::parse_vector_file(p, p.filename().string(), vectors::read_file(p));
    for (const vectors::FileReport& r : {vectors::check_file(*backend, file)}) {
      if (!r.not_offered.empty()) continue;
      ++files;
      cases += r.cases;
      child.check(r.failed() == 0,
                  "fails the vectors of " + r.file + ": " +
                      (r.failures.empty() ? std::string("?") : r.failures[0]) +
                      (r.failed() > 1 ? " (and " + std::to_string(r.failed() - 1) + " more)" : ""));
    }
  }
  // CTR's counter-wrap cases, whatever vector files there are.
  if (info.offers(Mode::kCtr)) {
    child.at("the CTR counter-wrap cases");
    const vectors::FileReport r = vectors::check_ctr_counter_wrap(*backend);
    if (r.not_offered.empty()) {
      ++files;
      cases += r.cases;
      child.check(r.failed() == 0,
                  "fails the CTR counter-wrap cases: " +
                      (r.failures.empty() ? std::string("?") : r.failures[0]) +
                      (r.failed() > 1 ? " (and " + std::to_string(r.failed() - 1) + " more)" : ""));
    }
  }
  // The equivalence checks, against the backend each mode is verified against.
  std::vector<std::unique_ptr<AesBackend>> opened;
  const auto open_ref = [&](const std::string& name) -> const AesBackend* {
    if (name.empty() || name == info.name) return nullptr;
    opened.push_back(open_backend(name));
    return opened.back().get();
  };
  const std::string block_ref = reference_backend_name(info.name);
  for (const Mode mode : info.modes) {
    for (const std::size_t key_bytes : info.key_sizes) {
      if (is_block_mode(mode)) {
        if (const AesBackend* ref = open_ref(block_ref)) {
          child.block_mode(mode, key_bytes, *ref, block_ref);
        }
        continue;
      }
      if (!offers_key(*backend, mode, key_bytes)) continue;
      const std::string ref_name = counter_mode_reference_name(info.name, mode, key_bytes);
      const AesBackend* ref = open_ref(ref_name);
      if (ref == nullptr) continue;
      if (mode == Mode::kCtr) child.ctr(key_bytes, *ref, ref_name);
      if (mode == Mode::kGcm) child.gcm(key_bytes, *ref, ref_name);
    }
  }
  if (info.codec_source == CodecSource::kLibrary) child.codec();
  if (!info.kdf.empty()) {
    const std::string kdf_ref = fallback_kdf_backend_name();
    if (const AesBackend* ref = open_ref(kdf_ref)) child.kdf(*ref, kdf_ref);
  }
  child.say("SIGNED " + fingerprint(plugin));
  child.say("OK " + std::to_string(files) + " vector files, " + std::to_string(cases) + " cases; " +
            std::to_string(child.checks()) + " equivalence checks");
}

[[noreturn]] void run_child(int fd, const std::string& path,
                            const std::vector<std::string>& folders) {
  g_crash_fd = fd;
  for (const int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(sig, on_crash);
  std::unique_ptr<Plugin> plugin;
  try {
    plugin = load_plugin(path);
    if (find_backend(plugin->name) != nullptr) {
      throw PluginError("plugin " + path + ": its name '" + plugin->name +
                        "' is taken by a backend already there: rename the plugin");
    }
    register_backend(&plugin->entry);
  } catch (const std::exception& e) {
    const std::string text = std::string("LOAD ") + e.what() + "\n";
    if (write(fd, text.data(), text.size()) < 0) _exit(4);
    _exit(3);
  }
  try {
    check_plugin(fd, *plugin, folders);
  } catch (const std::exception& e) {
    const std::string text = std::string("ERROR ") + e.what() + "\n";
    if (write(fd, text.data(), text.size()) < 0) _exit(4);
    _exit(5);
  }
  _exit(0);
}

}  // namespace

std::vector<std::string> vector_folders() {
  std::vector<std::string> out;
  const char* env = std::getenv("CRYPTOBENCH_VECTORS");
  const std::string list = env != nullptr ? env : CRYPTOBENCH_VECTOR_FOLDERS;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t colon = list.find(':', start);
    const std::string item = list.substr(start, colon == std::string::npos ? colon : colon - start);
    if (!item.empty()) out.push_back(item);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return out;
}

SelfCheck self_check(const std::string& path, const std::vector<std::string>& folders) {
  int fds[2];
  if (pipe(fds) != 0) return {"plugin " + path + ": cannot make a pipe for its self-check", ""};
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  std::fflush(stdout);
  std::fflush(stderr);
  const unsigned timeout = timeout_seconds();
  const pid_t pid = fork();
  if (pid < 0) return {"plugin " + path + ": cannot fork for its self-check", ""};
  if (pid == 0) {
    close(fds[0]);
    setpgid(0, 0);  // its own group: whatever the plugin starts is killed with it
    std::signal(SIGALRM, SIG_DFL);
    alarm(timeout);
    run_child(fds[1], path, folders);
  }
  setpgid(pid, pid);
  close(fds[1]);
  // The parent keeps its own deadline: the plugin may turn the child's alarm
  // off, or leave a process behind that holds the pipe open.
  std::string text;
  char buffer[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout + 5);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    // A verdict ends the child's part; anything it left behind is not waited for.
    if (has_verdict(text)) break;
  }
  close(fds[0]);
  if (timed_out) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  kill(-pid, SIGKILL);  // what the plugin started, if anything is left
  if (timed_out) {
    std::string last_at;
    for (std::size_t at = text.rfind("AT "); at != std::string::npos;) {
      if (at == 0 || text[at - 1] == '\n') {
        last_at = text.substr(at + 3, text.find('\n', at) - at - 3);
        break;
      }
      at = at == 0 ? std::string::npos : text.rfind("AT ", at - 1);
    }
    return {"plugin " + path + ": its self-check did not finish within " + std::to_string(timeout) +
                " s" + (last_at.empty() ? "" : " (at " + last_at + ")"),
            ""};
  }
  // The child's last lines: where it was, and how it ended.
  std::string last_at, verdict, signed_as;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.rfind("AT ", 0) == 0) {
      last_at = line.substr(3);
    } else if (line.rfind("SIGNED ", 0) == 0) {
      signed_as = line.substr(7);
    } else {
      verdict = line;
    }
    start = end + 1;
  }
  const std::string where = "plugin " + path + ": ";
  const bool crashed = verdict.rfind("CRASH ", 0) == 0;
  if (WIFSIGNALED(status) || crashed) {
    const int sig = crashed ? std::atoi(verdict.c_str() + 6) : WTERMSIG(status);
    if (sig == SIGALRM) {
      return {where + "its self-check did not finish within " + std::to_string(timeout) + " s" +
                  (last_at.empty() ? "" : " (at " + last_at + ")"),
              ""};
    }
    return {where + "the plugin crashed in its self-check (" + strsignal(sig) + ", signal " +
                std::to_string(sig) + (last_at.empty() ? "" : ", at " + last_at) + ")",
            ""};
  }
  if (verdict.rfind("LOAD ", 0) == 0) return {verdict.substr(5), ""};
  if (verdict.rfind("ERROR ", 0) == 0) {
    return {where + "its self-check could not run: " + verdict.substr(6), ""};
  }
  if (verdict.rfind("FAIL ", 0) == 0) {
    return {where + "refused: it fails its self-check: " + verdict.substr(5), ""};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && verdict.rfind("OK ", 0) == 0) {
    return {"", verdict.substr(3), signed_as};
  }
  return {where + "its self-check ended without a verdict (exit " +
              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
              (last_at.empty() ? "" : ", at " + last_at) + ")",
          ""};
}

void add_plugins(const std::vector<std::string>& paths) {
  static std::vector<std::unique_ptr<Plugin>> kept;
  const std::vector<std::string> folders = vector_folders();
  // Every self-check first, each in a process that has loaded no other
  // plugin: one plugin's state never decides another's check.
  std::vector<SelfCheck> checks;
  for (const std::string& path : paths) {
    checks.push_back(self_check(path, folders));
    if (!checks.back().problem.empty()) throw PluginError(checks.back().problem);
  }
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const std::string& path = paths[k];
    std::unique_ptr<Plugin> plugin = load_plugin(path);
    // What runs must be what was checked: the same file, the same claims.
    if (fingerprint(*plugin) != checks[k].fingerprint) {
      throw PluginError("plugin " + path +
                        ": refused: the library loaded now is not the one its self-check ran "
                        "(the file or its table changed in between)");
    }
    plugin->entry.plugin_check = checks[k].summary;
    try {
      register_backend(&plugin->entry);
    } catch (const BackendError& e) {
      throw PluginError("plugin " + path + ": " + e.what());
    }
    std::fprintf(stderr, "cryptobench: plugin %s (%s) passed its self-check: %s\n",
                 plugin->name.c_str(), path.c_str(), checks[k].summary.c_str());
    kept.push_back(std::move(plugin));
  }
}

}  // namespace cryptobench::plugin
