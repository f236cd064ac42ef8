// counter_modes_vector_test.cc: the CTR and GCM checks of the vector runner
// on every backend that has the mode, and on deliberately broken backends,
// to show that the checks catch what they claim to: an open that accepts a
// wrong tag, a wrong tag, a broken in-place path, a counter that does not
// carry past its low 32 or 64 bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "tests/backend_test.h"
#include "tools/vectors/vector_check.h"

namespace cryptobench {
namespace {

namespace fs = std::filesystem;
using vectors::ByteVector;
using vectors::FileReport;

const fs::path kFixtures = fs::path(CRYPTOBENCH_VECTOR_DIR).parent_path() / "fixtures";

// 20 records of gcmDecrypt128.rsp: 6 that open, 14 marked FAIL.
vectors::GcmRspFile gcm_excerpt() {
  const fs::path path = kFixtures / "gcm_decrypt_excerpt.rsp";
  return vectors::parse_gcm_rsp(path.filename().string(), vectors::read_file(path));
}

vectors::WycheproofFile wycheproof_gcm() {
  const fs::path path = fs::path(CRYPTOBENCH_VECTOR_DIR) / "wycheproof_aes_gcm_test.json";
  return vectors::parse_wycheproof(path.filename().string(), vectors::read_file(path));
}

std::string first_failure(const FileReport& report) {
  return report.failures.empty() ? "" : report.failures.front();
}

class CounterModeVectorTest : public testing::BackendTest {};

// Skips a test whose mode the backend lacks, with a reason that is never empty.
#define REQUIRE_COUNTER_MODE(mode)                                               \
  do {                                                                           \
    if (!offers(mode)) {                                                         \
      const BackendInfo info = backend().info();                                 \
      GTEST_SKIP() << info.name << " does not offer " << mode_name(mode)         \
                   << (info.not_offered.empty() ? "" : ": " + info.not_offered); \
    }                                                                            \
  } while (0)

// The runner's counter-wrap cases: 3 key sizes x 21 counter blocks x 6 lengths.
TEST_P(CounterModeVectorTest, CtrCounterWraps) {
  REQUIRE_COUNTER_MODE(Mode::kCtr);
  const FileReport report = vectors::check_ctr_counter_wrap(backend());
  if (!report.not_offered.empty()) GTEST_SKIP() << report.not_offered;
  EXPECT_EQ(report.cases, 378u);
  EXPECT_EQ(report.failed(), 0u) << first_failure(report);
}

TEST_P(CounterModeVectorTest, GcmDecryptExcerpt) {
  REQUIRE_COUNTER_MODE(Mode::kGcm);
  const FileReport report = vectors::check_gcm_rsp(backend(), gcm_excerpt());
  if (!report.not_offered.empty()) GTEST_SKIP() << report.not_offered;
  EXPECT_EQ(report.cases + report.outside_limits, 20u);
  EXPECT_EQ(report.failed(), 0u) << first_failure(report);
  if (report.outside_limits != 0) {
    EXPECT_FALSE(report.limits.empty());
  }
}

// Sealing and opening in place (out == in) directly, with a tampered tag
// rejected in place and the buffer wiped.
TEST_P(CounterModeVectorTest, GcmInPlace) {
  REQUIRE_COUNTER_MODE(Mode::kGcm);
  const auto gcm = backend().make_gcm();
  ASSERT_NE(gcm, nullptr);
  const vectors::WycheproofCase c = wycheproof_gcm().cases.front();  // tcId 1: 12-byte nonce
  ASSERT_TRUE(c.valid);
  if (!gcm->limits().allows_key(c.key.size())) GTEST_SKIP() << "no 128-bit keys in GCM";
  ASSERT_EQ(gcm->set_key(c.key), Error::kNone);
  ByteVector buffer = c.msg, tag(c.tag.size());
  ASSERT_TRUE(gcm->seal(c.iv, c.aad, buffer, buffer, tag).ok());
  EXPECT_EQ(buffer, c.ct);
  EXPECT_EQ(tag, c.tag);
  const Result opened = gcm->open(c.iv, c.aad, buffer, tag, buffer);
  ASSERT_TRUE(opened.ok()) << describe(opened.error);
  EXPECT_EQ(buffer, c.msg);
  buffer = c.ct;
  tag[5] ^= 0x20;
  EXPECT_EQ(gcm->open(c.iv, c.aad, buffer, tag, buffer).error, Error::kBadTag);
  EXPECT_TRUE(std::all_of(buffer.begin(), buffer.end(), [](std::uint8_t b) { return b == 0; }));
}

CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(CounterModeVectorTest);

// --- Broken backends: the checks must fail them ---------------------------

// GCM over openssl's, with one fault.
enum class GcmFault { kNone, kAcceptAnyTag, kWrongTag, kBrokenInPlaceSeal };

class BrokenGcm final : public AesGcm {
 public:
  BrokenGcm(std::unique_ptr<AesGcm> inner, GcmFault fault, std::optional<GcmLimits> limits)
      : inner_(std::move(inner)), fault_(fault), limits_(limits) {}
  GcmLimits limits() const override { return limits_ ? *limits_ : inner_->limits(); }

