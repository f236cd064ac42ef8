#include "tools/vectors/vector_check.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/registry.h"
#include "kernels/text_codec.h"

namespace cryptobench::vectors {
namespace {

constexpr std::size_t kMaxReportedFailures = 5;

std::string hex(const std::uint8_t* data, std::size_t length) {
  std::string text(encoded_size(Encoding::kHex, length), '\0');
  (void)project_codec().encode(Encoding::kHex, {data, length}, {text.data(), text.size()});
  return text;
}

class Recorder {
 public:
  explicit Recorder(FileReport& report) : report_(report) {}
  void pass() {
    ++report_.cases;
    ++report_.passed;
  }
  void fail(const std::string& message) {
    ++report_.cases;
    if (report_.failures.size() < kMaxReportedFailures) report_.failures.push_back(message);
  }

 private:
  FileReport& report_;
};

// Why a backend without `mode` runs nothing: never empty (an empty reason
// would read as a file that ran), and never another mode's reason alone
// (BackendInfo::not_offered is one note for every mode a backend lacks).
std::string not_offered_reason(const BackendInfo& info, Mode mode) {
  std::string name(mode_name(mode));
  for (char& c : name) c = static_cast<char>(c - 'a' + 'A');
  if (info.not_offered.find(name) != std::string::npos) return info.not_offered;
  return name + " is not offered" +
         (info.not_offered.empty() ? "" : " (the backend notes: " + info.not_offered + ")");
}

Bytes iv_of(const RspFile& file, const ByteVector& iv) {
  return file.mode == Mode::kCbc ? Bytes(iv) : Bytes();
}

// One-shot record: the section's direction, then the inverse.
std::string check_block_record(AesCipher& cipher, const RspFile& file, const RspRecord& r) {
  ByteVector out(r.plaintext.size());
  const Bytes iv = iv_of(file, r.iv);
  if (cipher.set_key(r.key) != Error::kNone) return "set_key failed";
  const auto run = [&](bool encrypt, const ByteVector& in,
                       const ByteVector& expected) -> std::string {
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    const Result res = encrypt ? cipher.encrypt(Padding::kNone, iv, in, out)
                               : cipher.decrypt(Padding::kNone, iv, in, out);
    if (!res.ok())
      return std::string(encrypt ? "encrypt" : "decrypt") + ": " + std::string(describe(res.error));
    if (out != expected) {
      return std::string(encrypt ? "encrypt" : "decrypt") + " gave " + hex(out.data(), out.size()) +
             ", expected " + hex(expected.data(), expected.size());
    }
    return "";
  };
  if (r.encrypt) {
    if (auto m = run(true, r.plaintext, r.ciphertext); !m.empty()) return m;
    return run(false, r.ciphertext, r.plaintext);
  }
  if (auto m = run(false, r.ciphertext, r.plaintext); !m.empty()) return m;
  return run(true, r.plaintext, r.ciphertext);
}

// Monte Carlo record (AESAVS 6.4.1 ECB, 6.4.2 CBC): 1000 chained single-block
// operations from the record's key, IV and input; the last output must match.
std::string check_monte_carlo_record(AesCipher& cipher, const RspFile& file, const RspRecord& r) {
  if (cipher.set_key(r.key) != Error::kNone) return "set_key failed";
  const bool cbc = file.mode == Mode::kCbc;
  Block input, output, previous{}, chain{};
  std::memcpy(input.data(), (r.encrypt ? r.plaintext : r.ciphertext).data(), 16);
  if (cbc) std::memcpy(chain.data(), r.iv.data(), 16);
  for (int j = 0; j < 1000; ++j) {
    const Bytes iv = cbc ? Bytes(chain) : Bytes();
    const Result res = r.encrypt ? cipher.encrypt(Padding::kNone, iv, input, output)
                                 : cipher.decrypt(Padding::kNone, iv, input, output);
    if (!res.ok())
      return "operation " + std::to_string(j) + ": " + std::string(describe(res.error));
    if (cbc) {
      // Next chaining value: this ciphertext. Next input: the IV at j == 0,
      // else the previous output.
      const Block next_input = j == 0 ? chain : previous;
      chain = r.encrypt ? output : input;
      input = next_input;
    } else {
      input = output;
    }
    previous = output;
  }
  const ByteVector& expected = r.encrypt ? r.ciphertext : r.plaintext;
  if (!std::equal(output.begin(), output.end(), expected.begin())) {
    return "Monte Carlo result " + hex(output.data(), 16) + ", expected " +
           hex(expected.data(), 16);
  }
  return "";
}

// Outputs are checked with kGuard bytes of kFill after them, to catch a
// write past the end.
constexpr std::uint8_t kFill = 0xa5;
constexpr std::size_t kGuard = 16;

// A hex dump for messages, cut after 48 bytes.
std::string short_hex(Bytes data) {
  constexpr std::size_t kMax = 48;
  if (data.size() <= kMax) return hex(data.data(), data.size());
  return hex(data.data(), kMax) + "... (" + std::to_string(data.size()) + " bytes)";
}

// `size` bytes of `text` then kGuard bytes of kFill.
ByteVector guarded(Bytes text, std::size_t size) {
  ByteVector buffer(size + kGuard, kFill);
  std::copy(text.begin(), text.end(), buffer.begin());
  return buffer;
}

bool guard_intact(const ByteVector& buffer, std::size_t size) {
  return std::all_of(buffer.begin() + static_cast<long>(size), buffer.end(),
                     [](std::uint8_t b) { return b == kFill; });
}

std::string error_text(Error e) { return std::string(describe(e)); }

// The backend's CTR or GCM object, or nullptr with report.not_offered set.
template <typename Make>
auto counter_mode_of(const AesBackend& backend, Mode mode, FileReport& report, Make make) {
  const BackendInfo info = backend.info();
  decltype(make()) object = nullptr;
  if (!info.offers(mode)) {
    report.not_offered = not_offered_reason(info, mode);
  } else if (object = make(); object == nullptr) {
    report.not_offered = "info().modes lists " + std::string(mode_name(mode)) +
                         ", but the backend makes no object for it";
  }
  return object;
}

std::unique_ptr<AesGcm> gcm_of(const AesBackend& backend, FileReport& report) {
  return counter_mode_of(backend, Mode::kGcm, report, [&] { return backend.make_gcm(); });
}

std::unique_ptr<AesCtr> ctr_of(const AesBackend& backend, FileReport& report) {
  return counter_mode_of(backend, Mode::kCtr, report, [&] { return backend.make_ctr(); });
}

// One GCM vector and what the library must do with it.
struct GcmVector {
  enum class Expect {
    kValid,         // seals to ciphertext||tag, opens to plaintext
    kBadTag,        // open fails with kBadTag, output zeroed
    kNonceRefused,  // an empty nonce: seal and open refuse it (kNonceLength)
    kAcceptable,    // may be refused; what is accepted must be right
  };
  Bytes key, nonce, aad, plaintext, ciphertext, tag;
  Expect expect = Expect::kValid;
};

// key_outside: the backend does not take this key length (a plugin may claim
// fewer than all three): counted as outside its limits, not run.
bool key_outside(FileReport& report, const BackendInfo& info, std::size_t key_bytes) {
  if (info.takes_key(key_bytes)) return false;
  ++report.outside_limits;
  if (report.limits.empty()) report.limits = info.key_sizes_text();
  return true;
}

// within_limits: whether the library takes the vector's lengths. An empty
// nonce is every library's error, so its refusal is checked everywhere.
bool within_limits(const GcmLimits& limits, const GcmVector& v) {
  return limits.allows_key(v.key.size()) && limits.allows_tag(v.tag.size()) &&
         (v.nonce.empty() || limits.allows_nonce(v.nonce.size()));
}

void count_outside_limits(FileReport& report, const GcmLimits& limits) {
  ++report.outside_limits;
  if (report.limits.empty()) report.limits = limits.describe();
}

// check_gcm_vector: "" when the library does what `v` expects, out of place
// and in place; else what went wrong.
std::string check_gcm_vector(AesGcm& gcm, const GcmVector& v) {
  using Expect = GcmVector::Expect;
  if (const Error e = gcm.set_key(v.key); e != Error::kNone) return "set_key: " + error_text(e);
  const std::size_t n = v.ciphertext.size();
  ByteVector tag(v.tag.size());

  if (v.expect == Expect::kNonceRefused) {
    ByteVector out = guarded({}, n);
    const Result sealed = gcm.seal(v.nonce, v.aad, v.plaintext, {out.data(), n}, tag);
    if (sealed.error != Error::kNonceLength) {
      return "seal with an empty nonce: " +
             (sealed.ok() ? std::string("accepted") : error_text(sealed.error)) + ", expected " +
             error_text(Error::kNonceLength);
    }
    const Result opened = gcm.open(v.nonce, v.aad, v.ciphertext, v.tag, {out.data(), n});
    if (opened.error != Error::kNonceLength) {
      return "open with an empty nonce: " +
             (opened.ok() ? std::string("accepted") : error_text(opened.error)) + ", expected " +
             error_text(Error::kNonceLength);
    }
    return "";
  }

  if (v.expect == Expect::kBadTag) {
    // Out of place, then in place (out == in): rejected, nothing left.
    for (const bool in_place : {false, true}) {
      const std::string how = in_place ? "open in place" : "open";
      ByteVector buffer = guarded(in_place ? v.ciphertext : Bytes(), n);
      const Bytes in = in_place ? Bytes(buffer.data(), n) : v.ciphertext;
      const Result opened = gcm.open(v.nonce, v.aad, in, v.tag, {buffer.data(), n});
      if (opened.ok()) return how + " accepted a wrong tag";
      if (opened.error != Error::kBadTag) {
        return how + ": " + error_text(opened.error) + ", expected " + error_text(Error::kBadTag);
      }
      if (!std::all_of(buffer.begin(), buffer.begin() + static_cast<long>(n),
                       [](std::uint8_t b) { return b == 0; })) {
        return how + " rejected the tag but did not zero its output";
      }
      if (!guard_intact(buffer, n)) return how + " wrote past the end of its output";
    }
    return "";
  }

  const bool may_refuse = v.expect == Expect::kAcceptable;
  // seal and open, out of place and in place.
  for (const bool in_place : {false, true}) {
    const std::string where = in_place ? " in place" : "";
    {
      ByteVector buffer = guarded(in_place ? v.plaintext : Bytes(), n);
      const Bytes in = in_place ? Bytes(buffer.data(), n) : v.plaintext;
      std::fill(tag.begin(), tag.end(), kFill);
      const Result sealed = gcm.seal(v.nonce, v.aad, in, {buffer.data(), n}, tag);
      if (!sealed.ok() && may_refuse) return "";
      if (!sealed.ok()) return "seal" + where + ": " + error_text(sealed.error);
      const Bytes got(buffer.data(), n);
      if (sealed.size != n || !std::equal(got.begin(), got.end(), v.ciphertext.begin())) {
        return "seal" + where + " gave CT " + short_hex(got) + ", expected " +
               short_hex(v.ciphertext);
      }
      if (!std::equal(tag.begin(), tag.end(), v.tag.begin())) {
        return "seal" + where + " gave tag " + short_hex(tag) + ", expected " + short_hex(v.tag);
      }
      if (!guard_intact(buffer, n)) return "seal" + where + " wrote past the end of its output";
    }
    {
      ByteVector buffer = guarded(in_place ? v.ciphertext : Bytes(), n);
      const Bytes in = in_place ? Bytes(buffer.data(), n) : v.ciphertext;
      const Result opened = gcm.open(v.nonce, v.aad, in, v.tag, {buffer.data(), n});
      if (!opened.ok() && may_refuse) return "";
      if (!opened.ok()) return "open" + where + ": " + error_text(opened.error);
      const Bytes got(buffer.data(), n);
      if (opened.size != n || !std::equal(got.begin(), got.end(), v.plaintext.begin())) {
        return "open" + where + " gave PT " + short_hex(got) + ", expected " +
               short_hex(v.plaintext);
      }
      if (!guard_intact(buffer, n)) return "open" + where + " wrote past the end of its output";
    }
  }
  return "";
}

FileReport check_wycheproof_gcm(const AesBackend& backend, const WycheproofFile& file) {
  FileReport report{file.name, backend.info().name, 0, 0, {}};
  const auto gcm = gcm_of(backend, report);
  if (gcm == nullptr) return report;
  const GcmLimits limits = gcm->limits();
  Recorder recorder(report);
  for (const WycheproofCase& c : file.cases) {
    using Expect = GcmVector::Expect;
    const Expect expect = c.iv.empty()   ? Expect::kNonceRefused
                          : c.valid      ? Expect::kValid
                          : c.acceptable ? Expect::kAcceptable
                                         : Expect::kBadTag;
    const GcmVector v{c.key, c.iv, c.aad, c.msg, c.ct, c.tag, expect};
    if (!within_limits(limits, v)) {
      count_outside_limits(report, limits);
      continue;
    }
    const std::string message = check_gcm_vector(*gcm, v);
    if (message.empty()) {
      recorder.pass();
    } else {
      recorder.fail("tcId " + std::to_string(c.tc_id) + " (" + c.comment + "): " + message);
    }
  }
  return report;
}

// check_ctr_vector: `in` must give `expected` from `counter`, out of place
// and in place.
std::string check_ctr_vector(AesCtr& ctr, Bytes counter, Bytes in, Bytes expected) {
  const std::size_t n = in.size();
  for (const bool in_place : {false, true}) {
    const std::string how = in_place ? "crypt in place" : "crypt";
    ByteVector buffer = guarded(in_place ? in : Bytes(), n);
    const Bytes source = in_place ? Bytes(buffer.data(), n) : in;
    const Result r = ctr.crypt(counter, source, {buffer.data(), n});
    if (!r.ok()) return how + ": " + error_text(r.error);
    const Bytes got(buffer.data(), n);
    if (r.size != n || !std::equal(got.begin(), got.end(), expected.begin()))
      return how + " gave " + short_hex(got) + ", expected " + short_hex(expected);
    if (!guard_intact(buffer, n)) return how + " wrote past the end of its output";
  }
  return "";
}

// The next counter block: the 16 bytes as one big-endian number plus one,
// modulo 2^128. (Written out here rather than ctr_add, which the CTR base
// class itself uses.)
void increment_block(Block& block) {
  for (int i = 15; i >= 0; --i) {
    if (++block[static_cast<std::size_t>(i)] != 0) break;
  }
}

// The CTR output for `plain` from `start`, from AES-ECB of the counter blocks.
std::string reference_ctr(AesCipher& ecb, const Block& start, Bytes plain, ByteVector& out) {
  const std::size_t blocks = (plain.size() + kAesBlockSize - 1) / kAesBlockSize;
  ByteVector counters(blocks * kAesBlockSize), keystream(blocks * kAesBlockSize);
  Block block = start;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::copy(block.begin(), block.end(), counters.begin() + static_cast<long>(i * kAesBlockSize));
    increment_block(block);
  }
  const Result r = ecb.encrypt(Padding::kNone, {}, counters, keystream);
  if (!r.ok()) return "the reference ECB failed: " + error_text(r.error);
  out.resize(plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i)
    out[i] = static_cast<std::uint8_t>(plain[i] ^ keystream[i]);
  return "";
}

}  // namespace

