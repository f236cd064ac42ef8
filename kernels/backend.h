// backend.h: what a backend offers: ciphers, its codec, its key derivation,
// and an honest report of the code it actually runs, as prose for people and
// as structured facts for tools.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/aes_cipher.h"
#include "kernels/counter_modes.h"
#include "kernels/key_derivation.h"
#include "kernels/text_codec.h"

namespace cryptobench {

enum class CodecSource { kLibrary, kProject };

struct BackendInfo {
  std::string name;       // registry name, e.g. "openssl"
  std::string library;    // e.g. "OpenSSL"
  std::string version;    // the version the running library reports
  std::string code_path;  // the AES implementation the library chose here
  std::string codec;      // whose Base64/hex it uses
  std::string kdf;        // its library's HMAC-SHA256 and PBKDF2; "" when it has none
  // The facts tools read (written to the JSON context as backend.<name>.*):
  // register_bits: the AES register width of its parallel-mode code (ECB,
  // CBC decryption) here: 128 (AES-NI), 256 or 512 (VAES); 0 when it runs no
  // AES instructions (table-based code).
  unsigned register_bits = 128;
  // ecb_register_bits: ECB's width when it differs (0: register_bits), e.g.
  // a library with a wide CBC-decryption routine and one-block ECB.
  unsigned ecb_register_bits = 0;
  // gcm_register_bits: GCM's width when it differs (0: register_bits), e.g.
  // a plugin whose GCM comes from another library than its block modes.
  unsigned gcm_register_bits = 0;
  // batch_lanes: messages encrypt_batch interleaves; 0 when it encrypts them
  // one after another (the AesCipher default).
  unsigned batch_lanes = 0;
  std::vector<Mode> modes = {Mode::kEcb, Mode::kCbc};  // the modes it offers
  std::string not_offered = {};  // why a mode it lacks is missing ("" when none is)
  CodecSource codec_source = CodecSource::kLibrary;
  // key_sizes: the AES key lengths (bytes) it takes in every mode it offers
  // (GCM's GcmLimits may take fewer); a plugin may claim fewer than all three.
  std::vector<std::size_t> key_sizes = {16, 24, 32};

  bool offers(Mode mode) const;
  bool takes_key(std::size_t key_bytes) const;
  // key_sizes_text: "128/192/256-bit keys".
  std::string key_sizes_text() const;
};

// AesBackend: thread-safe; ciphers it makes are per-thread.
class AesBackend {
 public:
  virtual ~AesBackend() = default;
  virtual BackendInfo info() const = 0;
  // make_cipher: only for a block mode info().modes lists.
  virtual std::unique_ptr<AesCipher> make_cipher(Mode mode) const = 0;
  // make_ctr / make_gcm: when info().modes lists CTR / GCM; nullptr otherwise.
  virtual std::unique_ptr<AesCtr> make_ctr() const { return nullptr; }
  virtual std::unique_ptr<AesGcm> make_gcm() const { return nullptr; }
  virtual const TextCodec& codec() const = 0;
  // key_deriver: the library's own (make_key_deriver), or, for a backend
  // without one, the registry's fallback (see registry.h); nullptr when no
  // compiled-in backend has a KDF.
  std::unique_ptr<KeyDeriver> key_deriver() const;

 protected:
  // make_key_deriver: the library's own KDF; nullptr when it has none.
  virtual std::unique_ptr<KeyDeriver> make_key_deriver() const { return nullptr; }
};

// BackendEntry: one line of the registry. A backend is compiled in when its
// entry is linked, or registered at run time (a plugin, register_backend); it
// is usable when unusable_reason() returns "".
struct BackendEntry {
  const char* name;
  const char* summary;
  std::function<std::string()> unusable_reason;
  std::function<std::unique_ptr<AesBackend>()> open;
  // library: whose code it runs ("OpenSSL", "cryptobench" for the
  // hand-written ones): a backend is verified against another library's.
  const char* library;
  // plugin: the shared library it was loaded from; "" when compiled in.
  std::string plugin = {};
  std::string plugin_sha256 = {};
  std::string plugin_check = {};  // what its self-check ran
};

}  // namespace cryptobench