 protected:
  Error schedule_key(Bytes key) override { return inner_->set_key(key); }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    const bool in_place = out == in.data();
    const Result r = inner_->seal(nonce, aad, in, {out, in.size()}, tag);
    if (!r.ok()) return r.error;
    if (fault_ == GcmFault::kWrongTag) tag[0] ^= 1;
    if (fault_ == GcmFault::kBrokenInPlaceSeal && in_place && !in.empty()) out[0] ^= 1;
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    if (fault_ == GcmFault::kAcceptAnyTag) {
      // GCM decryption is its encryption's CTR: sealing the ciphertext gives
      // the plaintext; the tag is never looked at.
      ByteVector ignored(tag.size());
      return inner_->seal(nonce, aad, in, {out, in.size()}, ignored).error;
    }
    return inner_->open(nonce, aad, in, tag, {out, in.size()}).error;
  }

 private:
  std::unique_ptr<AesGcm> inner_;
  GcmFault fault_;
  std::optional<GcmLimits> limits_;
};

// CTR from openssl's ECB that increments only the low `counts` bits of the
// counter block, and tells the base class it counts `declares` bits.
class NarrowCtr final : public AesCtr {
 public:
  NarrowCtr(std::unique_ptr<AesCipher> ecb, unsigned counts, unsigned declares)
      : ecb_(std::move(ecb)), counts_(counts), declares_(declares) {}
  CtrLimits limits() const override { return {declares_}; }

 protected:
  Error schedule_key(Bytes key) override { return ecb_->set_key(key); }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    Block block, keystream;
    std::memcpy(block.data(), counter, 16);
    for (std::size_t done = 0; done < size; done += 16) {
      if (!ecb_->encrypt(Padding::kNone, {}, block, keystream).ok()) return Error::kLibraryFailure;
      for (std::size_t i = 0; i < 16 && done + i < size; ++i)
        out[done + i] = static_cast<std::uint8_t>(in[done + i] ^ keystream[i]);
      for (std::size_t i = 16; i-- > 16 - counts_ / 8;) {
        if (++block[i] != 0) break;
      }
    }
    return Error::kNone;
  }

 private:
  std::unique_ptr<AesCipher> ecb_;
  unsigned counts_, declares_;
};

// openssl's backend, but with the CTR or GCM objects above.
class BrokenBackend final : public AesBackend {
 public:
  explicit BrokenBackend(std::unique_ptr<AesBackend> inner) : inner_(std::move(inner)) {}
  BackendInfo info() const override {
    BackendInfo info = inner_->info();
    info.name = "broken";
    return info;
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return inner_->make_cipher(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override {
    return std::make_unique<NarrowCtr>(inner_->make_cipher(Mode::kEcb), ctr_counts, ctr_declares);
  }
  std::unique_ptr<AesGcm> make_gcm() const override {
    return std::make_unique<BrokenGcm>(inner_->make_gcm(), gcm_fault, gcm_limits);
  }
  const TextCodec& codec() const override { return inner_->codec(); }

  unsigned ctr_counts = 128, ctr_declares = 128;
  GcmFault gcm_fault = GcmFault::kAcceptAnyTag;
  std::optional<GcmLimits> gcm_limits;  // instead of openssl's

 private:
  std::unique_ptr<AesBackend> inner_;
};

class BrokenBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const BackendEntry* entry = find_backend("openssl");
    if (entry == nullptr || !unusable_reason(*entry).empty()) GTEST_SKIP() << "no openssl here";
    backend_ = std::make_unique<BrokenBackend>(entry->open());
    const BackendInfo info = backend_->info();
    if (!info.offers(Mode::kEcb) || !info.offers(Mode::kCtr) || !info.offers(Mode::kGcm))
      GTEST_SKIP() << "openssl offers no ECB, CTR or GCM here";
  }
  std::unique_ptr<BrokenBackend> backend_;
};

