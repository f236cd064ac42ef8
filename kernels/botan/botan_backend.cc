// botan_backend.cc: Botan 2.19. ECB runs on a BlockCipher (encrypt_n /
// decrypt_n); CBC on Botan's Cipher_Mode objects, which work in place, so
// out-of-place calls copy the input to the output first, as Botan users do.
#include <botan/base64.h>
#include <botan/block_cipher.h>
#include <botan/cipher_mode.h>
#include <botan/exceptn.h>
#include <botan/hex.h>
#include <botan/mac.h>
#include <botan/pwdhash.h>
#include <botan/version.h>

#include <cstring>

#include "kernels/botan/botan_counter_modes.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

std::string aes_name(std::size_t key_size) { return "AES-" + std::to_string(key_size * 8); }

class BotanCipher final : public AesCipher {
 public:
  explicit BotanCipher(Mode mode) : AesCipher(mode) {}

 protected:
  Error schedule_key(Bytes key) override {
    try {
      if (key.size() != objects_key_size_) {  // a new key size needs new objects
        if (mode() == Mode::kEcb) {
          ecb_ = Botan::BlockCipher::create_or_throw(aes_name(key.size()));
        } else {
          const std::string name = aes_name(key.size()) + "/CBC/NoPadding";
          cbc_enc_ = Botan::Cipher_Mode::create_or_throw(name, Botan::ENCRYPTION);
          cbc_dec_ = Botan::Cipher_Mode::create_or_throw(name, Botan::DECRYPTION);
        }
        objects_key_size_ = key.size();
      }
      if (mode() == Mode::kEcb) {
        ecb_->set_key(key.data(), key.size());
      } else {
        cbc_enc_->set_key(key.data(), key.size());
        cbc_dec_->set_key(key.data(), key.size());
      }
    } catch (const Botan::Exception&) {
      objects_key_size_ = 0;
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(cbc_enc_.get(), true, iv, in, out, blocks);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(cbc_dec_.get(), false, iv, in, out, blocks);
  }

 private:
  Error run(Botan::Cipher_Mode* cbc, bool encrypting, const std::uint8_t* iv,
            const std::uint8_t* in, std::uint8_t* out, std::size_t blocks) {
    try {
      if (iv == nullptr) {
        if (encrypting) {
          ecb_->encrypt_n(in, out, blocks);
        } else {
          ecb_->decrypt_n(in, out, blocks);
        }
        return Error::kNone;
      }
      const std::size_t length = blocks * kAesBlockSize;
      if (out != in) std::memmove(out, in, length);
      cbc->start(iv, kAesBlockSize);
      if (cbc->process(out, length) != length) return Error::kLibraryFailure;
    } catch (const Botan::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

  std::unique_ptr<Botan::BlockCipher> ecb_;
  std::unique_ptr<Botan::Cipher_Mode> cbc_enc_;
  std::unique_ptr<Botan::Cipher_Mode> cbc_dec_;
  std::size_t objects_key_size_ = 0;
};

// Botan's decoders accept whitespace (turned off here) and some
// non-canonical forms, so input is validated strictly first.
class BotanCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    try {
      std::size_t consumed = 0;
      const std::size_t written = Botan::base64_encode(out, in, length, consumed, true);
      if (consumed != length) return Result::failure(Error::kLibraryFailure);
      return Result::success(written);
    } catch (const Botan::Exception&) {
      return Result::failure(Error::kLibraryFailure);
    }
  }
  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kBase64, text);
    if (!checked.ok()) return checked;
    try {
      const std::size_t written = Botan::base64_decode(out, text.data(), text.size(), false);
      if (written != checked.size) return Result::failure(Error::kLibraryFailure);
      return checked;
    } catch (const Botan::Exception&) {
      return Result::failure(Error::kBadEncoding);
    }
  }
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    Botan::hex_encode(out, in, length, /*uppercase=*/false);
    return Result::success(2 * length);
  }
  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kHex, text);
    if (!checked.ok()) return checked;
    try {
      const std::size_t written = Botan::hex_decode(out, text.data(), text.size(), false);
      if (written != checked.size) return Result::failure(Error::kLibraryFailure);
      return checked;
    } catch (const Botan::Exception&) {
      return Result::failure(Error::kBadEncoding);
    }
  }
};

class BotanKeyDeriver final : public KeyDeriver {
 public:
  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    if (out.size() > kSha256Size) return Error::kLibraryFailure;
    try {
      if (!hmac_) hmac_ = Botan::MessageAuthenticationCode::create_or_throw("HMAC(SHA-256)");
      hmac_->set_key(secret.data(), secret.size());
      hmac_->update(message.data(), message.size());
      std::uint8_t mac[kSha256Size];
      hmac_->final(mac);
      std::memcpy(out.data(), mac, out.size());
    } catch (const Botan::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    if (iterations == 0) return Error::kLibraryFailure;
    try {
      if (!pbkdf2_ || iterations != iterations_) {
        pbkdf2_ = Botan::PasswordHashFamily::create_or_throw("PBKDF2(SHA-256)")
                      ->from_iterations(iterations);
        iterations_ = iterations;
      }
      pbkdf2_->derive_key(out.data(), out.size(), reinterpret_cast<const char*>(password.data()),
                          password.size(), salt.data(), salt.size());
    } catch (const Botan::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  std::unique_ptr<Botan::MessageAuthenticationCode> hmac_;
  std::unique_ptr<Botan::PasswordHash> pbkdf2_;
  unsigned iterations_ = 0;
};

class BotanBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    const auto probe = Botan::BlockCipher::create("AES-128");
    const std::string provider = probe ? probe->provider() : "unavailable";
    // Botan 2 names its hardware AES provider "cpu" (AES-NI on x86).
    const std::string meaning = provider == "cpu"     ? " = AES-NI instructions"
                                : provider == "vperm" ? " = SSSE3 vector permutes, no AES-NI"
                                : provider == "base"  ? " = portable C++ tables"
                                                      : "";
    return {.name = "botan",
            .library = "Botan",
            .version = Botan::short_version_string(),
            .code_path = "AES provider " + provider + meaning + " (Botan CPUID dispatch); " +
                         botan_modes_path(),
            .codec = "Botan base64_encode/base64_decode, hex_encode/hex_decode",
            .kdf = "Botan HMAC(SHA-256), PBKDF2(SHA-256)",
            .register_bits = provider == "cpu" ? 128u : 0u,
            .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm}};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<BotanCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return make_botan_ctr(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return make_botan_gcm(); }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<BotanKeyDeriver>();
  }

 private:
  BotanCodec codec_;
};

}  // namespace

const BackendEntry& botan_backend_entry() {
  static const BackendEntry entry{
      "botan", "Botan 2 (library-chosen AES-NI path)", []() { return std::string(); },
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<BotanBackend>(); }, "Botan"};
  return entry;
}

}  // namespace cryptobench
