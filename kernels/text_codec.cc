#include "kernels/text_codec.h"

#include <array>

#include "kernels/cpu_features.h"
#include "kernels/pkcs7.h"
#include "kernels/text_codec_simd.h"

namespace cryptobench {
namespace {

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kHexDigits[] = "0123456789abcdef";
constexpr std::uint8_t kInvalid = 0xff;

constexpr std::array<std::uint8_t, 256> make_base64_values() {
  std::array<std::uint8_t, 256> values{};
  for (auto& v : values) v = kInvalid;
  for (std::uint8_t i = 0; i < 64; ++i) values[static_cast<unsigned char>(kBase64Alphabet[i])] = i;
  return values;
}

constexpr std::array<std::uint8_t, 256> make_hex_values() {
  std::array<std::uint8_t, 256> values{};
  for (auto& v : values) v = kInvalid;
  for (std::uint8_t i = 0; i < 10; ++i) values['0' + i] = i;
  for (std::uint8_t i = 0; i < 6; ++i) {
    values['a' + i] = static_cast<std::uint8_t>(10 + i);
    values['A' + i] = static_cast<std::uint8_t>(10 + i);
  }
  return values;
}

constexpr auto kBase64Values = make_base64_values();
constexpr auto kHexValues = make_hex_values();

// The AVX2 bulk of Base64, when this build has it and the CPU can run it.
bool use_avx2() {
#ifdef CRYPTOBENCH_HAVE_AVX2_CODEC
  static const bool usable = cpu_features().avx2;
  return usable;
#else
  return false;
#endif
}

std::size_t encode_bulk(const std::uint8_t* in, std::size_t length, char* out) {
#ifdef CRYPTOBENCH_HAVE_AVX2_CODEC
  if (use_avx2()) return simd::base64_encode_avx2(in, length, out);
#endif
  (void)in, (void)length, (void)out;
  return 0;
}

std::size_t decode_bulk(const char* text, std::size_t length, std::uint8_t* out, bool* bad) {
#ifdef CRYPTOBENCH_HAVE_AVX2_CODEC
  if (use_avx2()) return simd::base64_decode_avx2(text, length, out, bad);
#endif
  (void)text, (void)length, (void)out, (void)bad;
  return 0;
}

std::uint8_t base64_value(char c) { return kBase64Values[static_cast<unsigned char>(c)]; }
std::uint8_t hex_value(char c) { return kHexValues[static_cast<unsigned char>(c)]; }

// Base64 shape: length a multiple of 4, alphabet characters, then at most two
// '=' at the very end, and the bits padding discards must be zero (canonical).
Result validate_base64(std::string_view text) {
  if (text.size() % 4 != 0) return Result::failure(Error::kBadEncoding);
  if (text.empty()) return Result::success(0);
  std::size_t pad = 0;
  if (text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  const std::size_t data_chars = text.size() - pad;
  for (std::size_t i = 0; i < data_chars; ++i) {
    if (base64_value(text[i]) == kInvalid) return Result::failure(Error::kBadEncoding);
  }
  const std::uint8_t last = base64_value(text[data_chars - 1]);
  if ((pad == 1 && (last & 0x03) != 0) || (pad == 2 && (last & 0x0f) != 0)) {
    return Result::failure(Error::kBadEncoding);
  }
  return Result::success(text.size() / 4 * 3 - pad);
}

Result validate_hex(std::string_view text) {
  if (text.size() % 2 != 0) return Result::failure(Error::kBadEncoding);
  for (const char c : text) {
    if (hex_value(c) == kInvalid) return Result::failure(Error::kBadEncoding);
  }
  return Result::success(text.size() / 2);
}

}  // namespace

std::string_view encoding_name(Encoding encoding) {
  switch (encoding) {
    case Encoding::kNone:
      return "none";
    case Encoding::kBase64:
      return "base64";
    case Encoding::kHex:
      return "hex";
  }
  return "unknown";
}

std::size_t encoded_size(Encoding encoding, std::size_t length) {
  switch (encoding) {
    case Encoding::kBase64:
      return (length + 2) / 3 * 4;
    case Encoding::kHex:
      return length * 2;
    case Encoding::kNone:
      break;
  }
  return length;
}

std::size_t decode_capacity(Encoding encoding, std::size_t text_length) {
  switch (encoding) {
    case Encoding::kBase64:
      return (text_length + 3) / 4 * 3;
    case Encoding::kHex:
      return text_length / 2;
    case Encoding::kNone:
      break;
  }
  return text_length;
}

Result checked_decoded_size(Encoding encoding, std::string_view text) {
  switch (encoding) {
    case Encoding::kBase64:
      return validate_base64(text);
    case Encoding::kHex:
      return validate_hex(text);
    case Encoding::kNone:
      break;
  }
  return Result::success(text.size());
}

Result TextCodec::encode(Encoding encoding, std::span<const std::uint8_t> in,
                         std::span<char> out) const {
  const std::size_t needed = encoded_size(encoding, in.size());
  if (out.size() < needed) return Result::failure(Error::kOutputTooSmall);
  switch (encoding) {
    case Encoding::kBase64:
      return encode_base64(in.data(), in.size(), out.data());
    case Encoding::kHex:
      return encode_hex(in.data(), in.size(), out.data());
    case Encoding::kNone:
      break;
  }
  return Result::failure(Error::kBadEncoding);
}

Result TextCodec::decode(Encoding encoding, std::string_view text,
                         std::span<std::uint8_t> out) const {
  if (out.size() < decode_capacity(encoding, text.size())) {
    return Result::failure(Error::kOutputTooSmall);
  }
  Result result = Result::failure(Error::kBadEncoding);
  switch (encoding) {
    case Encoding::kBase64:
      result = decode_base64(text, out.data());
      break;
    case Encoding::kHex:
      result = decode_hex(text, out.data());
      break;
    case Encoding::kNone:
      break;
  }
  if (!result.ok()) secure_wipe(out.data(), decode_capacity(encoding, text.size()));
  return result;
}

Result ProjectCodec::encode_base64(const std::uint8_t* in, std::size_t length, char* out) const {
  char* const start = out;
  std::size_t i = encode_bulk(in, length, out);
  out += i / 3 * 4;
  for (; i + 3 <= length; i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(in[i]) << 16 |
                            static_cast<std::uint32_t>(in[i + 1]) << 8 | in[i + 2];
    *out++ = kBase64Alphabet[v >> 18];
    *out++ = kBase64Alphabet[(v >> 12) & 63];
    *out++ = kBase64Alphabet[(v >> 6) & 63];
    *out++ = kBase64Alphabet[v & 63];
  }
  if (const std::size_t rest = length - i; rest != 0) {
    std::uint32_t v = static_cast<std::uint32_t>(in[i]) << 16;
    if (rest == 2) v |= static_cast<std::uint32_t>(in[i + 1]) << 8;
    *out++ = kBase64Alphabet[v >> 18];
    *out++ = kBase64Alphabet[(v >> 12) & 63];
    *out++ = rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
    *out++ = '=';
  }
  return Result::success(static_cast<std::size_t>(out - start));
}

Result ProjectCodec::decode_base64(std::string_view text, std::uint8_t* out) const {
  // One pass: any invalid character sets a high bit in `bad`.
  if (text.size() % 4 != 0) return Result::failure(Error::kBadEncoding);
  if (text.empty()) return Result::success(0);
  std::size_t pad = 0;
  if (text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  const std::size_t full_quads = (text.size() - pad) / 4;
  std::uint32_t bad = 0;
  std::uint8_t* const start = out;
  const char* p = text.data();
  bool bulk_bad = false;
  const std::size_t bulk = decode_bulk(p, full_quads * 4, out, &bulk_bad);
  if (bulk_bad) bad |= 0x80;
  p += bulk;
  out += bulk / 4 * 3;
  for (std::size_t q = bulk / 4; q < full_quads; ++q, p += 4) {
    const std::uint32_t a = base64_value(p[0]), b = base64_value(p[1]), c = base64_value(p[2]),
                        d = base64_value(p[3]);
    bad |= a | b | c | d;
    const std::uint32_t v = a << 18 | b << 12 | c << 6 | d;
    *out++ = static_cast<std::uint8_t>(v >> 16);
    *out++ = static_cast<std::uint8_t>(v >> 8);
    *out++ = static_cast<std::uint8_t>(v);
  }
  if (pad != 0) {
    const std::uint32_t a = base64_value(p[0]), b = base64_value(p[1]);
    const std::uint32_t c = pad == 1 ? base64_value(p[2]) : 0;
    bad |= a | b | c;
    // Non-canonical: bits that the padding drops must be zero.
    if ((pad == 2 && (b & 0x0f) != 0) || (pad == 1 && (c & 0x03) != 0)) bad |= 0x80;
    const std::uint32_t v = a << 18 | b << 12 | c << 6;
    *out++ = static_cast<std::uint8_t>(v >> 16);
    if (pad == 1) *out++ = static_cast<std::uint8_t>(v >> 8);
  }
  if ((bad & 0x80) != 0) return Result::failure(Error::kBadEncoding);
  return Result::success(static_cast<std::size_t>(out - start));
}

Result ProjectCodec::encode_hex(const std::uint8_t* in, std::size_t length, char* out) const {
  for (std::size_t i = 0; i < length; ++i) {
    out[2 * i] = kHexDigits[in[i] >> 4];
    out[2 * i + 1] = kHexDigits[in[i] & 15];
  }
  return Result::success(length * 2);
}

Result ProjectCodec::decode_hex(std::string_view text, std::uint8_t* out) const {
  if (text.size() % 2 != 0) return Result::failure(Error::kBadEncoding);
  std::uint32_t bad = 0;
  for (std::size_t i = 0; i < text.size() / 2; ++i) {
    const std::uint32_t hi = hex_value(text[2 * i]), lo = hex_value(text[2 * i + 1]);
    bad |= hi | lo;
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  if ((bad & 0x80) != 0) return Result::failure(Error::kBadEncoding);
  return Result::success(text.size() / 2);
}

std::string project_codec_description() {
  return use_avx2() ? "cryptobench codec: AVX2 Base64 (table tail), table hex"
                    : "cryptobench codec: table Base64 and hex";
}

const TextCodec& project_codec() {
  static const ProjectCodec codec;
  return codec;
}

}  // namespace cryptobench
