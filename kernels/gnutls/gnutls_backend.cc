// gnutls_backend.cc: GnuTLS 3.7's cipher API (gnutls_cipher_init with
// GNUTLS_CIPHER_AES_{128,192,256}_CBC, gnutls_cipher_set_iv,
// gnutls_cipher_{en,de}crypt2), its AEAD API for GCM (gnutls_aead_cipher_*
// with GNUTLS_CIPHER_AES_{128,192,256}_GCM), its Base64/hex helpers,
// gnutls_hmac_fast and gnutls_pbkdf2. GnuTLS has no AES-ECB and no AES-CTR,
// so this backend offers CBC and GCM.
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/cpu_features.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

// GnuTLS initialises itself when loaded; the explicit call (reference
// counted, never undone) is what its manual asks of applications, and the
// only init failure we can report.
int global_init_result() {
  static const int result = gnutls_global_init();
  return result;
}

// gnutls_datum_t sizes are unsigned int: feed huge inputs in chunks (a
// multiple of 3, 4 and 2, so every codec chunk is whole groups).
constexpr std::size_t kMaxChunk = std::size_t{3} << 28;

gnutls_datum_t datum(const void* data, std::size_t size) {
  // GnuTLS only reads input datums; its struct has a non-const pointer.
  return {const_cast<unsigned char*>(static_cast<const unsigned char*>(data)),
          static_cast<unsigned int>(size)};
}

gnutls_cipher_algorithm_t cbc_algorithm(std::size_t key_size) {
  return key_size == 16   ? GNUTLS_CIPHER_AES_128_CBC
         : key_size == 24 ? GNUTLS_CIPHER_AES_192_CBC
                          : GNUTLS_CIPHER_AES_256_CBC;
}

class GnutlsCipher final : public AesCipher {
 public:
  using AesCipher::AesCipher;
  ~GnutlsCipher() override { release(); }

 protected:
  // The public API has no way to re-key a handle: gnutls_cipher_init
  // allocates the handle and its key schedules, so each new key costs a
  // deinit and an init (that allocation is part of what GnuTLS users pay in
  // the per-op key cells). One handle holds an encryption and a decryption
  // context, each scheduled at init.
  Error schedule_key(Bytes key) override {
    release();
    static constexpr unsigned char kZeroIv[kAesBlockSize] = {};
    const gnutls_datum_t key_datum = datum(key.data(), key.size());
    const gnutls_datum_t iv_datum = datum(kZeroIv, sizeof kZeroIv);
    if (gnutls_cipher_init(&handle_, cbc_algorithm(key.size()), &key_datum, &iv_datum) < 0) {
      handle_ = nullptr;
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (!set_iv(iv)) return Error::kLibraryFailure;
    const std::size_t size = blocks * kAesBlockSize;
    // The in-place call is the documented one for in == out.
    const int rc = in == out ? gnutls_cipher_encrypt(handle_, out, size)
                             : gnutls_cipher_encrypt2(handle_, in, size, out, size);
    return rc < 0 ? Error::kLibraryFailure : Error::kNone;
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (!set_iv(iv)) return Error::kLibraryFailure;
    const std::size_t size = blocks * kAesBlockSize;
    const int rc = in == out ? gnutls_cipher_decrypt(handle_, out, size)
                             : gnutls_cipher_decrypt2(handle_, in, size, out, size);
    return rc < 0 ? Error::kLibraryFailure : Error::kNone;
  }

 private:
  bool set_iv(const std::uint8_t* iv) {
    if (handle_ == nullptr || iv == nullptr) return false;
    // gnutls_cipher_set_iv takes a non-const pointer; give it a copy.
    unsigned char chain[kAesBlockSize];
    std::memcpy(chain, iv, sizeof chain);
    gnutls_cipher_set_iv(handle_, chain, sizeof chain);
    return true;
  }
  // gnutls_cipher_deinit wipes the key schedules before freeing them.
  void release() {
    if (handle_ != nullptr) gnutls_cipher_deinit(handle_);
    handle_ = nullptr;
  }

  gnutls_cipher_hd_t handle_ = nullptr;
};

gnutls_cipher_algorithm_t gcm_algorithm(std::size_t key_size) {
  return key_size == 16   ? GNUTLS_CIPHER_AES_128_GCM
         : key_size == 24 ? GNUTLS_CIPHER_AES_192_GCM
                          : GNUTLS_CIPHER_AES_256_GCM;
}

// GCM through the AEAD API: one handle, re-keyed in place with
// gnutls_aead_cipher_set_key while the key size stays (a new size needs a
// handle of the other algorithm). A message is one gnutls_aead_cipher_
// encryptv2/decryptv2 call: those take the tag apart from the text (the
// one-shot gnutls_aead_cipher_encrypt appends it, which `out` has no room
// for) and work in place on the buffer they are given, so a message that is
// not sealed in place is first copied to `out`.
//
// What GnuTLS 3.7.9 accepts, measured: 12-byte nonces only where its x86
// GCM runs (the AES-NI/PCLMUL code refuses other lengths in encryptv2 with
// GNUTLS_E_INVALID_REQUEST; worse, the one-shot gnutls_aead_cipher_encrypt
// returns success with a wrong ciphertext and tag for them; with
// GNUTLS_CPUID_OVERRIDE=0x1, Nettle's GCM takes any length), and
// tags of 1 to 16 bytes (truncations of the full tag, both ways).
GcmLimits gnutls_gcm_limits() { return {.nonce_12_only = true, .min_tag = 4}; }

class GnutlsGcm final : public AesGcm {
 public:
  ~GnutlsGcm() override { release(); }
  GcmLimits limits() const override { return gnutls_gcm_limits(); }

