// gcrypt_backend.cc: libgcrypt 1.10 through gcry_cipher_*. Each AesCipher
// keeps one handle per AES key size (the algorithm is fixed when a handle is
// opened) and re-keys it with gcry_cipher_setkey; CBC sets the IV per call.
#include <gcrypt.h>

#include <array>
#include <cstring>
#include <string>

#include "kernels/gcrypt/gcrypt_counter_modes.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

// Library initialisation, once per process: libgcrypt requires
// gcry_check_version before any other call, and INITIALIZATION_FINISHED
// before use. Secure memory is disabled: the benchmark wants no mlock'ed
// pool (and no warnings about it); contexts are still wiped when closed.
struct GcryptInit {
  std::string failure;  // "" when the library is ready
  std::string hwflist;  // what libgcrypt says it detected, e.g. "intel-aesni:intel-avx2:"
};

const GcryptInit& gcrypt_init() {
  static const GcryptInit init = [] {
    GcryptInit result;
    if (gcry_check_version(GCRYPT_VERSION) == nullptr) {
      result.failure = std::string("libgcrypt is older than the headers (") + GCRYPT_VERSION +
                       ", running " + gcry_check_version(nullptr) + ")";
      return result;
    }
    // Another part of the process may already have finished the setup.
    if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P) == 0) {
      if (gcry_control(GCRYCTL_DISABLE_SECMEM, 0) != 0 ||
          gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0) != 0) {
        result.failure = "libgcrypt initialisation (GCRYCTL_INITIALIZATION_FINISHED) failed";
        return result;
      }
    }
    if (char* config = gcry_get_config(0, "hwflist"); config != nullptr) {
      result.hwflist = config;
      gcry_free(config);
    }
    // "hwflist:a:b:" -> "a:b:"
    if (result.hwflist.rfind("hwflist:", 0) == 0) result.hwflist.erase(0, 8);
    while (!result.hwflist.empty() &&
           (result.hwflist.back() == '\n' || result.hwflist.back() == ':')) {
      result.hwflist.pop_back();
    }
    return result;
  }();
  return init;
}

bool has_hwf(const std::string& list, const std::string& flag) {
  return (":" + list + ":").find(":" + flag + ":") != std::string::npos;
}

constexpr int kAlgorithms[3] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};

class GcryptCipher final : public AesCipher {
 public:
  explicit GcryptCipher(Mode mode) : AesCipher(mode) {}
  ~GcryptCipher() override {
    // gcry_cipher_close wipes the key schedule before freeing it.
    for (gcry_cipher_hd_t h : handles_) gcry_cipher_close(h);
  }

 protected:
  Error schedule_key(Bytes key) override {
    current_ = nullptr;
    const std::size_t index = (key.size() - 16) / 8;
    // A handle of another key size would keep the previous key's schedule.
    for (std::size_t k = 0; k < 3; ++k) {
      if (k != index && handles_[k] != nullptr) {
        gcry_cipher_close(handles_[k]);
        handles_[k] = nullptr;
      }
    }
    gcry_cipher_hd_t& h = handles_[index];
    if (h == nullptr) {
      const int gmode = mode() == Mode::kCbc ? GCRY_CIPHER_MODE_CBC : GCRY_CIPHER_MODE_ECB;
      if (gcry_cipher_open(&h, kAlgorithms[(key.size() - 16) / 8], gmode, 0) != 0) {
        h = nullptr;
        return Error::kLibraryFailure;
      }
    }
    if (gcry_cipher_setkey(h, key.data(), key.size()) != 0) return Error::kLibraryFailure;
    current_ = h;
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (!set_iv(iv)) return Error::kLibraryFailure;
    return run(true, in, out, blocks * kAesBlockSize);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (!set_iv(iv)) return Error::kLibraryFailure;
    return run(false, in, out, blocks * kAesBlockSize);
  }
  // The handle carries the CBC chain, so the padded last block follows the
  // body without setting the IV again.
  Error encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                           std::size_t blocks, const std::uint8_t* final) override {
    if (!set_iv(iv)) return Error::kLibraryFailure;
    if (blocks != 0) {
      if (const Error e = run(true, in, out, blocks * kAesBlockSize); e != Error::kNone) return e;
    }
    return run(true, final, out + blocks * kAesBlockSize, kAesBlockSize);
  }

 private:
  bool set_iv(const std::uint8_t* iv) {
    if (current_ == nullptr) return false;
    return iv == nullptr || gcry_cipher_setiv(current_, iv, kAesBlockSize) == 0;
  }
  // gcry_cipher_* take size_t lengths; in place is in == out.
  Error run(bool encrypting, const std::uint8_t* in, std::uint8_t* out, std::size_t length) {
    const gcry_error_t err = encrypting ? gcry_cipher_encrypt(current_, out, length, in, length)
                                        : gcry_cipher_decrypt(current_, out, length, in, length);
    return err == 0 ? Error::kNone : Error::kLibraryFailure;
  }

  std::array<gcry_cipher_hd_t, 3> handles_ = {};  // by key size 16/24/32
  gcry_cipher_hd_t current_ = nullptr;            // the keyed one
};

