// openssl_aes_path.h: which AES code libcrypto's EVP layer runs here (the
// openssl backend's path; openssl-aes shows it for contrast: the low-level
// AES_* API has no AES-NI dispatch in 3.0).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "kernels/cpu_features.h"

namespace cryptobench {

struct OpensslAesPath {
  std::string description;
  bool aesni;  // the AES-NI assembly (else vpaes or C tables)
};

// OpenSSL picks its AES code from OPENSSL_ia32cap_P, which libcrypto does not
// export. Reproduce its rule: CPUID, then the OPENSSL_ia32cap environment
// override ("[~]0xMASK" for the CPUID.1 EDX:ECX word).
inline OpensslAesPath openssl_aes_path() {
  const CpuFeatures& cpu = hardware_cpu_features();
  std::uint64_t cap =
      (cpu.aesni ? std::uint64_t{1} << 57 : 0) | (cpu.ssse3 ? std::uint64_t{1} << 41 : 0);
  std::string note = "per CPUID";
  if (const char* env = std::getenv("OPENSSL_ia32cap"); env != nullptr && *env != '\0') {
    const bool invert = env[0] == '~';
    const std::uint64_t value = std::strtoull(env + (invert ? 1 : 0), nullptr, 0);
    cap = invert ? cap & ~value : value;
    note = "per CPUID and OPENSSL_ia32cap=" + std::string(env);
  }
  if ((cap >> 57) & 1) return {"aesni (AES-NI assembly), " + note, true};
  if ((cap >> 41) & 1) return {"vpaes (SSSE3 vector permutes, no AES-NI), " + note, false};
  return {"aes_core (C tables, no AES-NI), " + note, false};
}

}  // namespace cryptobench