 protected:
  Error schedule_key(Bytes key) override {
    // A new handle for every key: GnuTLS 3.7.9's gnutls_aead_cipher_set_key
    // on an AES-GCM handle of its x86 accelerator keeps the old GHASH key, so
    // every tag after a re-key is wrong (Wycheproof's AES-GCM file caught it:
    // 110 of 203 cases, all after the first key).
    const gnutls_datum_t key_datum = datum(key.data(), key.size());
    release();
    if (gnutls_aead_cipher_init(&handle_, gcm_algorithm(key.size()), &key_datum) < 0) {
      handle_ = nullptr;
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    if (out != in.data() && !in.empty()) std::memcpy(out, in.data(), in.size());
    const giovec_t text = {out, in.size()},
                   auth = {const_cast<std::uint8_t*>(aad.data()), aad.size()};
    std::size_t tag_size = tag.size();
    if (gnutls_aead_cipher_encryptv2(
            handle_, nonce.data(), nonce.size(), aad.empty() ? nullptr : &auth, aad.empty() ? 0 : 1,
            in.empty() ? nullptr : &text, in.empty() ? 0 : 1, tag.data(), &tag_size) < 0 ||
        tag_size != tag.size()) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    if (out != in.data() && !in.empty()) std::memcpy(out, in.data(), in.size());
    const giovec_t text = {out, in.size()},
                   auth = {const_cast<std::uint8_t*>(aad.data()), aad.size()};
    // decryptv2 takes a mutable tag pointer but only reads it; it compares
    // in constant time (gnutls_memcmp) and returns GNUTLS_E_DECRYPTION_FAILED
    // on a mismatch.
    std::uint8_t expected[16];
    std::memcpy(expected, tag.data(), tag.size());
    const int rc = gnutls_aead_cipher_decryptv2(
        handle_, nonce.data(), nonce.size(), aad.empty() ? nullptr : &auth, aad.empty() ? 0 : 1,
        in.empty() ? nullptr : &text, in.empty() ? 0 : 1, expected, tag.size());
    if (rc == GNUTLS_E_DECRYPTION_FAILED) return Error::kBadTag;
    return rc < 0 ? Error::kLibraryFailure : Error::kNone;
  }

 private:
  // gnutls_aead_cipher_deinit wipes the key schedule before freeing it.
  void release() {
    if (handle_ != nullptr) gnutls_aead_cipher_deinit(handle_);
    handle_ = nullptr;
  }

  gnutls_aead_cipher_hd_t handle_ = nullptr;
};

// GnuTLS's Base64 helpers allocate their output (copied out, then freed);
// its decoders accept whitespace, so input is validated strictly first.
// gnutls_hex_encode NUL-terminates, so the last byte goes through a scratch
// buffer to keep the caller's exact-size buffer from being overrun.
class GnutlsCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    std::size_t written = 0;
    for (std::size_t done = 0; done < length;) {
      const std::size_t chunk = length - done < kMaxChunk ? length - done : kMaxChunk;
      const gnutls_datum_t data = datum(in + done, chunk);
      gnutls_datum_t text = {nullptr, 0};
      if (gnutls_base64_encode2(&data, &text) < 0) return Result::failure(Error::kLibraryFailure);
      const bool ok = text.size == (chunk + 2) / 3 * 4;
      if (ok) std::memcpy(out + written, text.data, text.size);
      written += text.size;
      gnutls_free(text.data);
      if (!ok) return Result::failure(Error::kLibraryFailure);
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
      const gnutls_datum_t data = datum(text.data() + done, chunk);
      gnutls_datum_t bytes = {nullptr, 0};
      if (gnutls_base64_decode2(&data, &bytes) < 0) return Result::failure(Error::kBadEncoding);
      const bool ok = written + bytes.size <= checked.size;
      if (ok && bytes.size != 0) std::memcpy(out + written, bytes.data, bytes.size);
      written += bytes.size;
      if (bytes.data != nullptr) gnutls_memset(bytes.data, 0, bytes.size);  // may be key material
      gnutls_free(bytes.data);
      if (!ok) return Result::failure(Error::kLibraryFailure);
      done += chunk;
    }
    if (written != checked.size) return Result::failure(Error::kLibraryFailure);
    return checked;
  }

  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    if (length == 0) return Result::success(0);
    const std::size_t head = length - 1;  // the last byte goes through `last`
    for (std::size_t done = 0; done < head;) {
      const std::size_t chunk = head - done < kMaxChunk ? head - done : kMaxChunk;
      const gnutls_datum_t data = datum(in + done, chunk);
      // Room for the terminator: it lands on the next chunk's first digit
      // (overwritten next) or on the last byte's (written below).
      std::size_t size = 2 * chunk + 1;
      if (gnutls_hex_encode(&data, out + 2 * done, &size) < 0) {
        return Result::failure(Error::kLibraryFailure);
      }
      done += chunk;
    }
    char last[3];
    std::size_t size = sizeof last;
    const gnutls_datum_t data = datum(in + head, 1);
    if (gnutls_hex_encode(&data, last, &size) < 0) return Result::failure(Error::kLibraryFailure);
    std::memcpy(out + 2 * head, last, 2);
    return Result::success(2 * length);
  }

  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kHex, text);
    if (!checked.ok()) return checked;
    for (std::size_t done = 0; done < text.size();) {
      const std::size_t chunk = text.size() - done < kMaxChunk ? text.size() - done : kMaxChunk;
      const gnutls_datum_t data = datum(text.data() + done, chunk);
      std::size_t size = chunk / 2;
      if (gnutls_hex_decode(&data, out + done / 2, &size) < 0 || size != chunk / 2) {
        return Result::failure(Error::kBadEncoding);
      }
      done += chunk;
    }
    return checked;
  }
};

