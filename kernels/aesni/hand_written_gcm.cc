#include "kernels/aesni/hand_written_gcm.h"

#include <cstring>

#include "kernels/pkcs7.h"

namespace cryptobench {

HandWrittenGcm::~HandWrittenGcm() {
  secure_wipe(&schedule_, sizeof schedule_);
  secure_wipe(&key_, sizeof key_);
}

Error HandWrittenGcm::schedule_key(Bytes key) {
  aesni::expand_key(key.data(), key.size(), &schedule_);
  kernels_.init(schedule_, &key_);
  return Error::kNone;
}

Error HandWrittenGcm::seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                                   MutableBytes tag) {
  std::uint8_t full[16];
  kernels_.crypt(schedule_, &key_, true, nonce.data(), nonce.size(), aad.data(), aad.size(),
                 in.data(), out, in.size(), full);
  std::memcpy(tag.data(), full, tag.size());
  return Error::kNone;
}

Error HandWrittenGcm::open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) {
  std::uint8_t expected[16];
  kernels_.crypt(schedule_, &key_, false, nonce.data(), nonce.size(), aad.data(), aad.size(),
                 in.data(), out, in.size(), expected);
  // A mismatch leaves plaintext in `out`; AesGcm::open wipes it.
  const bool ok = constant_time_equal(expected, tag.data(), tag.size());
  secure_wipe(expected, sizeof expected);
  return ok ? Error::kNone : Error::kBadTag;
}

}  // namespace cryptobench
