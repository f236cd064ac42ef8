// wolfssl_backend.cc: wolfSSL 5.5's wolfCrypt: wc_AesEcb*/wc_AesCbc* on one
// encryption and one decryption Aes object per cipher, wc_AesCtrEncrypt and
// wc_AesGcmEncrypt/wc_AesGcmDecrypt on one Aes object per CTR or GCM object,
// its Base64 and Base16 codec, and wc_Hmac / wc_PBKDF2.
// options.h first: the structs' layout and the declared API depend on the
// configure options Debian built the library with.
#include <wolfssl/options.h>
// The rest after it.
#include <wolfssl/ssl.h>
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/coding.h>
#include <wolfssl/wolfcrypt/error-crypt.h>
#include <wolfssl/wolfcrypt/hmac.h>
#include <wolfssl/wolfcrypt/pwdbased.h>
#include <wolfssl/wolfcrypt/wc_port.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/registry.h"

namespace cryptobench {
namespace {

// wolfCrypt takes word32 lengths; feed very large inputs in chunks (a
// multiple of 3, 4 and 16, so Base64 groups and AES blocks stay whole).
constexpr std::size_t kMaxChunk = std::size_t{3} << 28;

// wolfCrypt_Init once per process; 0 on success.
int wolfcrypt_init_result() {
  static const int rc = wolfCrypt_Init();
  return rc;
}

class WolfsslCipher final : public AesCipher {
 public:
  explicit WolfsslCipher(Mode mode) : AesCipher(mode) {
    ready_ = wolfcrypt_init_result() == 0 && wc_AesInit(&enc_, nullptr, INVALID_DEVID) == 0 &&
             wc_AesInit(&dec_, nullptr, INVALID_DEVID) == 0;
  }
  ~WolfsslCipher() override {
    wc_AesFree(&enc_);
    wc_AesFree(&dec_);
    // wc_AesFree releases resources but is not documented to clear the key.
    secure_wipe(&enc_, sizeof enc_);
    secure_wipe(&dec_, sizeof dec_);
  }

 protected:
  Error schedule_key(Bytes key) override {
    // wc_AesSetKey re-keys the existing objects; no allocation.
    const auto length = static_cast<word32>(key.size());
    if (!ready_ || wc_AesSetKey(&enc_, key.data(), length, nullptr, AES_ENCRYPTION) != 0 ||
        wc_AesSetKey(&dec_, key.data(), length, nullptr, AES_DECRYPTION) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(&enc_, true, iv, in, out, blocks);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(&dec_, false, iv, in, out, blocks);
  }

 private:
  static Error run(Aes* aes, bool encrypting, const std::uint8_t* iv, const std::uint8_t* in,
                   std::uint8_t* out, std::size_t blocks) {
    // The Aes object carries the CBC chain (aes->reg) across chunks.
    if (iv != nullptr && wc_AesSetIV(aes, iv) != 0) return Error::kLibraryFailure;
    std::size_t remaining = blocks * kAesBlockSize;
    while (remaining != 0) {
      const std::size_t chunk = remaining < kMaxChunk ? remaining : kMaxChunk;
      const auto length = static_cast<word32>(chunk);
      int rc = 0;
      if (iv != nullptr) {
        rc = encrypting ? wc_AesCbcEncrypt(aes, out, in, length)
                        : wc_AesCbcDecrypt(aes, out, in, length);
      } else {
#ifdef HAVE_AES_ECB
        rc = encrypting ? wc_AesEcbEncrypt(aes, out, in, length)
                        : wc_AesEcbDecrypt(aes, out, in, length);
#else
        rc = BAD_FUNC_ARG;  // not reached: ECB is not offered without it
#endif
      }
      if (rc != 0) return Error::kLibraryFailure;
      in += chunk;
      out += chunk;
      remaining -= chunk;
    }
    return Error::kNone;
  }

  Aes enc_{};  // zeroed: freed even if wc_AesInit never ran
  Aes dec_{};
  bool ready_ = false;
};

#ifdef WOLFSSL_AES_COUNTER
// One Aes object keyed once (wc_AesSetKey, the encryption schedule: CTR only
// encrypts counter blocks); wc_AesSetIV per call sets the counter block and
// drops any keystream a previous call left unused (aes->left).
// IncrementAesCounter carries through all 16 bytes: the full 128-bit counter
// (measured across 2^32, 2^64 and 2^128 against OpenSSL).
class WolfsslCtr final : public AesCtr {
 public:
  WolfsslCtr() {
    ready_ = wolfcrypt_init_result() == 0 && wc_AesInit(&aes_, nullptr, INVALID_DEVID) == 0;
  }
  ~WolfsslCtr() override {
    wc_AesFree(&aes_);
    secure_wipe(&aes_, sizeof aes_);  // the schedule and the last keystream block
  }