// gnutls_hmac_fast: GnuTLS's one-call HMAC (it sets up a context per call;
// the public API cannot re-key a gnutls_hmac_hd_t). gnutls_pbkdf2: Nettle's
// PBKDF2 underneath, which asserts (aborts) on 0 iterations, so that is
// refused here first.
class GnutlsKeyDeriver final : public KeyDeriver {
 public:
  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    static constexpr unsigned char kEmpty[1] = {0};
    unsigned char mac[kSha256Size];
    if (out.size() > kSha256Size ||
        gnutls_hmac_fast(GNUTLS_MAC_SHA256, secret.empty() ? kEmpty : secret.data(), secret.size(),
                         message.empty() ? kEmpty : message.data(), message.size(), mac) < 0) {
      return Error::kLibraryFailure;
    }
    std::memcpy(out.data(), mac, out.size());
    gnutls_memset(mac, 0, sizeof mac);
    return Error::kNone;
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    // Datum sizes are unsigned int.
    if (iterations == 0 || out.empty() || password.size() > UINT_MAX || salt.size() > UINT_MAX) {
      return Error::kLibraryFailure;
    }
    const gnutls_datum_t key = datum(password.data(), password.size());
    const gnutls_datum_t salt_datum = datum(salt.data(), salt.size());
    if (gnutls_pbkdf2(GNUTLS_MAC_SHA256, &key, &salt_datum, iterations, out.data(), out.size()) <
        0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
};

// Which AES code GnuTLS registered for AES-CBC here. The choice is made at
// load time and not exposed, so this reproduces the documented rule
// (lib/accelerated/x86): on Intel or AMD CPUs, AES-NI assembly when CPUID has
// AES, else the SSSE3 vector-permute AES when it has SSSE3, else Nettle's
// AES; GNUTLS_CPUID_OVERRIDE replaces CPUID (0x1: none, 0x2: AES-NI, 0x4:
// SSSE3, each only if present). GNUTLS_DEBUG_LEVEL=2 logs agree here
// ("Intel AES accelerator was detected").
struct GnutlsAesPath {
  std::string description;
  unsigned register_bits;
};

GnutlsAesPath gnutls_aes_path() {
  const CpuFeatures& cpu = hardware_cpu_features();
  const bool intel_or_amd = cpu.vendor == "GenuineIntel" || cpu.vendor == "AuthenticAMD";
  bool aesni = cpu.aesni;
  bool ssse3 = cpu.ssse3;
  bool pclmul = cpu.pclmulqdq;
  std::string note = "per CPUID";
  if (const char* env = std::getenv("GNUTLS_CPUID_OVERRIDE"); env != nullptr) {
    const long caps = std::strtol(env, nullptr, 0);
    if (caps != 0) {
      aesni = aesni && (caps & 0x1) == 0 && (caps & 0x2) != 0;
      ssse3 = ssse3 && (caps & 0x1) == 0 && (caps & 0x4) != 0;
      pclmul = pclmul && (caps & 0x1) == 0 && (caps & 0x8) != 0;
      note = "per CPUID and GNUTLS_CPUID_OVERRIDE=" + std::string(env);
    }
  }
  const std::string nettle =
      "Nettle's AES (GnuTLS registered no accelerated AES-CBC; Nettle picks its own code, with "
      "AES-NI when the CPU has it), ";
  // GCM is registered by the same rule (lib/accelerated/x86/x86-common.c).
  const std::string nettle_gcm = "; GCM: Nettle's GCM";
  if (!intel_or_amd) {
    return {nettle + "vendor " + cpu.vendor +
                " (GnuTLS's Intel/AMD rule does not apply; VIA/Zhaoxin paths not modelled)" +
                nettle_gcm,
            cpu.aesni ? 128u : 0u};
  }
  if (aesni) {
    return {"GnuTLS aesni_x86 (CRYPTOGAMS AES-NI assembly), " + note +
                (pclmul ? "; GCM: GnuTLS aes-gcm-x86-pclmul (AES-NI and PCLMUL assembly; its "
                          "AVX variant when the CPU also has AVX and MOVBE, which "
                          "GNUTLS_DEBUG_LEVEL=2 reports as \"Intel GCM accelerator (AVX)\")"
                        : "; GCM: GnuTLS aes-gcm-x86-aesni (AES-NI, GHASH without PCLMUL)"),
            128};
  }
  if (ssse3) {
    return {"GnuTLS aes_ssse3 (vpaes: SSSE3 vector permutes, no AES-NI), " + note +
                "; GCM: GnuTLS aes-gcm-x86-ssse3",
            0};
  }
  return {nettle + note + nettle_gcm, cpu.aesni ? 128u : 0u};
}

class GnutlsBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    const GnutlsAesPath aes = gnutls_aes_path();
    const char* version = gnutls_check_version(nullptr);
    return {.name = "gnutls",
            .library = "GnuTLS",
            .version = version != nullptr ? version : "unknown",
            .code_path = aes.description +
                         " (GCM through gnutls_aead_cipher_encryptv2/decryptv2, which work in "
                         "place: a message not sealed or opened in place is copied to its output "
                         "first)",
            .codec = "GnuTLS gnutls_base64_encode2/decode2, gnutls_hex_encode/decode",
            .kdf = "GnuTLS gnutls_hmac_fast HMAC-SHA256, gnutls_pbkdf2",
            .register_bits = aes.register_bits,
            .modes = {Mode::kCbc, Mode::kGcm},
            .not_offered =
                "ECB: GnuTLS's cipher API has no ECB mode; CTR: GnuTLS 3.7 has no "
                "AES-CTR cipher (gnutls_cipher_list() lists none; its only CTR "
                "ciphers are GOST's)"};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<GnutlsCipher>(mode);
  }
  std::unique_ptr<AesGcm> make_gcm() const override { return std::make_unique<GnutlsGcm>(); }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<GnutlsKeyDeriver>();
  }

 private:
  GnutlsCodec codec_;
};

std::string gnutls_unusable_reason() {
  if (const int rc = global_init_result(); rc < 0) {
    return "gnutls_global_init failed: " + std::string(gnutls_strerror(rc));
  }
  return "";
}

}  // namespace

const BackendEntry& gnutls_backend_entry() {
  static const BackendEntry entry{
      "gnutls", "GnuTLS 3.7 cipher and AEAD APIs (CBC, GCM; library-chosen AES-NI path)",
      gnutls_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<GnutlsBackend>(); }, "GnuTLS"};
  return entry;
}

}  // namespace cryptobench
