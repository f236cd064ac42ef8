// nettle_backend.cc: Nettle 3.8. ECB runs aes{128,192,256}_encrypt/_decrypt
// over whole buffers; CBC encryption Nettle's cbc_aes*_encrypt and CBC
// decryption cbc_decrypt over aes*_decrypt. Each AesCipher keeps its
// encryption and decryption schedules in place and re-keys them.
#include <dlfcn.h>
#include <nettle/aes.h>
#include <nettle/base16.h>
#include <nettle/base64.h>
#include <nettle/cbc.h>
#include <nettle/gcm.h>
#include <nettle/hmac.h>
#include <nettle/pbkdf2.h>
#include <nettle/version.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "kernels/cpu_features.h"
#include "kernels/nettle/nettle_counter_modes.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

// nettle_cipher_func takes the context as const void*; these adapters give
// cbc_decrypt Nettle's AES functions with the exact type it calls.
void decrypt128(const void* ctx, std::size_t length, std::uint8_t* dst, const std::uint8_t* src) {
  aes128_decrypt(static_cast<const aes128_ctx*>(ctx), length, dst, src);
}
void decrypt192(const void* ctx, std::size_t length, std::uint8_t* dst, const std::uint8_t* src) {
  aes192_decrypt(static_cast<const aes192_ctx*>(ctx), length, dst, src);
}
void decrypt256(const void* ctx, std::size_t length, std::uint8_t* dst, const std::uint8_t* src) {
  aes256_decrypt(static_cast<const aes256_ctx*>(ctx), length, dst, src);
}

union AesSchedule {
  aes128_ctx k128;
  aes192_ctx k192;
  aes256_ctx k256;
};

class NettleCipher final : public AesCipher {
 public:
  explicit NettleCipher(Mode mode) : AesCipher(mode) {}
  ~NettleCipher() override {
    secure_wipe(&enc_, sizeof enc_);
    secure_wipe(&dec_, sizeof dec_);
  }

 protected:
  Error schedule_key(Bytes key) override {
    // One key expansion; the decryption schedule is its inversion (what
    // aes*_set_decrypt_key would compute again from the key).
    switch (key.size()) {
      case 16:
        aes128_set_encrypt_key(&enc_.k128, key.data());
        aes128_invert_key(&dec_.k128, &enc_.k128);
        break;
      case 24:
        aes192_set_encrypt_key(&enc_.k192, key.data());
        aes192_invert_key(&dec_.k192, &enc_.k192);
        break;
      case 32:
        aes256_set_encrypt_key(&enc_.k256, key.data());
        aes256_invert_key(&dec_.k256, &enc_.k256);
        break;
      default:
        return Error::kLibraryFailure;
    }
    key_bytes_ = key.size();
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (iv == nullptr) return ecb(true, in, out, blocks * kAesBlockSize);
    Block chain;
    std::memcpy(chain.data(), iv, chain.size());
    return cbc_encrypt_chained(chain.data(), in, out, blocks * kAesBlockSize);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    const std::size_t length = blocks * kAesBlockSize;
    if (iv == nullptr) return ecb(false, in, out, length);
    Block chain;  // cbc_decrypt advances the IV it is given
    std::memcpy(chain.data(), iv, chain.size());
    switch (key_bytes_) {
      case 16:
        cbc_decrypt(&dec_.k128, decrypt128, kAesBlockSize, chain.data(), length, out, in);
        return Error::kNone;
      case 24:
        cbc_decrypt(&dec_.k192, decrypt192, kAesBlockSize, chain.data(), length, out, in);
        return Error::kNone;
      case 32:
        cbc_decrypt(&dec_.k256, decrypt256, kAesBlockSize, chain.data(), length, out, in);
        return Error::kNone;
      default:
        return Error::kLibraryFailure;
    }
  }
  // cbc_aes*_encrypt advances the chaining value, so the padded last block
  // continues the same chain.
  Error encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                           std::size_t blocks, const std::uint8_t* final) override {
    const std::size_t length = blocks * kAesBlockSize;
    if (iv == nullptr) {
      if (blocks != 0) {
        if (const Error e = ecb(true, in, out, length); e != Error::kNone) return e;
      }
      return ecb(true, final, out + length, kAesBlockSize);
    }
    Block chain;
    std::memcpy(chain.data(), iv, chain.size());
    if (blocks != 0) {
      if (const Error e = cbc_encrypt_chained(chain.data(), in, out, length); e != Error::kNone) {
        return e;
      }
    }
    return cbc_encrypt_chained(chain.data(), final, out + length, kAesBlockSize);
  }

 private:
  Error ecb(bool encrypting, const std::uint8_t* in, std::uint8_t* out, std::size_t length) {
    switch (key_bytes_) {
      case 16:
        encrypting ? aes128_encrypt(&enc_.k128, length, out, in)
                   : aes128_decrypt(&dec_.k128, length, out, in);
        return Error::kNone;
      case 24:
        encrypting ? aes192_encrypt(&enc_.k192, length, out, in)
                   : aes192_decrypt(&dec_.k192, length, out, in);
        return Error::kNone;
      case 32:
        encrypting ? aes256_encrypt(&enc_.k256, length, out, in)
                   : aes256_decrypt(&dec_.k256, length, out, in);
        return Error::kNone;
      default:
        return Error::kLibraryFailure;
    }
  }
  Error cbc_encrypt_chained(std::uint8_t* chain, const std::uint8_t* in, std::uint8_t* out,
                            std::size_t length) {
    switch (key_bytes_) {
      case 16:
        cbc_aes128_encrypt(&enc_.k128, chain, length, out, in);
        return Error::kNone;
      case 24:
        cbc_aes192_encrypt(&enc_.k192, chain, length, out, in);
        return Error::kNone;
      case 32:
        cbc_aes256_encrypt(&enc_.k256, chain, length, out, in);
        return Error::kNone;
      default:
        return Error::kLibraryFailure;
    }
  }

  AesSchedule enc_{};
  AesSchedule dec_{};
  std::size_t key_bytes_ = 0;
};