 protected:
  Error schedule_key(Bytes key) override {
    if (!ready_ || wc_AesSetKey(&aes_, key.data(), static_cast<word32>(key.size()), nullptr,
                                AES_ENCRYPTION) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    if (wc_AesSetIV(&aes_, counter) != 0) return Error::kLibraryFailure;
    // The object carries the counter across chunks (whole blocks: nothing left over).
    for (std::size_t done = 0; done < size;) {
      const std::size_t chunk = size - done < kMaxChunk ? size - done : kMaxChunk;
      if (wc_AesCtrEncrypt(&aes_, out + done, in + done, static_cast<word32>(chunk)) != 0) {
        return Error::kLibraryFailure;
      }
      done += chunk;
    }
    return Error::kNone;
  }

 private:
  Aes aes_{};  // zeroed: freed even if wc_AesInit never ran
  bool ready_ = false;
};
#endif

#ifdef HAVE_AESGCM
// What wolfCrypt's GCM accepts: any nonce length (its GHASH of the IV takes a
// word32 length; measured against libgcrypt from 1 to 69,999 bytes), all
// three key sizes, and tags of WOLFSSL_MIN_AUTH_TAG_SZ to 16 bytes: that
// minimum is 12 (settings.h's default; Debian's options.h does not set it)
// and wc_AesGcmEncrypt refuses shorter tags with BAD_FUNC_ARG (measured: 1 to
// 11 refused). wc_AesGcmDecrypt would check shorter ones, but a tag this
// backend cannot make is not offered.
GcmLimits wolfssl_gcm_limits() {
  return {.min_nonce = 1, .max_nonce = std::size_t{1} << 16, .min_tag = WOLFSSL_MIN_AUTH_TAG_SZ};
}

// One Aes object keyed once by wc_AesGcmSetKey (the AES schedule and the
// GHASH key H with its 4-bit table). A message takes one wc_AesGcmEncrypt or
// wc_AesGcmDecrypt call; those take word32 lengths, so a message or AAD over
// 4 GiB goes through the streaming API (wc_AesGcmInit with no key keeps the
// key, then Update calls in chunks and Final), which Debian's build has
// (WOLFSSL_AESGCM_STREAM). That API refuses nonces over 16 bytes
// (GCM_NONCE_MAX_SZ, measured), so such a huge message with a longer nonce
// fails (kLibraryFailure).
class WolfsslGcm final : public AesGcm {
 public:
  WolfsslGcm() {
    ready_ = wolfcrypt_init_result() == 0 && wc_AesInit(&aes_, nullptr, INVALID_DEVID) == 0;
  }
  ~WolfsslGcm() override {
    wc_AesFree(&aes_);
    secure_wipe(&aes_, sizeof aes_);
  }
  GcmLimits limits() const override { return wolfssl_gcm_limits(); }

