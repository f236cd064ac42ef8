// cryptobench-dudect: is decrypt-and-unpad constant-time with respect to the
// padding's validity, and GCM's tag check with respect to where a forged tag
// is wrong? The method of dudect (Reparaz, Balasch, Verbauwhede,
// "Dude, is my code constant time?", DATE 2017): time many calls on two
// classes of input, here AES-128-CBC ciphertexts whose padding is valid and
// ciphertexts whose padding is not, interleaved at random; compare the two
// timing distributions with Welch's t-test, on all samples and on samples
// cropped at several percentiles (large timings are mostly interrupts). |t|
// above 4.5 is evidence of a leak.
//
//   cryptobench-dudect [--mode=cbc|gcm] [--backend=NAME[,NAME] | --hand-written] [--blocks=N]
//   [--samples=N] [--attempts=K] [--seed=N]
//
// --mode=gcm times AES-GCM `open` of one sealed message (--blocks blocks, 13
// bytes of AAD, as in a TLS record) under two classes of wrong 16-byte tag:
// wrong in the first byte, and wrong in the last. Both are rejected, so the
// only difference is where the comparison meets the mismatch: an early-exit
// compare (memcmp) shows it, and that is what lets a forger find a tag byte
// by byte. (Valid against invalid would differ by design: a failed open
// wipes the output, and the result is public anyway.)
//
// --blocks sets the ciphertext length (default 4 blocks); the hand-written
// backends decrypt up to 32 blocks in one pass and longer ones last block
// first, so both lengths are worth a run.
//
// The hand-written backends must pass (|t| <= 4.5 in one of K attempts,
// since a noisy machine can fail a single attempt); the library backends are
// reported for information: they run cryptobench's generic PKCS#7 layer over
// the library's block decryption, which wipes the output only on failure.
// Exit: 0 pass, 1 the hand-written backend leaked, 2 bad usage.
#include <x86intrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/registry.h"

using namespace cryptobench;

