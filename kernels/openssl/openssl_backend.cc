// openssl_backend.cc: OpenSSL 3 through EVP. Each cipher (AES-{128,192,256}-
// {ECB,CBC}) is fetched once per process and shared; each AesCipher keeps one
// encryption and one decryption context and only changes the IV per call.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/openssl/openssl_aes_path.h"
#include "kernels/openssl/openssl_counter_modes.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

// Fetched ciphers, indexed [mode][key size 16/24/32 -> 0/1/2].
class FetchedCiphers {
 public:
  FetchedCiphers() {
    static constexpr const char* kNames[2][3] = {{"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"},
                                                 {"AES-128-CBC", "AES-192-CBC", "AES-256-CBC"}};
    for (int m = 0; m < 2; ++m) {
      for (int k = 0; k < 3; ++k) ciphers_[m][k] = EVP_CIPHER_fetch(nullptr, kNames[m][k], nullptr);
    }
  }
  ~FetchedCiphers() {
    for (auto& row : ciphers_) {
      for (EVP_CIPHER* c : row) EVP_CIPHER_free(c);
    }
  }
  FetchedCiphers(const FetchedCiphers&) = delete;
  FetchedCiphers& operator=(const FetchedCiphers&) = delete;

  const EVP_CIPHER* get(Mode mode, std::size_t key_size) const {
    return ciphers_[mode == Mode::kCbc ? 1 : 0][(key_size - 16) / 8];
  }

 private:
  EVP_CIPHER* ciphers_[2][3] = {};
};

const FetchedCiphers& fetched() {
  static const FetchedCiphers ciphers;
  return ciphers;
}

// EVP takes int lengths; feed very large inputs in chunks of whole blocks.
constexpr std::size_t kMaxChunk = std::size_t{1} << 30;

class OpensslCipher final : public AesCipher {
 public:
  explicit OpensslCipher(Mode mode)
      : AesCipher(mode), enc_(EVP_CIPHER_CTX_new()), dec_(EVP_CIPHER_CTX_new()) {}
  ~OpensslCipher() override {
    EVP_CIPHER_CTX_free(enc_);
    EVP_CIPHER_CTX_free(dec_);
  }

 protected:
  Error schedule_key(Bytes key) override {
    const EVP_CIPHER* cipher = fetched().get(mode(), key.size());
    if (enc_ == nullptr || dec_ == nullptr || cipher == nullptr) return Error::kLibraryFailure;
    if (key.size() == contexts_key_size_) {
      // Same cipher: passing no cipher re-keys the existing provider context
      // instead of freeing and allocating a new one.
      if (EVP_CipherInit_ex2(enc_, nullptr, key.data(), nullptr, 1, nullptr) != 1 ||
          EVP_CipherInit_ex2(dec_, nullptr, key.data(), nullptr, 0, nullptr) != 1) {
        contexts_key_size_ = 0;
        return Error::kLibraryFailure;
      }
      return Error::kNone;
    }
    contexts_key_size_ = 0;
    if (EVP_CipherInit_ex2(enc_, cipher, key.data(), nullptr, 1, nullptr) != 1 ||
        EVP_CipherInit_ex2(dec_, cipher, key.data(), nullptr, 0, nullptr) != 1 ||
        EVP_CIPHER_CTX_set_padding(enc_, 0) != 1 || EVP_CIPHER_CTX_set_padding(dec_, 0) != 1) {
      return Error::kLibraryFailure;
    }
    contexts_key_size_ = key.size();
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(enc_, 1, iv, in, out, blocks);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(dec_, 0, iv, in, out, blocks);
  }

