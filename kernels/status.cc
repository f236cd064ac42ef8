#include "kernels/status.h"

namespace cryptobench {

std::string_view describe(Error error) {
  switch (error) {
    case Error::kNone:
      return "ok";
    case Error::kKeyNotSet:
      return "no key has been set";
    case Error::kKeyLength:
      return "AES key must be 16, 24 or 32 bytes";
    case Error::kIvLength:
      return "CBC needs a 16-byte IV and ECB takes none";
    case Error::kInputLength:
      return "input length is not a positive multiple of the 16-byte block";
    case Error::kOutputTooSmall:
      return "output buffer too small";
    case Error::kBadPadding:
      return "bad PKCS#7 padding";
    case Error::kBadEncoding:
      return "malformed Base64/hex text";
    case Error::kLibraryFailure:
      return "the cipher library reported a failure";
    case Error::kKeyMismatch:
      return "a batch message's key cipher is of another backend, mode or key size";
  }
  return "unknown error";
}

}  // namespace cryptobench
