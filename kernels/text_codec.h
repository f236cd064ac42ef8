// text_codec.h: Base64 (RFC 4648 section 4, standard alphabet, padded) and
// hex (lowercase out, either case in) into caller buffers.
//
// Each backend has a TextCodec: the library backends wrap their library's own
// codec (what that library's users would call); the hand-written backend uses
// ProjectCodec below. Decoding is strict everywhere: a character outside the
// alphabet, a length that is not a multiple of 4 (Base64) or 2 (hex), or
// misplaced or non-canonical padding is kBadEncoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kernels/status.h"

namespace cryptobench {

enum class Encoding { kNone, kBase64, kHex };

std::string_view encoding_name(Encoding encoding);  // "none" / "base64" / "hex"

// encoded_size: exact text length for `length` bytes.
std::size_t encoded_size(Encoding encoding, std::size_t length);
// decode_capacity: the output space decode() needs for `text_length`
// characters (libraries may write up to this much before trimming).
std::size_t decode_capacity(Encoding encoding, std::size_t text_length);

// checked_decoded_size: the strict validator the library backends run before
// their library's (more lenient) decoder. Returns the exact decoded length.
Result checked_decoded_size(Encoding encoding, std::string_view text);

class TextCodec {
 public:
  virtual ~TextCodec() = default;

  // encode: `out` needs encoded_size() characters and must not overlap `in`
  // (nor, for decode, `text`). Returns characters written.
  Result encode(Encoding encoding, std::span<const std::uint8_t> in, std::span<char> out) const;
  // decode: `out` needs decode_capacity() bytes. Returns bytes written. On
  // failure the output is wiped.
  Result decode(Encoding encoding, std::string_view text, std::span<std::uint8_t> out) const;

 protected:
  // Sizes are validated by the public wrappers; `out` never overlaps the
  // input (the vector paths rewrite some output they already wrote).
  // Implementations must be safe to call from several threads at once.
  virtual Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const = 0;
  virtual Result decode_base64(std::string_view text, std::uint8_t* out) const = 0;
  virtual Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const = 0;
  virtual Result decode_hex(std::string_view text, std::uint8_t* out) const = 0;
};

// ProjectCodec: cryptobench's own codec, used by the hand-written backends
// and by tools: table-driven, with an AVX2 bulk for Base64 when the CPU has
// AVX2 (CRYPTOBENCH_CPU_MASK=avx2 forces the tables).
class ProjectCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override;
  Result decode_base64(std::string_view text, std::uint8_t* out) const override;
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override;
  Result decode_hex(std::string_view text, std::uint8_t* out) const override;
};

const TextCodec& project_codec();

// project_codec_description: which paths project_codec() takes here.
std::string project_codec_description();

}  // namespace cryptobench