FileReport check_rsp(const AesBackend& backend, const RspFile& file) {
  FileReport report{file.name, backend.info().name, 0, 0, {}};
  if (const BackendInfo info = backend.info(); !info.offers(file.mode)) {
    report.not_offered = not_offered_reason(info, file.mode);
    return report;
  }
  Recorder recorder(report);
  const auto cipher = backend.make_cipher(file.mode);
  const BackendInfo info = backend.info();
  for (const RspRecord& r : file.records) {
    if (key_outside(report, info, r.key.size())) continue;
    const std::string message = file.kind == RspKind::kMonteCarlo
                                    ? check_monte_carlo_record(*cipher, file, r)
                                    : check_block_record(*cipher, file, r);
    if (message.empty()) {
      recorder.pass();
    } else {
      recorder.fail(std::string(r.encrypt ? "ENCRYPT" : "DECRYPT") + " COUNT " +
                    std::to_string(r.count) + " (line " + std::to_string(r.line) + "): " + message);
    }
  }
  return report;
}

FileReport check_wycheproof(const AesBackend& backend, const WycheproofFile& file) {
  if (file.algorithm == WycheproofAlgorithm::kAesGcm) return check_wycheproof_gcm(backend, file);
  FileReport report{file.name, backend.info().name, 0, 0, {}};
  if (const BackendInfo info = backend.info(); !info.offers(Mode::kCbc)) {
    report.not_offered = not_offered_reason(info, Mode::kCbc);
    return report;
  }
  Recorder recorder(report);
  const auto cipher = backend.make_cipher(Mode::kCbc);
  const BackendInfo info = backend.info();
  for (const WycheproofCase& c : file.cases) {
    if (key_outside(report, info, c.key.size())) continue;
    const std::string id = "tcId " + std::to_string(c.tc_id) + " (" + c.comment + "): ";
    if (cipher->set_key(c.key) != Error::kNone) {
      recorder.fail(id + "set_key failed");
      continue;
    }
    ByteVector plain(c.ct.size() + 16, kFill);
    const Result dec = cipher->decrypt(Padding::kPkcs7, c.iv, c.ct, plain);
    if (!c.valid) {
      const bool rejected = dec.error == Error::kBadPadding || dec.error == Error::kInputLength;
      const bool wiped = std::all_of(plain.begin(), plain.begin() + static_cast<long>(c.ct.size()),
                                     [](std::uint8_t b) { return b == 0; });
      const bool untouched =
          std::all_of(plain.begin(), plain.end(), [](std::uint8_t b) { return b == kFill; });
      if (!rejected) {
        recorder.fail(id + "invalid ciphertext was accepted");
      } else if (!wiped && !untouched) {
        recorder.fail(id + "rejected, but plaintext was left in the output buffer");
      } else {
        recorder.pass();
      }
      continue;
    }
    if (!dec.ok() || !std::equal(c.msg.begin(), c.msg.end(), plain.begin()) ||
        dec.size != c.msg.size()) {
      recorder.fail(
          id + "decrypt: " + (dec.ok() ? "wrong plaintext" : std::string(describe(dec.error))));
      continue;
    }
    ByteVector ct(pkcs7_padded_size(c.msg.size()));
    const Result enc = cipher->encrypt(Padding::kPkcs7, c.iv, c.msg, ct);
    if (!enc.ok() || ct != c.ct) {
      recorder.fail(
          id + "encrypt: " + (enc.ok() ? "wrong ciphertext" : std::string(describe(enc.error))));
      continue;
    }
    recorder.pass();
  }
  return report;
}

