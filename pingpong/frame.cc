#include "pingpong/frame.h"

#include <stdexcept>
#include <utility>

namespace cryptobench::pingpong {

void make_nonce(const NonceFields& fields, std::uint8_t* nonce) {
  for (int i = 0; i < 4; ++i) {
    nonce[i] = static_cast<std::uint8_t>(fields.connection >> (8 * (3 - i)));
  }
  nonce[4] = static_cast<std::uint8_t>(fields.direction);
  for (int i = 0; i < 7; ++i) {
    nonce[5 + i] = static_cast<std::uint8_t>(fields.counter >> (8 * (6 - i)));
  }
}

bool read_nonce(const std::uint8_t* nonce, NonceFields& fields) {
  if (nonce[4] > 1) return false;
  fields.connection = 0;
  for (int i = 0; i < 4; ++i) fields.connection = (fields.connection << 8) | nonce[i];
  fields.direction = static_cast<Direction>(nonce[4]);
  fields.counter = 0;
  for (int i = 0; i < 7; ++i) fields.counter = (fields.counter << 8) | nonce[5 + i];
  return true;
}

std::string_view describe(OpenStatus status) {
  switch (status) {
    case OpenStatus::kOk:
      return "ok";
    case OpenStatus::kWrongNonce:
      return "has an unexpected nonce (replayed, reordered or of another connection)";
    case OpenStatus::kBadTag:
      return "does not authenticate (GCM tag mismatch)";
    case OpenStatus::kWrongMessage:
      return "authenticates but is not the expected message";
    case OpenStatus::kLibraryError:
      return "could not be opened: the AES-GCM library reported an error";
  }
  return "unknown";
}

FrameCipher::FrameCipher(std::unique_ptr<AesGcm> gcm, const std::uint8_t* key)
    : gcm_(std::move(gcm)) {
  if (!gcm_) throw std::runtime_error("the backend offers no AES-GCM");
  const Error e = gcm_->set_key(Bytes(key, kKeySize));
  if (e != Error::kNone) {
    throw std::runtime_error("AES-128-GCM key refused: " + std::string(cryptobench::describe(e)));
  }
}

bool FrameCipher::seal(const NonceFields& fields, const std::uint8_t* message,
                       std::uint8_t* frame) {
  make_nonce(fields, frame);
  const Result r = gcm_->seal(Bytes(frame, kNonceSize), Bytes(), Bytes(message, kMessageSize),
                              MutableBytes(frame + kNonceSize, kMessageSize),
                              MutableBytes(frame + kNonceSize + kMessageSize, kTagSize));
  return r.ok();
}

OpenStatus FrameCipher::open(const std::uint8_t* frame, const NonceFields& expected,
                             const std::array<std::uint8_t, kMessageSize>& message) {
  std::uint8_t want[kNonceSize];
  make_nonce(expected, want);
  // The nonce is not secret: a plain comparison.
  for (std::size_t i = 0; i < kNonceSize; ++i) {
    if (frame[i] != want[i]) return OpenStatus::kWrongNonce;
  }
  std::uint8_t plain[kMessageSize];
  const Result r = gcm_->open(
      Bytes(frame, kNonceSize), Bytes(), Bytes(frame + kNonceSize, kMessageSize),
      Bytes(frame + kNonceSize + kMessageSize, kTagSize), MutableBytes(plain, kMessageSize));
  if (r.error == Error::kBadTag) return OpenStatus::kBadTag;
  if (!r.ok()) return OpenStatus::kLibraryError;
  for (std::size_t i = 0; i < kMessageSize; ++i) {
    if (plain[i] != message[i]) return OpenStatus::kWrongMessage;
  }
  return OpenStatus::kOk;
}

bool parse_key(std::string_view hex, std::array<std::uint8_t, kKeySize>& key) {
  if (hex.size() != 2 * kKeySize) return false;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < kKeySize; ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    key[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return true;
}

}  // namespace cryptobench::pingpong