 private:
  static Error run(EVP_CIPHER_CTX* ctx, int encrypting, const std::uint8_t* iv,
                   const std::uint8_t* in, std::uint8_t* out, std::size_t blocks) {
    // Re-initialising with only an IV keeps the key schedule.
    if (iv != nullptr && EVP_CipherInit_ex2(ctx, nullptr, nullptr, iv, encrypting, nullptr) != 1) {
      return Error::kLibraryFailure;
    }
    std::size_t remaining = blocks * kAesBlockSize;
    while (remaining != 0) {
      const std::size_t chunk = remaining < kMaxChunk ? remaining : kMaxChunk;
      int written = 0;
      if (EVP_CipherUpdate(ctx, out, &written, in, static_cast<int>(chunk)) != 1 ||
          static_cast<std::size_t>(written) != chunk) {
        return Error::kLibraryFailure;
      }
      in += chunk;
      out += chunk;
      remaining -= chunk;
    }
    return Error::kNone;
  }

  EVP_CIPHER_CTX* enc_;
  EVP_CIPHER_CTX* dec_;
  std::size_t contexts_key_size_ = 0;  // the key size the contexts' cipher was set up for
};

// OpenSSL's Base64 and hex helpers NUL-terminate their output, one byte past
// the text; the last group is therefore encoded into a scratch buffer so the
// caller's buffer is never overrun.
class OpensslCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    if (length == 0) return Result::success(0);
    const std::size_t head = (length - 1) / 3 * 3;  // leaves 1..3 bytes
    std::size_t written = 0;
    for (std::size_t done = 0; done < head;) {
      const std::size_t chunk = head - done < kMaxChunk / 4 * 3 ? head - done : kMaxChunk / 4 * 3;
      written += static_cast<std::size_t>(EVP_EncodeBlock(
          reinterpret_cast<unsigned char*>(out + written), in + done, static_cast<int>(chunk)));
      done += chunk;
    }
    unsigned char last[5];
    EVP_EncodeBlock(last, in + head, static_cast<int>(length - head));
    std::memcpy(out + written, last, 4);
    return Result::success(written + 4);
  }

  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    // EVP_DecodeBlock accepts surrounding whitespace and non-canonical input
    // and counts padding as output, so validate first and trim to the truth.
    const Result checked = checked_decoded_size(Encoding::kBase64, text);
    if (!checked.ok()) return checked;
    for (std::size_t done = 0; done < text.size();) {
      const std::size_t chunk = text.size() - done < kMaxChunk ? text.size() - done : kMaxChunk;
      if (EVP_DecodeBlock(out + done / 4 * 3,
                          reinterpret_cast<const unsigned char*>(text.data() + done),
                          static_cast<int>(chunk)) < 0) {
        return Result::failure(Error::kBadEncoding);
      }
      done += chunk;
    }
    return checked;
  }

  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    if (length == 0) return Result::success(0);
    // OpenSSL writes uppercase digits; fold to the lowercase every backend
    // emits so outputs compare byte for byte.
    if (length > 1 &&
        OPENSSL_buf2hexstr_ex(out, 2 * length - 1, nullptr, in, length - 1, '\0') != 1) {
      return Result::failure(Error::kLibraryFailure);
    }
    char last[3];
    if (OPENSSL_buf2hexstr_ex(last, sizeof last, nullptr, in + length - 1, 1, '\0') != 1) {
      return Result::failure(Error::kLibraryFailure);
    }
    std::memcpy(out + 2 * length - 2, last, 2);
    for (std::size_t i = 0; i < 2 * length; ++i) {
      if (out[i] >= 'A' && out[i] <= 'F') out[i] = static_cast<char>(out[i] + ('a' - 'A'));
    }
    return Result::success(2 * length);
  }

  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    // OPENSSL_hexstr2buf_ex needs a NUL-terminated string; decode with the
    // per-digit primitive it is built on instead of copying the input.
    if (text.size() % 2 != 0) return Result::failure(Error::kBadEncoding);
    for (std::size_t i = 0; i < text.size() / 2; ++i) {
      const int hi = OPENSSL_hexchar2int(static_cast<unsigned char>(text[2 * i]));
      const int lo = OPENSSL_hexchar2int(static_cast<unsigned char>(text[2 * i + 1]));
      if (hi < 0 || lo < 0) return Result::failure(Error::kBadEncoding);
      out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return Result::success(text.size() / 2);
  }
};