 protected:
  Error schedule_key(Bytes key) override {
    if (!ready_ || wc_AesGcmSetKey(&aes_, key.data(), static_cast<word32>(key.size())) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    if (in.size() > kOneShotMax || aad.size() > kOneShotMax) {
      return streamed(nonce, aad, in, out, tag.data(), tag);
    }
    const int rc = wc_AesGcmEncrypt(&aes_, out, in.data(), static_cast<word32>(in.size()),
                                    nonce.data(), static_cast<word32>(nonce.size()), tag.data(),
                                    static_cast<word32>(tag.size()), aad.data(),
                                    static_cast<word32>(aad.size()));
    return rc == 0 ? Error::kNone : Error::kLibraryFailure;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    if (in.size() > kOneShotMax || aad.size() > kOneShotMax) {
      return streamed(nonce, aad, in, out, nullptr, tag);
    }
    // The tag comparison is wolfCrypt's (ConstantCompare).
    const int rc = wc_AesGcmDecrypt(&aes_, out, in.data(), static_cast<word32>(in.size()),
                                    nonce.data(), static_cast<word32>(nonce.size()), tag.data(),
                                    static_cast<word32>(tag.size()), aad.data(),
                                    static_cast<word32>(aad.size()));
    return rc == 0 ? Error::kNone : rc == AES_GCM_AUTH_E ? Error::kBadTag : Error::kLibraryFailure;
  }

 private:
  // The one-shot calls' limit (word32 lengths). Lowered to 0 by hand (with
  // 7- and 37-byte chunks, nonces of at most 16 bytes), the streamed path
  // passes test_counter_modes.
  static constexpr std::size_t kOneShotMax = UINT32_MAX;

  // streamed: the whole message through the streaming API: sealing when
  // `tag_out` is set (Final writes the tag there), else opening (Final
  // compares `tag` in constant time).
  Error streamed(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out, std::uint8_t* tag_out,
                 Bytes tag) {
    const bool sealing = tag_out != nullptr;
    if (wc_AesGcmInit(&aes_, nullptr, 0, nonce.data(), static_cast<word32>(nonce.size())) != 0) {
      return Error::kLibraryFailure;
    }
    const auto update = [&](std::uint8_t* o, const std::uint8_t* i, std::size_t n,
                            const std::uint8_t* a, std::size_t an) {
      return sealing ? wc_AesGcmEncryptUpdate(&aes_, o, i, static_cast<word32>(n), a,
                                              static_cast<word32>(an))
                     : wc_AesGcmDecryptUpdate(&aes_, o, i, static_cast<word32>(n), a,
                                              static_cast<word32>(an));
    };
    for (std::size_t done = 0; done < aad.size();) {
      const std::size_t chunk = aad.size() - done < kMaxChunk ? aad.size() - done : kMaxChunk;
      if (update(nullptr, nullptr, 0, aad.data() + done, chunk) != 0) return Error::kLibraryFailure;
      done += chunk;
    }
    for (std::size_t done = 0; done < in.size();) {
      const std::size_t chunk = in.size() - done < kMaxChunk ? in.size() - done : kMaxChunk;
      if (update(out + done, in.data() + done, chunk, nullptr, 0) != 0) {
        return Error::kLibraryFailure;
      }
      done += chunk;
    }
    if (sealing) {
      return wc_AesGcmEncryptFinal(&aes_, tag_out, static_cast<word32>(tag.size())) == 0
                 ? Error::kNone
                 : Error::kLibraryFailure;
    }
    const int rc = wc_AesGcmDecryptFinal(&aes_, tag.data(), static_cast<word32>(tag.size()));
    return rc == 0 ? Error::kNone : rc == AES_GCM_AUTH_E ? Error::kBadTag : Error::kLibraryFailure;
  }

  Aes aes_{};
  bool ready_ = false;
};
#endif

// wolfCrypt's coding.c: its encoders NUL-terminate only when the buffer has
// room, so exact output sizes keep them inside the caller's buffer; its
// decoders accept line breaks, a 1-digit hex string and non-canonical
// Base64, so input is validated strictly first.
class WolfsslCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    std::size_t written = 0;
    for (std::size_t done = 0; done < length;) {
      const std::size_t chunk = length - done < kMaxChunk ? length - done : kMaxChunk;
      auto size = static_cast<word32>(encoded_size(Encoding::kBase64, chunk));
      const word32 expected = size;
      // The NoNl variant: Base64_Encode inserts a line break every 64 chars.
      if (Base64_Encode_NoNl(in + done, static_cast<word32>(chunk),
                             reinterpret_cast<byte*>(out + written), &size) != 0 ||
          size != expected) {
        return Result::failure(Error::kLibraryFailure);
      }
      written += size;
      done += chunk;
    }
    return Result::success(written);
  }
  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kBase64, text);
    if (!checked.ok()) return checked;
    std::size_t written = 0;
    for (std::size_t done = 0; done < text.size();) {
      const std::size_t chunk = text.size() - done < kMaxChunk ? text.size() - done : kMaxChunk;
      // Base64_Decode wants room for whole groups (3 bytes per 4 chars).
      auto size = static_cast<word32>(chunk / 4 * 3);
      if (Base64_Decode(reinterpret_cast<const byte*>(text.data() + done),
                        static_cast<word32>(chunk), out + written, &size) != 0) {
        return Result::failure(Error::kBadEncoding);
      }
      written += size;
      done += chunk;
    }
    if (written != checked.size) return Result::failure(Error::kLibraryFailure);
    return checked;
  }
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    for (std::size_t done = 0; done < length;) {
      const std::size_t chunk = length - done < kMaxChunk ? length - done : kMaxChunk;
      auto size = static_cast<word32>(2 * chunk);
      if (Base16_Encode(in + done, static_cast<word32>(chunk),
                        reinterpret_cast<byte*>(out + 2 * done), &size) != 0 ||
          size != 2 * chunk) {
        return Result::failure(Error::kLibraryFailure);
      }
      done += chunk;
    }
    // Base16_Encode writes uppercase digits; fold to the lowercase every
    // backend emits.
    for (std::size_t i = 0; i < 2 * length; ++i) {
      if (out[i] >= 'A' && out[i] <= 'F') out[i] = static_cast<char>(out[i] + ('a' - 'A'));
    }
    return Result::success(2 * length);
  }
  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kHex, text);
    if (!checked.ok()) return checked;
    for (std::size_t done = 0; done < text.size();) {
      const std::size_t chunk = text.size() - done < kMaxChunk ? text.size() - done : kMaxChunk;
      auto size = static_cast<word32>(chunk / 2);
      if (Base16_Decode(reinterpret_cast<const byte*>(text.data() + done),
                        static_cast<word32>(chunk), out + done / 2, &size) != 0 ||
          size != chunk / 2) {
        return Result::failure(Error::kBadEncoding);
      }
      done += chunk;
    }
    return checked;
  }
};

