// backend.h: what a backend offers: ciphers, its codec, and an honest report
// of the code it actually runs.
#pragma once

#include <memory>
#include <string>

#include "kernels/aes_cipher.h"
#include "kernels/key_derivation.h"
#include "kernels/text_codec.h"

namespace cryptobench {

struct BackendInfo {
  std::string name;       // registry name, e.g. "openssl"
  std::string library;    // e.g. "OpenSSL"
  std::string version;    // the version the running library reports
  std::string code_path;  // the AES implementation the library chose here
  std::string codec;      // whose Base64/hex it uses
  std::string kdf;        // whose HMAC-SHA256 and PBKDF2 it uses
};

// AesBackend: thread-safe; ciphers it makes are per-thread.
class AesBackend {
 public:
  virtual ~AesBackend() = default;
  virtual BackendInfo info() const = 0;
  virtual std::unique_ptr<AesCipher> make_cipher(Mode mode) const = 0;
  virtual const TextCodec& codec() const = 0;
  virtual std::unique_ptr<KeyDeriver> make_key_deriver() const = 0;
};

// library_key_deriver: for backends without a KDF of their own (the
// hand-written one): the first library compiled in (OpenSSL, Crypto++,
// Botan), and its name in `*library`; nullptr when none is.
std::unique_ptr<KeyDeriver> library_key_deriver(std::string* library);

// BackendEntry: one line of the registry. A backend is compiled in when its
// entry is linked; it is usable when unusable_reason() returns "".
struct BackendEntry {
  const char* name;
  const char* summary;
  std::string (*unusable_reason)();
  std::unique_ptr<AesBackend> (*open)();
};

}  // namespace cryptobench