namespace {

constexpr double kThreshold = 4.5;

struct Welch {
  double n[2] = {0, 0}, mean[2] = {0, 0}, m2[2] = {0, 0};
  void add(int cls, double x) {  // Welford's online update
    n[cls] += 1;
    const double d = x - mean[cls];
    mean[cls] += d / n[cls];
    m2[cls] += d * (x - mean[cls]);
  }
  double t() const {
    if (n[0] < 2 || n[1] < 2) return 0;
    const double v0 = m2[0] / (n[0] - 1), v1 = m2[1] / (n[1] - 1);
    const double se = std::sqrt(v0 / n[0] + v1 / n[1]);
    return se > 0 ? (mean[0] - mean[1]) / se : 0;
  }
};

struct Measurement {
  double max_abs_t = 0;
  double mean_cycles[2] = {0, 0};
};

Measurement summarize(const std::vector<double>& cycles, const std::vector<int>& classes);

// time_each: the TSC cycles of call(i) for each sample, fenced so the
// measured region holds the call alone; exits with `wrong` when a call's
// outcome is not its class's (call returns false).
template <class Call>
std::vector<double> time_each(std::size_t samples, Call&& call, const AesBackend& backend,
                              const char* wrong) {
  std::vector<double> cycles(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    unsigned aux = 0;
    _mm_lfence();
    const std::uint64_t start = __rdtsc();
    const bool right = call(i);
    const std::uint64_t stop = __rdtscp(&aux);
    _mm_lfence();
    if (!right) {
      std::fprintf(stderr, "cryptobench-dudect: %s %s\n", backend.info().name.c_str(), wrong);
      std::exit(1);
    }
    cycles[i] = static_cast<double>(stop - start);
  }
  return cycles;
}

Measurement measure_cbc(const AesBackend& backend, std::size_t samples, std::size_t blocks,
                        std::mt19937_64& rng) {
  const std::size_t size = blocks * kAesBlockSize;
  auto cipher = backend.make_cipher(Mode::kCbc);
  std::vector<std::uint8_t> key(16), iv(16);
  for (auto& b : key) b = static_cast<std::uint8_t>(rng());
  for (auto& b : iv) b = static_cast<std::uint8_t>(rng());
  (void)cipher->set_key(key);

  // Inputs prepared up front, so the timed loop only decrypts.
  std::vector<std::uint8_t> inputs(samples * size);
  std::vector<int> classes(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    classes[i] = static_cast<int>(rng() & 1);
    std::uint8_t* ct = &inputs[i * size];
    std::vector<std::uint8_t> plain_bytes(size);
    std::uint8_t* plain = plain_bytes.data();
    for (auto& b : plain_bytes) b = static_cast<std::uint8_t>(rng());
    if (classes[i] == 0) {  // valid padding of a random length
      const std::size_t pad = 1 + rng() % kAesBlockSize;
      std::memset(plain + size - pad, static_cast<int>(pad), pad);
    } else if (rng() % 2) {  // invalid: a last byte of 0 or above 16
      plain[size - 1] = static_cast<std::uint8_t>(rng() % 2 ? 0 : 17 + rng() % 239);
    } else {  // invalid: a plausible length whose earlier padding bytes are wrong
      const std::size_t pad = 2 + rng() % (kAesBlockSize - 1);
      std::memset(plain + size - pad, static_cast<int>(pad), pad);
      plain[size - 1 - rng() % (pad - 1) - 1] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    }
    (void)cipher->encrypt(Padding::kNone, iv, {plain, size}, {ct, size});
  }
  std::vector<std::uint8_t> out(size);
  return summarize(
      time_each(
          samples,
          [&](std::size_t i) {
            const Result r = cipher->decrypt(Padding::kPkcs7, iv, {&inputs[i * size], size}, out);
            return r.ok() == (classes[i] == 0);
          },
          backend, "decided a padding wrongly"),
      classes);
}

// measure_gcm: the classes are the position of the wrong tag byte (first or
// last); the message, nonce and AAD are the same in every call.
Measurement measure_gcm(const AesBackend& backend, std::size_t samples, std::size_t blocks,
                        std::mt19937_64& rng) {
  const std::size_t size = blocks * kAesBlockSize;
  auto gcm = backend.make_gcm();
  std::vector<std::uint8_t> key(gcm->limits().allows_key(16) ? 16 : 32), nonce(12), aad(13),
      plain(size), ct(size), tag(16);
  for (auto* v : {&key, &nonce, &aad, &plain}) {
    for (auto& b : *v) b = static_cast<std::uint8_t>(rng());
  }
  if (gcm->set_key(key) != Error::kNone || !gcm->seal(nonce, aad, plain, ct, tag).ok()) {
    std::fprintf(stderr, "cryptobench-dudect: %s could not seal\n", backend.info().name.c_str());
    std::exit(1);
  }
  std::vector<std::uint8_t> tags(samples * 16);
  std::vector<int> classes(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    classes[i] = static_cast<int>(rng() & 1);
    std::uint8_t* t = &tags[i * 16];
    std::memcpy(t, tag.data(), 16);
    t[classes[i] == 0 ? 0 : 15] ^= static_cast<std::uint8_t>(1 + rng() % 255);
  }
  std::vector<std::uint8_t> out(size);
  return summarize(
      time_each(
          samples,
          [&](std::size_t i) {
            return gcm->open(nonce, aad, ct, {&tags[i * 16], 16}, out).error == Error::kBadTag;
          },
          backend, "did not reject a wrong tag"),
      classes);
}

Measurement summarize(const std::vector<double>& cycles, const std::vector<int>& classes) {
  const std::size_t samples = cycles.size();
  // Welch's t on everything and below several percentiles of the timings.
  std::vector<double> sorted = cycles;
  std::sort(sorted.begin(), sorted.end());
  Measurement m;
  for (const double q : {1.0, 0.99, 0.95, 0.9, 0.75, 0.5}) {
    const double limit = sorted[static_cast<std::size_t>(q * static_cast<double>(samples - 1))];
    Welch w;
    for (std::size_t i = 0; i < samples; ++i) {
      if (cycles[i] <= limit) w.add(classes[i], cycles[i]);
    }
    m.max_abs_t = std::max(m.max_abs_t, std::fabs(w.t()));
    if (q == 0.9) {
      m.mean_cycles[0] = w.mean[0];
      m.mean_cycles[1] = w.mean[1];
    }
  }
  return m;
}

}  // namespace

