// frame.h: the wire format of seed 001's ping-pong, plain and sealed.
//
// Plain: the client writes the 4 bytes "Ping", the server answers "Pong".
// Sealed (AES-128-GCM): each message travels as one 32-byte frame
//
//   nonce (12 bytes) | ciphertext (4 bytes) | tag (16 bytes)
//
// with no additional authenticated data. The nonce is derived, never random:
//
//   connection id (4 bytes, big-endian) | direction (1 byte: 0 ping, 1 pong) |
//   counter (7 bytes, big-endian: the ping's number on its connection, from 0)
//
// A client numbers its connections 0..N-1 and its pings on each from 0; the
// server answers ping k of connection c with the nonce (c, pong, k). Under one
// key (a fresh one per run) a nonce therefore never repeats, as long as each
// side checks what it receives: the server accepts each connection id once
// and each connection's counters only in order, the client accepts a pong
// only with the nonce of the ping it answers. The Go and Java peers speak
// exactly this format.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kernels/counter_modes.h"

namespace cryptobench::pingpong {

inline constexpr std::size_t kMessageSize = 4;
inline constexpr std::array<std::uint8_t, kMessageSize> kPingMessage = {'P', 'i', 'n', 'g'};
inline constexpr std::array<std::uint8_t, kMessageSize> kPongMessage = {'P', 'o', 'n', 'g'};
inline constexpr std::size_t kKeySize = 16;  // AES-128-GCM
inline constexpr std::size_t kNonceSize = 12;
inline constexpr std::size_t kTagSize = 16;
inline constexpr std::size_t kSealedFrameSize = kNonceSize + kMessageSize + kTagSize;  // 32
inline constexpr std::uint64_t kMaxCounter = (std::uint64_t{1} << 56) - 1;

enum class Direction : std::uint8_t { kPing = 0, kPong = 1 };

struct NonceFields {
  std::uint32_t connection = 0;
  Direction direction = Direction::kPing;
  std::uint64_t counter = 0;
};

// make_nonce / read_nonce: the layout above. read_nonce returns false for a
// direction byte other than 0 or 1.
void make_nonce(const NonceFields& fields, std::uint8_t* nonce);
bool read_nonce(const std::uint8_t* nonce, NonceFields& fields);

// OpenStatus: why a frame was refused (kOk: it was accepted).
enum class OpenStatus {
  kOk,
  kWrongNonce,    // not the nonce expected here (direction, connection or counter)
  kBadTag,        // the tag does not authenticate the frame
  kWrongMessage,  // authentic, but not the expected "Ping" / "Pong"
  kLibraryError,  // the backend reported another error
};
std::string_view describe(OpenStatus status);

// FrameCipher: seals and opens frames with one AES-128-GCM object of a
// backend (kernels/counter_modes.h). Not thread-safe: one per thread.
class FrameCipher {
 public:
  // key: kKeySize bytes. Throws std::runtime_error naming the backend when
  // it refuses the key.
  FrameCipher(std::unique_ptr<AesGcm> gcm, const std::uint8_t* key);

  // seal: `message` (kMessageSize bytes) under the nonce `fields` into
  // `frame` (kSealedFrameSize bytes). Returns false when the library fails.
  bool seal(const NonceFields& fields, const std::uint8_t* message, std::uint8_t* frame);

  // open: accepts `frame` only when its nonce is `expected`, its tag
  // authenticates it, and its plaintext is `message`. On any refusal the
  // plaintext is not used.
  OpenStatus open(const std::uint8_t* frame, const NonceFields& expected,
                  const std::array<std::uint8_t, kMessageSize>& message);

 private:
  std::unique_ptr<AesGcm> gcm_;
};

// parse_key: 32 hex digits to kKeySize bytes; false when malformed.
bool parse_key(std::string_view hex, std::array<std::uint8_t, kKeySize>& key);

}  // namespace cryptobench::pingpong