// Nettle's decoders skip whitespace and accept some non-canonical input, so
// the text is validated strictly first; its base16 encoder already writes
// lowercase digits.
class NettleCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    base64_encode_raw(out, length, in);  // pads the last group
    return Result::success(BASE64_ENCODE_RAW_LENGTH(length));
  }
  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kBase64, text);
    if (!checked.ok()) return checked;
    base64_decode_ctx ctx;
    base64_decode_init(&ctx);
    std::size_t written = 0;
    if (base64_decode_update(&ctx, &written, out, text.size(), text.data()) != 1 ||
        base64_decode_final(&ctx) != 1) {
      return Result::failure(Error::kBadEncoding);
    }
    if (written != checked.size) return Result::failure(Error::kLibraryFailure);
    return checked;
  }
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    base16_encode_update(out, length, in);
    return Result::success(BASE16_ENCODE_LENGTH(length));
  }
  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    const Result checked = checked_decoded_size(Encoding::kHex, text);
    if (!checked.ok()) return checked;
    base16_decode_ctx ctx;
    base16_decode_init(&ctx);
    std::size_t written = 0;
    if (base16_decode_update(&ctx, &written, out, text.size(), text.data()) != 1 ||
        base16_decode_final(&ctx) != 1) {
      return Result::failure(Error::kBadEncoding);
    }
    if (written != checked.size) return Result::failure(Error::kLibraryFailure);
    return checked;
  }
};

class NettleKeyDeriver final : public KeyDeriver {
  // Nettle copies keys and salts with memcpy, which wants a valid pointer
  // even for length 0.
  static constexpr std::uint8_t kEmpty[1] = {0};

