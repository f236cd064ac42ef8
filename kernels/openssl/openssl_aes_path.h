// openssl_aes_path.h: which AES code libcrypto's EVP layer runs here (the
// openssl backend's path; openssl-aes shows it for contrast: the low-level
// AES_* API has no AES-NI dispatch in 3.0).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/cpu_features.h"

namespace cryptobench {

struct OpensslAesPath {
  std::string description;
  bool aesni;  // the AES-NI assembly (else vpaes or C tables)
};

// OpenSSL picks its AES code from OPENSSL_ia32cap_P, which libcrypto does not
// export. Reproduce its rule (OPENSSL_cpuid_setup in OpenSSL 3.0's
// cryptlib.c, documented in OPENSSL_ia32cap(3)): CPUID, then the
// OPENSSL_ia32cap environment variable, "[~]WORD0[:[~]WORD1]": WORD0 (the
// CPUID.1 EDX:ECX vector, hex with 0x, octal with 0, else decimal) replaces
// the vector, or with ~ clears its bits; an empty WORD0 (":..." changes only
// the second word, CPUID.7) leaves it as CPUID says. Clearing FXSR (bit 24)
// with ~ also clears what works on XMM registers only: PCLMULQDQ, XOP,
// AES-NI and AVX (bits 33, 43, 57, 60), not SSSE3 (vpaes).
inline std::uint64_t openssl_ia32cap_word0(std::uint64_t cpuid, const char* env) {
  if (env == nullptr || *env == '\0' || *env == ':') return cpuid;
  const bool invert = env[0] == '~';
  const std::string word(env + (invert ? 1 : 0), std::strcspn(env + (invert ? 1 : 0), ":"));
  const std::uint64_t value = std::strtoull(word.c_str(), nullptr, 0);
  if (!invert) return value;
  std::uint64_t cap = cpuid & ~value;
  if ((value >> 24) & 1) {
    constexpr std::uint64_t kXmmOnly = (std::uint64_t{1} << 1 | std::uint64_t{1} << 11 |
                                        std::uint64_t{1} << 25 | std::uint64_t{1} << 28)
                                       << 32;
    cap &= ~kXmmOnly;
  }
  return cap;
}

inline OpensslAesPath openssl_aes_path() {
  const CpuFeatures& cpu = hardware_cpu_features();
  const std::uint64_t cpuid = (cpu.aesni ? std::uint64_t{1} << 57 : 0) |
                              (cpu.ssse3 ? std::uint64_t{1} << 41 : 0) | std::uint64_t{1} << 24;
  const char* env = std::getenv("OPENSSL_ia32cap");
  const std::uint64_t cap = openssl_ia32cap_word0(cpuid, env);
  const std::string note = env != nullptr && *env != '\0'
                               ? "per CPUID and OPENSSL_ia32cap=" + std::string(env)
                               : "per CPUID";
  if ((cap >> 57) & 1) return {"aesni (AES-NI assembly), " + note, true};
  if ((cap >> 41) & 1) return {"vpaes (SSSE3 vector permutes, no AES-NI), " + note, false};
  return {"aes_core (C tables, no AES-NI), " + note, false};
}

}  // namespace cryptobench