constexpr const char* kUsage =
    "usage: cryptobench-dudect [--mode=cbc|gcm] [--backend=A,B | --hand-written] [--blocks=N]\n"
    "                          [--samples=N] [--attempts=K] [--seed=N]\n"
    "Is decrypt-and-unpad constant-time with respect to the padding's validity (cbc), or\n"
    "GCM's tag check with respect to where a forged tag is wrong (gcm)? Times many calls\n"
    "on two classes of input, interleaved at random, and compares the two timing\n"
    "distributions with Welch's t-test (dudect); |t| above 4.5 is evidence of a leak.\n"
    "The hand-written backends must pass; the libraries are reported for information.\n"
    "Options:\n"
    "  --mode=cbc|gcm      the padding check (default) or the GCM tag check\n"
    "  --backend=A,B       only these backends (default: every usable one)\n"
    "  --hand-written      only the hand-written backends\n"
    "  --blocks=1..4096    ciphertext length in 16-byte blocks (default 4)\n"
    "  --samples=1000..1e8 timed calls per backend and attempt (default 1,000,000)\n"
    "  --attempts=1..20    attempts a hand-written backend gets to pass (default 3)\n"
    "  --seed=N            the inputs' seed (printed by every run, to repeat it)\n"
    "  -h, --help          this help\n"
    "Example:\n"
    "  cryptobench-dudect --hand-written --blocks=16\n"
    "Exit status: 0 pass, 1 a hand-written backend leaked, 2 bad usage (one line).\n"
    "More: docs/robustness.md\n";

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {  // the help alone, whatever else is on the line
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  if (const std::string problem = cryptobench::cpu_mask_problem(); !problem.empty()) {
    std::fprintf(stderr, "cryptobench-dudect: %s\n", problem.c_str());
    return 2;
  }
  std::vector<std::string> names;
  std::size_t samples = 1'000'000;
  std::size_t blocks = 4;
  int attempts = 3;
  bool hand_written_only = false;  // every usable hand-written backend, none other
  bool gcm = false;                // --mode=gcm: the tag check, not the padding check
  // The inputs' seed, printed so a failed run can be repeated with --seed.
  std::uint64_t seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    try {
      if (a.rfind("--backend=", 0) == 0) {
        std::string list = a.substr(10);
        for (std::size_t p = 0; p <= list.size();) {
          const std::size_t c = list.find(',', p);
          names.push_back(list.substr(p, c == std::string::npos ? std::string::npos : c - p));
          if (c == std::string::npos) break;
          p = c + 1;
        }
      } else if (a == "--mode=cbc" || a == "--mode=gcm") {
        gcm = a == "--mode=gcm";
      } else if (a == "--hand-written") {
        hand_written_only = true;
      } else if (a.rfind("--blocks=", 0) == 0) {
        blocks = std::stoul(a.substr(9));
        if (blocks < 1 || blocks > 4096) throw std::out_of_range("blocks");
      } else if (a.rfind("--samples=", 0) == 0) {
        samples = std::stoul(a.substr(10));
        if (samples < 1000 || samples > 100'000'000) throw std::out_of_range("samples");
      } else if (a.rfind("--seed=", 0) == 0) {
        const std::string digits = a.substr(7);
        std::size_t used = 0;
        // stoull alone would take "-1" (as 2^64 - 1), " 5" and "+5".
        if (digits.empty() || digits[0] < '0' || digits[0] > '9')
          throw std::invalid_argument("seed");
        seed = std::stoull(digits, &used);
        if (used != digits.size()) throw std::invalid_argument("seed");
      } else if (a.rfind("--attempts=", 0) == 0) {
        attempts = std::stoi(a.substr(11));
        if (attempts < 1 || attempts > 20) throw std::out_of_range("attempts");
      } else {
        std::fprintf(stderr,
                     "cryptobench-dudect: unknown option '%s' (cryptobench-dudect --help)\n",
                     a.c_str());
        return 2;
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "cryptobench-dudect: bad value in '%s'\n", a.c_str());
      return 2;
    }
  }
  if (hand_written_only && !names.empty()) {
    std::fprintf(stderr, "cryptobench-dudect: --hand-written and --backend exclude each other\n");
    return 2;
  }
  if (names.empty()) {
    for (const BackendEntry* entry : compiled_backends()) {
      if (!unusable_reason(*entry).empty()) continue;
      if (hand_written_only && std::string_view(entry->library) != "cryptobench") continue;
      names.emplace_back(entry->name);
    }
  }

  std::mt19937_64 rng(seed);
  std::printf("seed %llu (--seed repeats these inputs)\n", static_cast<unsigned long long>(seed));
  bool hand_written_leaks = false;
  std::printf("%-11s %10s %12s %12s  %s\n", "backend", "max |t|",
              gcm ? "first (cyc)" : "valid (cyc)", gcm ? "last (cyc)" : "invalid (cyc)",
              "verdict (threshold 4.5)");
  for (const std::string& name : names) {
    std::unique_ptr<AesBackend> backend;
    try {
      backend = open_backend(name);
    } catch (const BackendError& e) {
      std::fprintf(stderr, "cryptobench-dudect: %s\n", e.what());
      return 2;
    }
    // It times CBC decryption with PKCS#7 or GCM's open: a backend without
    // the mode has nothing to measure.
    if (const BackendInfo info = backend->info(); !info.offers(gcm ? Mode::kGcm : Mode::kCbc)) {
      std::printf("%-11s %10s %12s %12s  not run: no %s (%s)\n", name.c_str(), "-", "-", "-",
                  gcm ? "GCM" : "CBC", info.not_offered.c_str());
      continue;
    }
    // The hand-written backends (library "cryptobench") must pass.
    const bool must_pass = backend->info().library == "cryptobench";
    Measurement m;
    int tries = 0;
    for (; tries < (must_pass ? attempts : 1); ++tries) {
      m = gcm ? measure_gcm(*backend, samples, blocks, rng)
              : measure_cbc(*backend, samples, blocks, rng);
      if (m.max_abs_t <= kThreshold) break;
    }
    const bool leaks = m.max_abs_t > kThreshold;
    std::printf(
        "%-11s %10.2f %12.1f %12.1f  %s%s\n", name.c_str(), m.max_abs_t, m.mean_cycles[0],
        m.mean_cycles[1], leaks ? "timing differs" : "no difference found",
        must_pass
            ? (" (must pass; attempts: " + std::to_string(std::min(tries + 1, attempts)) + ")")
                  .c_str()
            : " (information)");
    hand_written_leaks = hand_written_leaks || (must_pass && leaks);
  }
  if (gcm) {
    std::printf(
        "samples per backend and attempt: %zu, %zu-byte AES-GCM ciphertexts with 13 bytes of "
        "AAD, tags wrong in the first or the last byte, TSC cycles\n",
        samples, blocks * kAesBlockSize);
  } else {
    std::printf(
        "samples per backend and attempt: %zu, %zu-byte AES-128-CBC ciphertexts, TSC cycles\n",
        samples, blocks * kAesBlockSize);
  }
  return hand_written_leaks ? 1 : 0;
}