// OpenSSL's MAC API with one reusable HMAC context; PBKDF2 through
// PKCS5_PBKDF2_HMAC with SHA-256 fetched once.
class OpensslKeyDeriver final : public KeyDeriver {
  static constexpr unsigned char kEmptyKey[1] = {0};

 public:
  OpensslKeyDeriver() {
    static EVP_MAC* const hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    ctx_ = hmac != nullptr ? EVP_MAC_CTX_new(hmac) : nullptr;
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_construct_end()};
    if (ctx_ != nullptr && EVP_MAC_CTX_set_params(ctx_, params) != 1) {
      EVP_MAC_CTX_free(ctx_);
      ctx_ = nullptr;
    }
  }
  ~OpensslKeyDeriver() override { EVP_MAC_CTX_free(ctx_); }
  OpensslKeyDeriver(const OpensslKeyDeriver&) = delete;
  OpensslKeyDeriver& operator=(const OpensslKeyDeriver&) = delete;

  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    unsigned char mac[kSha256Size];
    std::size_t length = 0;
    if (ctx_ == nullptr || out.size() > kSha256Size ||
        // A null key would make EVP_MAC_init keep the previous one.
        EVP_MAC_init(ctx_, secret.empty() ? kEmptyKey : secret.data(), secret.size(), nullptr) !=
            1 ||
        EVP_MAC_update(ctx_, message.data(), message.size()) != 1 ||
        EVP_MAC_final(ctx_, mac, &length, sizeof mac) != 1 || length != kSha256Size) {
      return Error::kLibraryFailure;
    }
    std::memcpy(out.data(), mac, out.size());
    return Error::kNone;
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    static const EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (sha256 == nullptr || iterations == 0 ||
        PKCS5_PBKDF2_HMAC(reinterpret_cast<const char*>(password.data()),
                          static_cast<int>(password.size()), salt.data(),
                          static_cast<int>(salt.size()), static_cast<int>(iterations), sha256,
                          static_cast<int>(out.size()), out.data()) != 1) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  EVP_MAC_CTX* ctx_ = nullptr;
};

class OpensslBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    const EVP_CIPHER* cipher = fetched().get(Mode::kCbc, 16);
    const OSSL_PROVIDER* provider = cipher ? EVP_CIPHER_get0_provider(cipher) : nullptr;
    const OpensslAesPath aes = openssl_aes_path();
    std::string path = aes.description;
    if (provider != nullptr) path += "; provider " + std::string(OSSL_PROVIDER_get0_name(provider));
    return {
        .name = "openssl",
        .library = "OpenSSL",
        .version = OpenSSL_version(OPENSSL_VERSION_STRING),
        .code_path = path,
        .codec =
            "OpenSSL EVP_EncodeBlock/EVP_DecodeBlock, OPENSSL_buf2hexstr_ex/OPENSSL_hexchar2int",
        .kdf = "OpenSSL EVP_MAC HMAC-SHA256, PKCS5_PBKDF2_HMAC",
        .register_bits = aes.aesni ? 128u : 0u,
        .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm}};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<OpensslCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return make_openssl_ctr(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return make_openssl_gcm(); }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<OpensslKeyDeriver>();
  }

 private:
  OpensslCodec codec_;
};

std::string openssl_unusable_reason() {
  if (fetched().get(Mode::kCbc, 16) == nullptr) return "EVP_CIPHER_fetch(AES-128-CBC) failed";
  return "";
}

}  // namespace

const BackendEntry& openssl_backend_entry() {
  static const BackendEntry entry{
      "openssl", "OpenSSL 3 EVP (library-chosen AES-NI path)", openssl_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<OpensslBackend>(); },
      "OpenSSL"};
  return entry;
}

}  // namespace cryptobench
