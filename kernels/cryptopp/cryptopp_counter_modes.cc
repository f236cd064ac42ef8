// cryptopp_counter_modes.cc: CTR_Mode<AES> and GCM<AES> through Crypto++'s
// direct calls (ProcessData, EncryptAndAuthenticate, DecryptAndVerify), no
// filter pipeline. Each object keeps its mode objects keyed once by set_key;
// a call only resynchronises the counter block or nonce.
#include "kernels/cryptopp/cryptopp_counter_modes.h"

#include <cryptopp/aes.h>
#include <cryptopp/cpu.h>
#include <cryptopp/cryptlib.h>
#include <cryptopp/gcm.h>
#include <cryptopp/modes.h>

namespace cryptobench {
namespace {

using CryptoPP::byte;

// Both modes insist on an IV when keyed; each call sets the real one.
constexpr byte kZeroIv[kAesBlockSize] = {};

// Crypto++ is handed a valid pointer even for an empty buffer.
const byte* data_or_dummy(Bytes b) { return b.empty() ? kZeroIv : b.data(); }

class CryptoppCtr final : public AesCtr {
  // CTR_ModePolicy counts the whole 16-byte register (IncrementCounterByOne
  // over the block), so the 128-bit default of limits() holds.
 protected:
  Error schedule_key(Bytes key) override {
    try {
      ctr_.SetKeyWithIV(key.data(), key.size(), kZeroIv, sizeof kZeroIv);
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    try {
      ctr_.Resynchronize(counter, kAesBlockSize);
      ctr_.ProcessData(out, in, size);  // in place when out == in
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  CryptoPP::CTR_Mode<CryptoPP::AES>::Encryption ctr_;
};

class CryptoppGcm final : public AesGcm {
 public:
  // gcm.h (GCM_Base) takes nonces of 1 to UINT_MAX bytes and tags up to 16
  // (a shorter mac is the truncated tag: cryptlib.h, TruncatedVerify), with
  // AES's three key sizes. But only 12-byte nonces are offered: Crypto++
  // 8.7's GCM carries its counter through all 128 bits where SP 800-38D
  // increments only the low 32 (inc32). With a 12-byte nonce the low word
  // starts at 1 and no message is long enough to wrap it; with another
  // length J0 comes from GHASH and may sit just below a wrap, and then the
  // ciphertext is wrong (six Wycheproof AES-GCM cases, "J0:ffff...", tcIds
  // 79, 82, 159, 162, 242, ...).
  GcmLimits limits() const override { return {.nonce_12_only = true, .min_tag = 4}; }

 protected:
  Error schedule_key(Bytes key) override {
    try {
      enc_.SetKeyWithIV(key.data(), key.size(), kZeroIv, 12);
      dec_.SetKeyWithIV(key.data(), key.size(), kZeroIv, 12);
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    try {
      enc_.EncryptAndAuthenticate(out, tag.data(), tag.size(), nonce.data(),
                                  static_cast<int>(nonce.size()), data_or_dummy(aad), aad.size(),
                                  data_or_dummy(in), in.size());
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    try {
      // The comparison is Crypto++'s TruncatedVerify (VerifyBufsEqual:
      // constant time).
      return dec_.DecryptAndVerify(out, tag.data(), tag.size(), nonce.data(),
                                   static_cast<int>(nonce.size()), data_or_dummy(aad), aad.size(),
                                   data_or_dummy(in), in.size())
                 ? Error::kNone
                 : Error::kBadTag;
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
  }

 private:
  CryptoPP::GCM<CryptoPP::AES>::Encryption enc_;
  CryptoPP::GCM<CryptoPP::AES>::Decryption dec_;
};

bool cryptopp_has_clmul() {
#if CRYPTOPP_BOOL_X86 || CRYPTOPP_BOOL_X32 || CRYPTOPP_BOOL_X64
  return CryptoPP::HasCLMUL();
#else
  return false;
#endif
}

}  // namespace

std::string cryptopp_modes_path() {
  // Crypto++ 8.7 gcm.cpp: with CLMUL (CryptoPP::HasCLMUL()) GHASH runs on
  // PCLMULQDQ whatever the table option; otherwise on its 2K tables (the
  // GCM<AES> default). Both modes run the Rijndael provider above.
  return std::string("CTR_Mode<AES> and GCM<AES> on that provider, GHASH ") +
         (cryptopp_has_clmul() ? "PCLMULQDQ (CryptoPP::HasCLMUL())" : "2K tables (no CLMUL)");
}

std::unique_ptr<AesCtr> make_cryptopp_ctr() { return std::make_unique<CryptoppCtr>(); }
std::unique_ptr<AesGcm> make_cryptopp_gcm() { return std::make_unique<CryptoppGcm>(); }

}  // namespace cryptobench