 public:
  ~NettleKeyDeriver() override { secure_wipe(&hmac_, sizeof hmac_); }

  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    if (out.size() > kSha256Size) return Error::kLibraryFailure;
    hmac_sha256_set_key(&hmac_, secret.size(), secret.empty() ? kEmpty : secret.data());
    hmac_sha256_update(&hmac_, message.size(), message.empty() ? kEmpty : message.data());
    hmac_sha256_digest(&hmac_, out.size(), out.data());  // truncates to out.size()
    return Error::kNone;
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    // Nettle asserts iterations > 0; refuse 0 before it can abort.
    if (iterations == 0 || out.empty()) return Error::kLibraryFailure;
    pbkdf2_hmac_sha256(password.size(), password.empty() ? kEmpty : password.data(), iterations,
                       salt.size(), salt.empty() ? kEmpty : salt.data(), out.size(), out.data());
    return Error::kNone;
  }

 private:
  hmac_sha256_ctx hmac_{};
};

// Which AES functions Nettle's fat dispatch chose. Debian builds Nettle
// "fat": each public AES entry point (nettle_aes128_encrypt, ...) is a
// `jmp *slot(%rip)` through a pointer that its load-time constructor
// fat_init sets to the _aesni or _c variant (rule: CPUID.1:ECX.AES, or the
// NETTLE_FAT_OVERRIDE list). Both variants are exported
// (NETTLE_INTERNAL), so the pointer's target can be named exactly.
enum class Chosen { kAesni, kC, kUnknown };

// dispatch_target: where the fat entry point `entry_name` jumps; nullptr
// when it is not in `lib`.
const void* dispatch_target(void* lib, const char* entry_name) {
  auto* entry = static_cast<const std::uint8_t*>(dlsym(lib, entry_name));
  if (entry == nullptr) return nullptr;
  const void* target = entry;  // an IFUNC build resolves to the variant itself
  if (entry[0] == 0xff && entry[1] == 0x25) {
    std::int32_t displacement;
    std::memcpy(&displacement, entry + 2, sizeof displacement);
    void* slot_value;
    std::memcpy(&slot_value, entry + 6 + displacement, sizeof slot_value);
    target = slot_value;
  }
  return target;
}

Chosen chosen_variant(void* lib, const char* entry_name, const std::string& variant_base) {
  const void* target = dispatch_target(lib, entry_name);
  void* aesni = dlsym(lib, (variant_base + "_aesni").c_str());
  void* c = dlsym(lib, (variant_base + "_c").c_str());
  if (target == nullptr || aesni == nullptr || c == nullptr) return Chosen::kUnknown;
  if (target == aesni) return Chosen::kAesni;
  if (target == c) return Chosen::kC;
  return Chosen::kUnknown;
}

// ghash_variant: GCM's GHASH as Nettle 3.8's fat dispatch chose it: the
// internal _nettle_ghash_update jumps to its _pclmul or _table variant.
std::string ghash_variant(void* lib) {
  const void* target = dispatch_target(lib, "_nettle_ghash_update");
  void* pclmul = dlsym(lib, "_nettle_ghash_update_pclmul");
  void* table = dlsym(lib, "_nettle_ghash_update_table");
  if (target != nullptr && target == pclmul) return "PCLMULQDQ (_nettle_ghash_update_pclmul)";
  if (target != nullptr && target == table) return "table-based C (_nettle_ghash_update_table)";
  return "unknown (its dispatch could not be read here)";
}

struct NettleAesPath {
  std::string description;
  bool aesni;
  std::string ghash;  // what GCM's GHASH runs
};

// Nettle's own rule, for when the dispatch cannot be read.
bool nettle_rule_says_aesni(std::string& why) {
  if (const char* env = std::getenv("NETTLE_FAT_OVERRIDE"); env != nullptr) {
    why = "NETTLE_FAT_OVERRIDE=" + std::string(env);
    // A comma-separated list of features; "aesni" selects the AES-NI code.
    for (std::string_view rest = env;;) {
      const std::size_t comma = rest.find(',');
      if (rest.substr(0, comma) == "aesni") return true;
      if (comma == std::string_view::npos) return false;
      rest.remove_prefix(comma + 1);
    }
  }
  why = "CPUID.1:ECX.AES";
  return hardware_cpu_features().aesni;
}

