// text_codec_simd.h: the vector bulk of ProjectCodec's Base64, AVX2. Each
// function does the longest prefix it can in whole vectors and returns how
// much it consumed; the scalar code does the rest (tail and padding), so
// results are byte-identical. Only text_codec_avx2.cc is built with -mavx2;
// callers check cpu_features().avx2 first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cryptobench::simd {

// base64_encode_avx2: when length >= 24, encodes every whole 3-byte group
// (the last vector overlapping the one before it; `out` must not overlap
// `in`); nothing otherwise. Returns bytes consumed, a multiple of 3; wrote
// 4/3 as many characters. Reads no byte past `length`.
std::size_t base64_encode_avx2(const std::uint8_t* in, std::size_t length, char* out);

// base64_decode_avx2: when length >= 32, decodes every whole 4-character
// quantum of `text` (which must not include the final quantum, the only one
// that may hold '='; `out` must not overlap it); nothing otherwise. Returns
// characters consumed, a multiple of 4; wrote 3/4 as many bytes. Sets *bad
// to true when any consumed character is outside the alphabet.
std::size_t base64_decode_avx2(const char* text, std::size_t length, std::uint8_t* out, bool* bad);

}  // namespace cryptobench::simd