// One Hmac object per deriver, re-keyed per call; wc_PBKDF2 keeps its own.
class WolfsslKeyDeriver final : public KeyDeriver {
  static constexpr byte kEmpty[1] = {0};

 public:
  WolfsslKeyDeriver() {
    ready_ = wolfcrypt_init_result() == 0 && wc_HmacInit(&hmac_, nullptr, INVALID_DEVID) == 0;
  }
  ~WolfsslKeyDeriver() override {
    wc_HmacFree(&hmac_);
    secure_wipe(&hmac_, sizeof hmac_);
  }
  WolfsslKeyDeriver(const WolfsslKeyDeriver&) = delete;
  WolfsslKeyDeriver& operator=(const WolfsslKeyDeriver&) = delete;

  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    if (!ready_ || out.empty() || out.size() > kSha256Size || secret.size() > UINT32_MAX ||
        wc_HmacSetKey(&hmac_, WC_SHA256, secret.empty() ? kEmpty : secret.data(),
                      static_cast<word32>(secret.size())) != 0) {
      return Error::kLibraryFailure;
    }
    for (std::size_t done = 0; done < message.size();) {
      const std::size_t chunk =
          message.size() - done < kMaxChunk ? message.size() - done : kMaxChunk;
      if (wc_HmacUpdate(&hmac_, message.data() + done, static_cast<word32>(chunk)) != 0) {
        return Error::kLibraryFailure;
      }
      done += chunk;
    }
    byte mac[kSha256Size];
    if (wc_HmacFinal(&hmac_, mac) != 0) return Error::kLibraryFailure;
    std::memcpy(out.data(), mac, out.size());
    secure_wipe(mac, sizeof mac);
    return Error::kNone;
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    // wc_PBKDF2 takes int lengths and would run 0 iterations as 1.
    if (iterations == 0 || iterations > INT_MAX || out.empty() || out.size() > 64 ||
        password.size() > INT_MAX || salt.size() > INT_MAX || wolfcrypt_init_result() != 0 ||
        wc_PBKDF2(out.data(), password.empty() ? kEmpty : password.data(),
                  static_cast<int>(password.size()), salt.empty() ? kEmpty : salt.data(),
                  static_cast<int>(salt.size()), static_cast<int>(iterations),
                  static_cast<int>(out.size()), WC_SHA256) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  Hmac hmac_{};  // zeroed: freed even if wc_HmacInit never ran
  bool ready_ = false;
};

// The modes this build of wolfCrypt has, by its configure options
// (wolfssl/options.h), and why any other is missing.
struct WolfsslModes {
  std::vector<Mode> modes;
  std::string not_offered;
};

WolfsslModes wolfssl_modes() {
  WolfsslModes m;
  [[maybe_unused]] const auto lacks = [&m](const char* what) {
    m.not_offered += (m.not_offered.empty() ? "" : "; ") + std::string(what);
  };
#ifdef HAVE_AES_ECB
  m.modes.push_back(Mode::kEcb);
#else
  lacks("ECB: this wolfSSL build has no HAVE_AES_ECB (no wc_AesEcbEncrypt)");
#endif
  m.modes.push_back(Mode::kCbc);
#ifdef WOLFSSL_AES_COUNTER
  m.modes.push_back(Mode::kCtr);
#else
  lacks("CTR: this wolfSSL build has no WOLFSSL_AES_COUNTER (no wc_AesCtrEncrypt)");
#endif
#ifdef HAVE_AESGCM
  m.modes.push_back(Mode::kGcm);
#else
  lacks("GCM: this wolfSSL build has no HAVE_AESGCM");
#endif
  return m;
}

class WolfsslBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    WolfsslModes modes = wolfssl_modes();
    return {.name = "wolfssl",
            .library = "wolfSSL",
            .version = wolfSSL_lib_version(),
#ifdef WOLFSSL_AESNI
            .code_path = "AES-NI when CPUID has AES (WOLFSSL_AESNI in wolfssl/options.h)",
#else
            .code_path =
                "table-based C (Debian's build has no WOLFSSL_AESNI: options.h, and no "
                "AESENC in libwolfssl.so); CTR: that C block function per counter block; GCM: "
                "the same AES with GHASH on 4-bit tables in C (GCM_TABLE_4BIT)",
#endif
            .codec =
                "wolfCrypt Base64_Encode_NoNl/Base64_Decode, Base16_Encode (folded to "
                "lowercase)/Base16_Decode",
            .kdf = "wolfCrypt wc_Hmac HMAC-SHA256, wc_PBKDF2",
#ifdef WOLFSSL_AESNI
            .register_bits = 128u,
#else
            .register_bits = 0u,
#endif
            .modes = std::move(modes.modes),
            .not_offered = std::move(modes.not_offered),
            .codec_source = CodecSource::kLibrary};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<WolfsslCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override {
#ifdef WOLFSSL_AES_COUNTER
    return std::make_unique<WolfsslCtr>();
#else
    return nullptr;
#endif
  }
  std::unique_ptr<AesGcm> make_gcm() const override {
#ifdef HAVE_AESGCM
    return std::make_unique<WolfsslGcm>();
#else
    return nullptr;
#endif
  }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<WolfsslKeyDeriver>();
  }

 private:
  WolfsslCodec codec_;
};

std::string wolfssl_unusable_reason() {
  if (const int rc = wolfcrypt_init_result(); rc != 0) {
    return "wolfCrypt_Init failed (" + std::to_string(rc) + ")";
  }
  return "";
}

}  // namespace

const BackendEntry& wolfssl_backend_entry() {
  static const BackendEntry entry{
      "wolfssl", "wolfSSL 5 wolfCrypt (its build's AES: table-based C without WOLFSSL_AESNI)",
      wolfssl_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<WolfsslBackend>(); },
      "wolfSSL"};
  return entry;
}

}  // namespace cryptobench
