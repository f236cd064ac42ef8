#include "kernels/cpu_features.h"

#include <cpuid.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace cryptobench {
namespace {

struct Regs {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(std::uint32_t leaf, std::uint32_t subleaf = 0) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

bool bit(std::uint32_t value, int n) { return ((value >> n) & 1u) != 0; }

std::uint64_t read_xcr0() {
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return static_cast<std::uint64_t>(hi) << 32 | lo;
}

bool masked(std::string_view mask, std::string_view flag) {
  while (!mask.empty()) {
    const std::size_t comma = mask.find(',');
    if (mask.substr(0, comma) == flag) return true;
    if (comma == std::string_view::npos) break;
    mask.remove_prefix(comma + 1);
  }
  return false;
}

// Every name a mask may use: flag_list()'s names.
constexpr std::string_view kFlagNames[] = {"sse4_1",  "ssse3",    "aes",      "pclmulqdq",
                                           "avx",     "avx2",     "vaes",     "vpclmulqdq",
                                           "avx512f", "avx512bw", "avx512vl", "sha_ni"};

}  // namespace

std::string cpu_mask_problem() {
  const char* env = std::getenv("CRYPTOBENCH_CPU_MASK");
  if (env == nullptr) return "";
  std::string_view mask = env;
  while (!mask.empty()) {
    const std::size_t comma = mask.find(',');
    const std::string_view name = mask.substr(0, comma);
    bool known = false;
    for (const std::string_view flag : kFlagNames) known = known || flag == name;
    if (!known) {
      std::string names;
      for (const std::string_view flag : kFlagNames) {
        names += names.empty() ? "" : ", ";
        names += flag;
      }
      return "CRYPTOBENCH_CPU_MASK names '" + std::string(name) +
             "', which is not a CPU flag it can mask; known: " + names;
    }
    if (comma == std::string_view::npos) break;
    mask.remove_prefix(comma + 1);
  }
  return "";
}

std::string CpuFeatures::flag_list() const {
  std::string out;
  const auto add = [&out](bool on, const char* name) {
    if (!on) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  add(sse41, "sse4_1");
  add(ssse3, "ssse3");
  add(aesni, "aes");
  add(pclmulqdq, "pclmulqdq");
  add(avx, "avx");
  add(avx2, "avx2");
  add(vaes, "vaes");
  add(vpclmulqdq, "vpclmulqdq");
  add(avx512f, "avx512f");
  add(avx512bw, "avx512bw");
  add(avx512vl, "avx512vl");
  add(sha, "sha_ni");
  return out;
}

CpuFeatures detect_cpu_features(std::string_view mask) {
  CpuFeatures f;
  const Regs r0 = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor, &r0.ebx, 4);
  std::memcpy(vendor + 4, &r0.edx, 4);
  std::memcpy(vendor + 8, &r0.ecx, 4);
  f.vendor = vendor;

  const Regs r1 = cpuid(1);
  f.ssse3 = bit(r1.ecx, 9);
  f.sse41 = bit(r1.ecx, 19);
  f.aesni = bit(r1.ecx, 25);
  f.pclmulqdq = bit(r1.ecx, 1);
  const bool osxsave = bit(r1.ecx, 27);
  const std::uint64_t xcr0 = osxsave ? read_xcr0() : 0;
  const bool ymm_saved = (xcr0 & 0x6) == 0x6;    // XMM and YMM state
  const bool zmm_saved = (xcr0 & 0xe6) == 0xe6;  // plus opmask and ZMM state
  f.avx = bit(r1.ecx, 28) && ymm_saved;

  if (r0.eax >= 7) {
    const Regs r7 = cpuid(7, 0);
    f.avx2 = f.avx && bit(r7.ebx, 5);
    f.sha = bit(r7.ebx, 29);
    f.vaes = f.avx && bit(r7.ecx, 9);
    f.vpclmulqdq = f.avx && bit(r7.ecx, 10);
    f.avx512f = zmm_saved && bit(r7.ebx, 16);
    f.avx512bw = f.avx512f && bit(r7.ebx, 30);
    f.avx512vl = f.avx512f && bit(r7.ebx, 31);
  }

  if (cpuid(0x80000000).eax >= 0x80000004) {
    char brand[49] = {};
    for (std::uint32_t i = 0; i < 3; ++i) {
      const Regs r = cpuid(0x80000002 + i);
      std::memcpy(brand + 16 * i, &r, 16);
    }
    std::string_view text = brand;
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    f.model = text;
  }

  const auto apply = [mask](bool& flag, std::string_view name) {
    if (masked(mask, name)) flag = false;
  };
  apply(f.sse41, "sse4_1");
  apply(f.ssse3, "ssse3");
  apply(f.aesni, "aes");
  apply(f.pclmulqdq, "pclmulqdq");
  apply(f.avx, "avx");
  apply(f.avx2, "avx2");
  apply(f.vaes, "vaes");
  apply(f.vpclmulqdq, "vpclmulqdq");
  apply(f.avx512f, "avx512f");
  apply(f.avx512bw, "avx512bw");
  apply(f.avx512vl, "avx512vl");
  apply(f.sha, "sha_ni");
  return f;
}

const CpuFeatures& hardware_cpu_features() {
  static const CpuFeatures features = detect_cpu_features("");
  return features;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    const char* mask = std::getenv("CRYPTOBENCH_CPU_MASK");
    if (mask == nullptr || *mask == '\0') return hardware_cpu_features();
    return detect_cpu_features(mask);
  }();
  return features;
}

}  // namespace cryptobench
