#include "kernels/counter_modes.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/pkcs7.h"

namespace cryptobench {

bool GcmLimits::allows_nonce(std::size_t n) const {
  if (n == 0) return false;
  return nonce_12_only ? n == 12 : n >= min_nonce && n <= max_nonce;
}

bool GcmLimits::allows_tag(std::size_t n) const {
  if (n == 16 || (n >= min_tag && n <= 16)) return true;
  return n >= 4 && n < min_tag && n < 32 && ((also_tags >> n) & 1u) != 0;
}

bool GcmLimits::allows_key(std::size_t n) const {
  return (n == 16 && key_16) || (n == 24 && key_24) || (n == 32 && key_32);
}

std::string GcmLimits::describe() const {
  std::string keys;
  for (const auto& [ok, bits] : {std::pair{key_16, "128"}, {key_24, "192"}, {key_32, "256"}}) {
    if (!ok) continue;
    keys += keys.empty() ? "" : "/";
    keys += bits;
  }
  const std::string nonces = nonce_12_only ? "12-byte nonces only"
                                           : "nonces of " + std::to_string(min_nonce) + " to " +
                                                 std::to_string(max_nonce) + " bytes";
  // The tag lengths as "4, 8 or 12 to 16": also_tags's, then the range.
  std::vector<std::string> items;
  for (std::size_t n = 4; n < min_tag && n < 16; ++n) {
    if (allows_tag(n)) items.push_back(std::to_string(n));
  }
  items.push_back(min_tag >= 16 ? "16" : std::to_string(min_tag) + " to 16");
  std::string tags;
  if (items.size() == 1 && min_tag >= 16) {
    tags = "16-byte tags only";
  } else {
    tags = "tags of ";
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i != 0) tags += i + 1 == items.size() ? " or " : ", ";
      tags += items[i];
    }
    tags += " bytes";
  }
  return nonces + ", " + tags + ", " + keys + "-bit keys";
}

bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < n; ++i) diff = static_cast<std::uint8_t>(diff | (a[i] ^ b[i]));
  // Keep the compiler from turning the loop into an early exit.
  __asm__ volatile("" : "+r"(diff));
  return diff == 0;
}

void ctr_add(std::uint8_t* counter, std::uint64_t blocks) {
  unsigned carry = 0;
  for (int i = 15; i >= 0; --i) {
    const unsigned sum = counter[i] + static_cast<unsigned>(blocks & 0xff) + carry;
    counter[i] = static_cast<std::uint8_t>(sum);
    carry = sum >> 8;
    blocks >>= 8;
  }
}

Error AesCtr::set_key(Bytes key) {
  key_size_ = 0;  // a failure leaves the object unkeyed, never on the old key
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) return Error::kKeyLength;
  const Error e = schedule_key(key);
  if (e == Error::kNone) key_size_ = key.size();
  return e;
}

Result AesCtr::crypt(Bytes counter, Bytes in, MutableBytes out) {
  if (key_size_ == 0) return Result::failure(Error::kKeyNotSet);
  if (counter.size() != kAesBlockSize) return Result::failure(Error::kCounterLength);
  if (out.size() < in.size()) return Result::failure(Error::kOutputTooSmall);
  if (in.empty()) return Result::success(0);
  const unsigned bits = limits().counter_bits;
  if (bits >= 128) {
    const Error e = crypt_checked(counter.data(), in.data(), out.data(), in.size());
    return e == Error::kNone ? Result::success(in.size()) : Result::failure(e);
  }
  // The library counts only the low `bits` bits: run it up to each point
  // where they would wrap, and carry into the rest of the block here.
  Block block;
  std::memcpy(block.data(), counter.data(), kAesBlockSize);
  std::size_t done = 0;
  while (done < in.size()) {
    std::uint64_t low = 0;
    for (unsigned i = 16 - bits / 8; i < 16; ++i) low = low << 8 | block[i];
    const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    const std::uint64_t blocks_to_wrap = (mask - low) + 1;  // 0 means 2^64: no wrap in reach
    std::size_t chunk = in.size() - done;
    if (blocks_to_wrap != 0 && blocks_to_wrap < (chunk + kAesBlockSize - 1) / kAesBlockSize) {
      chunk = static_cast<std::size_t>(blocks_to_wrap) * kAesBlockSize;
    }
    const Error e = crypt_checked(block.data(), in.data() + done, out.data() + done, chunk);
    if (e != Error::kNone) return Result::failure(e);
    done += chunk;
    ctr_add(block.data(), chunk / kAesBlockSize);
  }
  return Result::success(in.size());
}

Error AesGcm::set_key(Bytes key) {
  key_size_ = 0;
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) return Error::kKeyLength;
  if (!limits().allows_key(key.size())) return Error::kKeyNotOffered;
  const Error e = schedule_key(key);
  if (e == Error::kNone) key_size_ = key.size();
  return e;
}

Error AesGcm::check(Bytes nonce, std::size_t tag_size) const {
  if (key_size_ == 0) return Error::kKeyNotSet;
  if (tag_size < 4 || tag_size > 16) return Error::kTagLength;
  const GcmLimits l = limits();
  if (!l.allows_nonce(nonce.size())) return Error::kNonceLength;
  if (!l.allows_tag(tag_size)) return Error::kTagLength;
  return Error::kNone;
}

Result AesGcm::seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, MutableBytes tag) {
  if (const Error e = check(nonce, tag.size()); e != Error::kNone) return Result::failure(e);
  if (out.size() < in.size()) return Result::failure(Error::kOutputTooSmall);
  const Error e = seal_checked(nonce, aad, in, out.data(), tag);
  return e == Error::kNone ? Result::success(in.size()) : Result::failure(e);
}

Result AesGcm::open(Bytes nonce, Bytes aad, Bytes in, Bytes tag, MutableBytes out) {
  if (const Error e = check(nonce, tag.size()); e != Error::kNone) return Result::failure(e);
  if (out.size() < in.size()) return Result::failure(Error::kOutputTooSmall);
  const Error e = open_checked(nonce, aad, in, tag, out.data());
  if (e != Error::kNone) {
    // Whatever the library wrote before it checked the tag goes.
    secure_wipe(out.data(), in.size());
    return Result::failure(e);
  }
  return Result::success(in.size());
}

}  // namespace cryptobench