FileReport check_gcm_rsp(const AesBackend& backend, const GcmRspFile& file) {
  FileReport report{file.name, backend.info().name, 0, 0, {}};
  const auto gcm = gcm_of(backend, report);
  if (gcm == nullptr) return report;
  const GcmLimits limits = gcm->limits();
  Recorder recorder(report);
  for (const GcmRecord& r : file.records) {
    const GcmVector v{r.key,
                      r.iv,
                      r.aad,
                      r.plaintext,
                      r.ciphertext,
                      r.tag,
                      r.fail ? GcmVector::Expect::kBadTag : GcmVector::Expect::kValid};
    if (!within_limits(limits, v)) {
      count_outside_limits(report, limits);
      continue;
    }
    const std::string message = check_gcm_vector(*gcm, v);
    if (message.empty()) {
      recorder.pass();
    } else {
      recorder.fail(std::string(r.fail ? "FAIL record " : "") + "Count " + std::to_string(r.count) +
                    " (line " + std::to_string(r.line) + "): " + message);
    }
  }
  return report;
}

FileReport check_ctr(const AesBackend& backend, const CtrFile& file) {
  FileReport report{file.name, backend.info().name, 0, 0, {}};
  const auto ctr = ctr_of(backend, report);
  if (ctr == nullptr) return report;
  Recorder recorder(report);
  const BackendInfo info = backend.info();
  for (const CtrRecord& r : file.records) {
    if (key_outside(report, info, r.key.size())) continue;
    std::string message;
    if (const Error e = ctr->set_key(r.key); e != Error::kNone) {
      message = "set_key: " + error_text(e);
    } else {
      const ByteVector& first = r.encrypt ? r.plaintext : r.ciphertext;
      const ByteVector& second = r.encrypt ? r.ciphertext : r.plaintext;
      message = check_ctr_vector(*ctr, r.counter, first, second);
      if (message.empty()) message = check_ctr_vector(*ctr, r.counter, second, first);
    }
    if (message.empty()) {
      recorder.pass();
    } else {
      recorder.fail(std::string(r.encrypt ? "ENCRYPT" : "DECRYPT") + " COUNT " +
                    std::to_string(r.count) + " (line " + std::to_string(r.line) + "): " + message);
    }
  }
  return report;
}