// libgcrypt's HMAC is a gcry_md handle opened with GCRY_MD_FLAG_HMAC; one is
// kept per deriver and re-keyed per call. PBKDF2 is gcry_kdf_derive.
class GcryptKeyDeriver final : public KeyDeriver {
  // libgcrypt rejects a null key or passphrase pointer even with length 0.
  static constexpr std::uint8_t kEmpty[1] = {0};

 public:
  GcryptKeyDeriver() {
    if (gcry_md_open(&hmac_, GCRY_MD_SHA256, GCRY_MD_FLAG_HMAC) != 0) hmac_ = nullptr;
  }
  ~GcryptKeyDeriver() override {
    gcry_md_close(hmac_);  // wipes the keyed state
  }
  GcryptKeyDeriver(const GcryptKeyDeriver&) = delete;
  GcryptKeyDeriver& operator=(const GcryptKeyDeriver&) = delete;

  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    if (hmac_ == nullptr || out.size() > kSha256Size) return Error::kLibraryFailure;
    // gcry_md_setkey also resets the handle.
    if (gcry_md_setkey(hmac_, secret.empty() ? kEmpty : secret.data(), secret.size()) != 0) {
      return Error::kLibraryFailure;
    }
    gcry_md_write(hmac_, message.data(), message.size());
    const unsigned char* mac = gcry_md_read(hmac_, GCRY_MD_SHA256);
    if (mac == nullptr) return Error::kLibraryFailure;
    std::memcpy(out.data(), mac, out.size());
    gcry_md_reset(hmac_);
    return Error::kNone;
  }

  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    if (iterations == 0 || out.empty()) return Error::kLibraryFailure;
    const std::uint8_t* pass = password.empty() ? kEmpty : password.data();
    if (salt.empty()) return pbkdf2_empty_salt(pass, password.size(), iterations, out);
    return gcry_kdf_derive(pass, password.size(), GCRY_KDF_PBKDF2, GCRY_MD_SHA256, salt.data(),
                           salt.size(), iterations, out.size(), out.data()) == 0
               ? Error::kNone
               : Error::kLibraryFailure;
  }

 private:
  // gcry_kdf_derive refuses an empty salt (GPG_ERR_INV_VALUE), which RFC
  // 8018 allows; that case runs RFC 8018's loop over libgcrypt's HMAC.
  Error pbkdf2_empty_salt(const std::uint8_t* password, std::size_t password_size,
                          unsigned iterations, MutableBytes out) {
    if (hmac_ == nullptr || gcry_md_setkey(hmac_, password, password_size) != 0) {
      return Error::kLibraryFailure;
    }
    std::uint8_t u[kSha256Size];
    std::uint8_t t[kSha256Size];
    Error result = Error::kNone;
    std::size_t done = 0;
    for (std::uint32_t index = 1; done < out.size(); ++index) {
      const std::uint8_t counter[4] = {
          static_cast<std::uint8_t>(index >> 24), static_cast<std::uint8_t>(index >> 16),
          static_cast<std::uint8_t>(index >> 8), static_cast<std::uint8_t>(index)};
      gcry_md_reset(hmac_);
      gcry_md_write(hmac_, counter, sizeof counter);
      for (unsigned i = 0; i < iterations; ++i) {
        const unsigned char* mac = gcry_md_read(hmac_, GCRY_MD_SHA256);
        if (mac == nullptr) {
          result = Error::kLibraryFailure;
          break;
        }
        std::memcpy(u, mac, sizeof u);
        if (i == 0) {
          std::memcpy(t, u, sizeof t);
        } else {
          for (std::size_t j = 0; j < sizeof t; ++j) t[j] ^= u[j];
        }
        gcry_md_reset(hmac_);
        gcry_md_write(hmac_, u, sizeof u);
      }
      if (result != Error::kNone) break;
      const std::size_t take = out.size() - done < sizeof t ? out.size() - done : sizeof t;
      std::memcpy(out.data() + done, t, take);
      done += take;
    }
    gcry_md_reset(hmac_);
    secure_wipe(u, sizeof u);
    secure_wipe(t, sizeof t);
    return result;
  }

  gcry_md_hd_t hmac_ = nullptr;
};

