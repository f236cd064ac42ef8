// text_codec_simd.h: the vector bulk of ProjectCodec's Base64, AVX2. Each
// function does the longest prefix it can in whole vectors and returns how
// much it consumed; the scalar code does the rest (tail and padding), so
// results are byte-identical. Only text_codec_avx2.cc is built with -mavx2;
// callers check cpu_features().avx2 first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cryptobench::simd {

// base64_encode_avx2: encodes 24-byte groups while at least 28 input bytes
// remain (each step reads 4 bytes past its group). Returns bytes consumed, a
// multiple of 24; wrote 4/3 as many characters.
std::size_t base64_encode_avx2(const std::uint8_t* in, std::size_t length, char* out);

// base64_decode_avx2: decodes 32-character groups of `text` (which must not
// include the final quantum, the only one that may hold '='). Returns
// characters consumed, a multiple of 32; wrote 3/4 as many bytes. Sets
// *bad to true when any consumed character is outside the alphabet.
std::size_t base64_decode_avx2(const char* text, std::size_t length, std::uint8_t* out, bool* bad);

}  // namespace cryptobench::simd