FileReport check_ctr_counter_wrap(const AesBackend& backend) {
  FileReport report{kCounterWrapName, backend.info().name, 0, 0, {}};
  const auto ctr = ctr_of(backend, report);
  if (ctr == nullptr) return report;
  // The reference: this backend's ECB, else openssl's.
  std::unique_ptr<AesBackend> openssl;
  std::unique_ptr<AesCipher> ecb;
  if (backend.info().offers(Mode::kEcb)) {
    ecb = backend.make_cipher(Mode::kEcb);
  } else {
    try {
      openssl = open_backend("openssl");
      if (openssl->info().offers(Mode::kEcb)) ecb = openssl->make_cipher(Mode::kEcb);
    } catch (const BackendError&) {
    }
  }
  if (ecb == nullptr) {
    report.not_offered =
        "no AES-ECB to compute the expected keystream with (the backend offers none, and openssl "
        "is not usable here)";
    return report;
  }
  // Counter blocks 1, 2 and 5 blocks before the low 32, 64, 96 and 128 bits
  // wrap, above them zeros or other bytes (which the carry must reach).
  std::vector<Block> starts;
  for (const unsigned bits : {32u, 64u, 96u, 128u}) {
    for (const bool prefix : {false, true}) {
      if (prefix && bits == 128) continue;
      for (const unsigned before : {1u, 2u, 5u}) {
        Block block{};
        const std::size_t low = 16 - bits / 8;  // the first byte of the low `bits` bits
        for (std::size_t i = 0; i < low; ++i)
          block[i] = prefix ? static_cast<std::uint8_t>(0xc0 + i) : 0;
        for (std::size_t i = low; i < 16; ++i) block[i] = 0xff;
        block[15] = static_cast<std::uint8_t>(0x100 - before);
        starts.push_back(block);
      }
    }
  }
  // One byte, a block, a block and a byte, and lengths crossing the wrap
  // mid-block, up to one past a library's widest interleave.
  const std::size_t lengths[] = {1, 16, 17, 16 * 3 + 5, 16 * 8 + 3, 16 * 17 + 9};
  ByteVector plain(16 * 17 + 9);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<std::uint8_t>(i * 31 + 7);
  Recorder recorder(report);
  for (const std::size_t key_size : {16u, 24u, 32u}) {
    if (!backend.info().takes_key(key_size)) continue;
    ByteVector key(key_size);
    for (std::size_t i = 0; i < key_size; ++i) key[i] = static_cast<std::uint8_t>(0x3c ^ (i * 13));
    const std::string keyed = "AES-" + std::to_string(key_size * 8);
    if (ecb->set_key(key) != Error::kNone) {
      recorder.fail(keyed + ": the reference ECB refused the key");
      continue;
    }
    if (const Error e = ctr->set_key(key); e != Error::kNone) {
      recorder.fail(keyed + ": set_key: " + error_text(e));
      continue;
    }
    for (const Block& start : starts) {
      for (const std::size_t length : lengths) {
        const Bytes in(plain.data(), length);
        ByteVector expected;
        std::string message = reference_ctr(*ecb, start, in, expected);
        if (message.empty()) message = check_ctr_vector(*ctr, start, in, expected);
        if (message.empty()) {
          recorder.pass();
        } else {
          recorder.fail(keyed + ", counter block " + hex(start.data(), 16) + ", " +
                        std::to_string(length) + " bytes: " + message);
        }
      }
    }
  }
  return report;
}

FileReport check_file(const AesBackend& backend, const VectorFile& file) {
  return std::visit(
      [&](const auto& content) -> FileReport {
        using T = std::decay_t<decltype(content)>;
        if constexpr (std::is_same_v<T, RspFile>) {
          return check_rsp(backend, content);
        } else if constexpr (std::is_same_v<T, GcmRspFile>) {
          return check_gcm_rsp(backend, content);
        } else if constexpr (std::is_same_v<T, CtrFile>) {
          return check_ctr(backend, content);
        } else {
          static_assert(std::is_same_v<T, WycheproofFile>);
          return check_wycheproof(backend, content);
        }
      },
      file.content);
}

}  // namespace cryptobench::vectors