class GcryptBackend final : public AesBackend {
 public:
  // Opening the backend initialises libgcrypt, whoever asked first.
  GcryptBackend() { (void)gcrypt_init(); }
  BackendInfo info() const override {
    const std::string& hwf = gcrypt_init().hwflist;
    const bool aesni = has_hwf(hwf, "intel-aesni");
    // libgcrypt 1.10 rijndael.c: with AES-NI, CBC decryption (and CTR, CFB
    // decryption, OCB, XTS) switches to the VAES/AVX2 bulk routine when the
    // hwflist has both intel-vaes-vpclmul and intel-avx2.
    const bool vaes = aesni && has_hwf(hwf, "intel-vaes-vpclmul") && has_hwf(hwf, "intel-avx2");
    std::string path;
    unsigned bits = 0;
    if (vaes) {
      path =
          "CBC decryption: VAES/AVX2 bulk routine (256-bit ymm, up to 16 blocks per pass); "
          "CBC encryption: AES-NI, one block after another; ECB: AES-NI one block per call "
          "(128-bit: libgcrypt 1.10 has no ECB bulk routine)";
      bits = 256;
    } else if (aesni) {
      path =
          "AES-NI (128-bit): CBC decryption interleaved, CBC encryption serial, ECB one block "
          "per call";
      bits = 128;
    } else if (has_hwf(hwf, "intel-ssse3")) {
      path = "SSSE3 vector-permute AES (no AES instructions)";
    } else {
      path = "table-based AES (no AES instructions)";
    }
    // CTR runs rijndael.c's ctr_enc bulk routine; GCM the same routine (its
    // cipher-gcm.c splits where the 32-bit counter wraps: 1.10 has no AES
    // GCM bulk routine) and GHASH chosen by cipher-gcm.c setupM.
    const std::string ctr = vaes    ? "VAES/AVX2 ctr_enc bulk routine (256-bit ymm)"
                            : aesni ? "AES-NI ctr_enc bulk routine (128-bit)"
                            : has_hwf(hwf, "intel-ssse3") ? "SSSE3 ctr_enc bulk routine"
                                                          : "table-based _gcry_aes_ctr_enc";
    path += "; CTR: " + ctr + "; GCM: counter on " + ctr + ", GHASH " +
            (has_hwf(hwf, "intel-pclmul") ? "PCLMULQDQ (intel-pclmul)" : "table-based C");
    path += "; per libgcrypt's own hwflist (gcry_get_config): " +
            (hwf.empty() ? std::string("empty") : hwf) +
            ", and libgcrypt 1.10's rules in cipher/rijndael.c do_setkey and cipher/cipher-gcm.c "
            "setupM";
    return {.name = "gcrypt",
            .library = "libgcrypt",
            .version = gcry_check_version(nullptr),
            .code_path = path,
            .codec = "cryptobench codec (the library has none)",
            .kdf =
                "libgcrypt gcry_md HMAC-SHA256, gcry_kdf_derive(GCRY_KDF_PBKDF2) (an empty salt, "
                "which gcry_kdf_derive refuses, runs RFC 8018's loop over gcry_md HMAC)",
            .register_bits = bits,
            .ecb_register_bits = bits == 256 ? 128u : 0u,
            .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm},
            .codec_source = CodecSource::kProject};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<GcryptCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return make_gcrypt_ctr(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return make_gcrypt_gcm(); }
  const TextCodec& codec() const override { return project_codec(); }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<GcryptKeyDeriver>();
  }
};

}  // namespace

const BackendEntry& gcrypt_backend_entry() {
  static const BackendEntry entry{
      "gcrypt", "libgcrypt 1.10 gcry_cipher (library-chosen AES-NI/VAES path)",
      []() { return gcrypt_init().failure; },
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<GcryptBackend>(); },
      "libgcrypt"};
  return entry;
}

}  // namespace cryptobench
