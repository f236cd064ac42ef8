#include "tools/vectors/vector_check.h"

#include <algorithm>
#include <cstring>

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

}  // namespace

FileReport check_rsp(const AesBackend& backend, const RspFile& file) {
  FileReport report{file.name, backend.info().name, 0, 0, {}};
  if (const BackendInfo info = backend.info(); !info.offers(file.mode)) {
    report.not_offered = info.not_offered;
    return report;
  }
  Recorder recorder(report);
  const auto cipher = backend.make_cipher(file.mode);
  for (const RspRecord& r : file.records) {
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
  FileReport report{file.name, backend.info().name, 0, 0, {}};
  if (const BackendInfo info = backend.info(); !info.offers(Mode::kCbc)) {
    report.not_offered = info.not_offered;
    return report;
  }
  Recorder recorder(report);
  const auto cipher = backend.make_cipher(Mode::kCbc);
  for (const WycheproofCase& c : file.cases) {
    const std::string id = "tcId " + std::to_string(c.tc_id) + " (" + c.comment + "): ";
    if (cipher->set_key(c.key) != Error::kNone) {
      recorder.fail(id + "set_key failed");
      continue;
    }
    constexpr std::uint8_t kFill = 0xa5;
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

}  // namespace cryptobench::vectors
