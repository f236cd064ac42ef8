// cryptopp_backend.cc: Crypto++ 8.7. One AES::Encryption and one
// AES::Decryption hold the key schedules; the ECB/CBC mode objects are
// "external cipher" modes over them, so set_key computes each schedule once.
#include <cryptopp/aes.h>
#include <cryptopp/base64.h>
#include <cryptopp/cryptlib.h>
#include <cryptopp/filters.h>
#include <cryptopp/hex.h>
#include <cryptopp/hmac.h>
#include <cryptopp/modes.h>
#include <cryptopp/pwdbased.h>
#include <cryptopp/sha.h>

#include <cstring>

#include "kernels/cryptopp/cryptopp_counter_modes.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

using CryptoPP::byte;

constexpr Block kZeroIv{};

class CryptoppCipher final : public AesCipher {
 public:
  // The CBC modes insist on an IV at construction; each call sets the real one.
  explicit CryptoppCipher(Mode mode)
      : AesCipher(mode),
        ecb_enc_(enc_),
        ecb_dec_(dec_),
        cbc_enc_(enc_, kZeroIv.data()),
        cbc_dec_(dec_, kZeroIv.data()) {}

 protected:
  Error schedule_key(Bytes key) override {
    try {
      enc_.SetKey(key.data(), key.size());
      dec_.SetKey(key.data(), key.size());
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return iv == nullptr ? run(ecb_enc_, nullptr, in, out, blocks)
                         : run(cbc_enc_, iv, in, out, blocks);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return iv == nullptr ? run(ecb_dec_, nullptr, in, out, blocks)
                         : run(cbc_dec_, iv, in, out, blocks);
  }

 private:
  static Error run(CryptoPP::CipherModeBase& mode, const std::uint8_t* iv, const std::uint8_t* in,
                   std::uint8_t* out, std::size_t blocks) {
    try {
      if (iv != nullptr) mode.Resynchronize(iv, kAesBlockSize);
      mode.ProcessData(out, in, blocks * kAesBlockSize);
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

  CryptoPP::AES::Encryption enc_;
  CryptoPP::AES::Decryption dec_;
  CryptoPP::ECB_Mode_ExternalCipher::Encryption ecb_enc_;
  CryptoPP::ECB_Mode_ExternalCipher::Decryption ecb_dec_;
  CryptoPP::CBC_Mode_ExternalCipher::Encryption cbc_enc_;
  CryptoPP::CBC_Mode_ExternalCipher::Decryption cbc_dec_;
};

// Crypto++'s codecs are pipeline filters: source -> encoder/decoder -> sink.
// Its decoders skip characters outside the alphabet, so input is validated
// strictly first.
class CryptoppCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    return pump(in, length, new CryptoPP::Base64Encoder(nullptr, /*insertLineBreaks=*/false),
                reinterpret_cast<byte*>(out), encoded_size(Encoding::kBase64, length));
  }
  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kBase64, text);
    if (!checked.ok()) return checked;
    return pump(reinterpret_cast<const byte*>(text.data()), text.size(),
                new CryptoPP::Base64Decoder(), out, checked.size);
  }
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    return pump(in, length, new CryptoPP::HexEncoder(nullptr, /*uppercase=*/false),
                reinterpret_cast<byte*>(out), 2 * length);
  }
  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kHex, text);
    if (!checked.ok()) return checked;
    return pump(reinterpret_cast<const byte*>(text.data()), text.size(), new CryptoPP::HexDecoder(),
                out, checked.size);
  }

 private:
  // pump: runs `filter` (owned by the pipeline) over `in` into `out`.
  static Result pump(const byte* in, std::size_t length, CryptoPP::BufferedTransformation* filter,
                     byte* out, std::size_t capacity) {
    try {
      auto* sink = new CryptoPP::ArraySink(out, capacity);
      filter->Attach(sink);
      CryptoPP::ArraySource source(in, length, /*pumpAll=*/true, filter);
      return Result::success(static_cast<std::size_t>(sink->TotalPutLength()));
    } catch (const CryptoPP::Exception&) {
      return Result::failure(Error::kLibraryFailure);
    }
  }
};

class CryptoppKeyDeriver final : public KeyDeriver {
 public:
  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    if (out.size() > kSha256Size) return Error::kLibraryFailure;
    try {
      hmac_.SetKey(secret.data(), secret.size());
      hmac_.Update(message.data(), message.size());
      hmac_.TruncatedFinal(out.data(), out.size());
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    if (iterations == 0) return Error::kLibraryFailure;  // Crypto++ would quietly run one
    try {
      pbkdf2_.DeriveKey(out.data(), out.size(), 0, password.data(), password.size(), salt.data(),
                        salt.size(), iterations);
    } catch (const CryptoPP::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  CryptoPP::HMAC<CryptoPP::SHA256> hmac_;
  CryptoPP::PKCS5_PBKDF2_HMAC<CryptoPP::SHA256> pbkdf2_;
};

class CryptoppBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    CryptoPP::AES::Encryption probe;
    const int v = CryptoPP::LibraryVersion();
    const std::string version =
        std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." + std::to_string(v % 10);
    return {.name = "cryptopp",
            .library = "Crypto++",
            .version = version,
            .code_path = "Rijndael provider " + probe.AlgorithmProvider() +
                         " (CPUID dispatch in Crypto++); " + cryptopp_modes_path(),
            .codec = "Crypto++ Base64Encoder/Decoder, HexEncoder/Decoder",
            .kdf = "Crypto++ HMAC<SHA256>, PKCS5_PBKDF2_HMAC<SHA256>",
            .register_bits = probe.AlgorithmProvider() == "AESNI" ? 128u : 0u,
            .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm}};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<CryptoppCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return make_cryptopp_ctr(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return make_cryptopp_gcm(); }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<CryptoppKeyDeriver>();
  }

 private:
  CryptoppCodec codec_;
};

}  // namespace

const BackendEntry& cryptopp_backend_entry() {
  static const BackendEntry entry{
      "cryptopp", "Crypto++ (library-chosen AES-NI path)", []() { return std::string(); },
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<CryptoppBackend>(); },
      "Crypto++"};
  return entry;
}

}  // namespace cryptobench