TEST_F(BrokenBackendTest, AnOpenThatAcceptsAnyTagFailsEveryFailRecord) {
  backend_->gcm_fault = GcmFault::kAcceptAnyTag;
  const FileReport nist = vectors::check_gcm_rsp(*backend_, gcm_excerpt());
  EXPECT_EQ(nist.cases, 20u);
  EXPECT_EQ(nist.failed(), 14u);  // exactly the FAIL records
  EXPECT_NE(first_failure(nist).find("FAIL record Count 1 (line 21): open accepted a wrong tag"),
            std::string::npos)
      << first_failure(nist);
  // Wycheproof: the 81 modified tags (the 6 empty nonces are still refused).
  const FileReport wycheproof = vectors::check_wycheproof(*backend_, wycheproof_gcm());
  EXPECT_EQ(wycheproof.failed(), 81u);
  EXPECT_NE(first_failure(wycheproof).find("open accepted a wrong tag"), std::string::npos);
}

TEST_F(BrokenBackendTest, AWrongTagFailsEveryRecordThatOpens) {
  backend_->gcm_fault = GcmFault::kWrongTag;
  const FileReport report = vectors::check_gcm_rsp(*backend_, gcm_excerpt());
  EXPECT_EQ(report.failed(), 6u);
  EXPECT_NE(first_failure(report).find("seal gave tag"), std::string::npos)
      << first_failure(report);
}

TEST_F(BrokenBackendTest, ABrokenInPlaceSealFails) {
  backend_->gcm_fault = GcmFault::kBrokenInPlaceSeal;
  const FileReport report = vectors::check_gcm_rsp(*backend_, gcm_excerpt());
  EXPECT_GT(report.failed(), 0u);
  EXPECT_NE(first_failure(report).find("seal in place gave CT"), std::string::npos)
      << first_failure(report);
}

// A library with narrower limits: what it does not take is counted, with
// its limits, and neither run nor failed.
TEST_F(BrokenBackendTest, CasesOutsideTheLimitsAreCountedNotFailed) {
  backend_->gcm_fault = GcmFault::kNone;
  backend_->gcm_limits = GcmLimits{.nonce_12_only = true, .min_tag = 16, .key_24 = false};
  const vectors::WycheproofFile file = wycheproof_gcm();
  std::size_t outside = 0;
  for (const vectors::WycheproofCase& c : file.cases)
    outside += (!c.iv.empty() && c.iv.size() != 12) || c.key.size() == 24 ? 1 : 0;
  const FileReport report = vectors::check_wycheproof(*backend_, file);
  EXPECT_EQ(report.failed(), 0u) << first_failure(report);
  EXPECT_EQ(report.outside_limits, outside);
  EXPECT_GT(outside, 0u);
  EXPECT_EQ(report.cases + report.outside_limits, file.cases.size());
  EXPECT_EQ(report.limits, "12-byte nonces only, 16-byte tags only, 128/256-bit keys");
  // The excerpt's 1-byte and 128-byte nonces and 4- and 8-byte tags.
  const FileReport nist = vectors::check_gcm_rsp(*backend_, gcm_excerpt());
  EXPECT_EQ(nist.failed(), 0u) << first_failure(nist);
  EXPECT_EQ(nist.cases, 5u);  // only [IVlen = 96] [Taglen = 128]
  EXPECT_EQ(nist.outside_limits, 15u);
}

TEST_F(BrokenBackendTest, ACounterThatDoesNotCarryFailsTheWrapCases) {
  for (const unsigned bits : {32u, 64u}) {
    backend_->ctr_counts = bits;
    backend_->ctr_declares = 128;  // claims the full counter
    const FileReport report = vectors::check_ctr_counter_wrap(*backend_);
    EXPECT_EQ(report.cases, 378u);
    EXPECT_GT(report.failed(), 0u) << bits;
    EXPECT_NE(first_failure(report).find("crypt gave"), std::string::npos) << first_failure(report);
  }
}

// A library that counts only 32 or 64 bits and says so: the base class
// carries for it, and the same cases pass.
TEST_F(BrokenBackendTest, ANarrowCounterThatSaysSoPasses) {
  for (const unsigned bits : {32u, 64u, 128u}) {
    backend_->ctr_counts = bits;
    backend_->ctr_declares = bits;
    const FileReport report = vectors::check_ctr_counter_wrap(*backend_);
    EXPECT_EQ(report.cases, 378u);
    EXPECT_EQ(report.failed(), 0u) << bits << ": " << first_failure(report);
  }
}

}  // namespace
}  // namespace cryptobench