NettleAesPath nettle_aes_path() {
  // Run the dispatchers once, so a build that selects on first call has.
  aes128_ctx probe;
  const std::uint8_t zero_key[16] = {};
  std::uint8_t block[16] = {};
  aes128_set_encrypt_key(&probe, zero_key);
  aes128_encrypt(&probe, sizeof block, block, block);
  secure_wipe(&probe, sizeof probe);
  gcm_aes128_ctx gcm_probe;  // and GHASH's
  gcm_aes128_set_key(&gcm_probe, zero_key);
  gcm_aes128_set_iv(&gcm_probe, GCM_IV_SIZE, block);
  gcm_aes128_update(&gcm_probe, sizeof block, block);
  gcm_aes128_digest(&gcm_probe, sizeof block, block);
  secure_wipe(&gcm_probe, sizeof gcm_probe);

  Dl_info info{};
  void* lib = nullptr;
  if (dladdr(reinterpret_cast<void*>(&nettle_aes128_encrypt), &info) != 0 &&
      info.dli_fname != nullptr) {
    lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }
  Chosen enc = Chosen::kUnknown, dec = Chosen::kUnknown, cbc = Chosen::kUnknown;
  std::string ghash = "unknown (its dispatch could not be read here)";
  if (lib != nullptr) {
    ghash = ghash_variant(lib);
    enc = chosen_variant(lib, "nettle_aes128_encrypt", "_nettle_aes128_encrypt");
    dec = chosen_variant(lib, "nettle_aes128_decrypt", "_nettle_aes128_decrypt");
    cbc = chosen_variant(lib, "nettle_cbc_aes128_encrypt", "_nettle_cbc_aes128_encrypt");
    dlclose(lib);
  }
  constexpr const char* kAesniText =
      "AES-NI (128-bit; ECB and CBC decryption 2 blocks interleaved, CBC encryption serial; "
      "Nettle 3.8 has no VAES code)";
  constexpr const char* kCText = "C tables (no AES instructions)";
  if (enc == dec && enc == cbc && enc != Chosen::kUnknown) {
    const bool aesni = enc == Chosen::kAesni;
    return {std::string(aesni ? kAesniText : kCText) +
                ", read at run time from Nettle's fat dispatch: nettle_aes128_encrypt, "
                "_decrypt and cbc_aes128_encrypt jump to the exported _nettle_*_" +
                (aesni ? "aesni" : "c") + " functions",
            aesni, ghash};
  }
  std::string why;
  const bool aesni = nettle_rule_says_aesni(why);
  return {std::string(aesni ? kAesniText : kCText) + ", per Nettle's fat rule (" + why +
              "); its dispatch pointers could not be read here",
          aesni, ghash};
}

const NettleAesPath& nettle_path() {
  static const NettleAesPath path = nettle_aes_path();
  return path;
}

class NettleBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    const NettleAesPath& path = nettle_path();
    return {.name = "nettle",
            .library = "Nettle",
            // The library reports major.minor only.
            .version = std::to_string(nettle_version_major()) + "." +
                       std::to_string(nettle_version_minor()),
            .code_path = path.description +
                         "; CTR: ctr_crypt over aes*_encrypt (counter blocks filled, then "
                         "encrypted in bulk); GCM: gcm_aes*, the same counter code, GHASH " +
                         path.ghash,
            .codec =
                "Nettle base64_encode_raw/base64_decode_update, "
                "base16_encode_update/base16_decode_update",
            .kdf = "Nettle hmac_sha256_set_key/update/digest, pbkdf2_hmac_sha256",
            .register_bits = path.aesni ? 128u : 0u,
            .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm}};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<NettleCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return make_nettle_ctr(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return make_nettle_gcm(); }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<NettleKeyDeriver>();
  }

 private:
  NettleCodec codec_;
};

}  // namespace

const BackendEntry& nettle_backend_entry() {
  static const BackendEntry entry{
      "nettle", "Nettle 3.8 (fat build, library-chosen AES-NI path)",
      []() { return std::string(); },
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<NettleBackend>(); }, "Nettle"};
  return entry;
}

}  // namespace cryptobench
