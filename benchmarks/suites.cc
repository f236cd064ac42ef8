#include "benchmarks/suites.h"

#include <utility>

namespace cryptobench::bench {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;
constexpr Op kDataOps[] = {Op::kEncrypt, Op::kDecrypt, Op::kRoundtrip};
constexpr Encoding kCodecs[] = {Encoding::kNone, Encoding::kBase64, Encoding::kHex};
constexpr bool kPools[] = {false, true};

// The key-handling modes beyond a cached schedule, as (mode, PBKDF2 iterations).
const std::vector<std::pair<KeyHandling, unsigned>> kKeyModes = {{KeyHandling::kPerOp, 0},
                                                                 {KeyHandling::kHmac, 0},
                                                                 {KeyHandling::kPbkdf2, 1000},
                                                                 {KeyHandling::kPbkdf2, 10000}};

// Thread counts 1, 2, 4, ... up to and including 2 x cores.
std::vector<int> thread_ladder(int cores) {
  std::vector<int> threads;
  for (int t = 1; t < 2 * cores; t *= 2) threads.push_back(t);
  threads.push_back(2 * cores);
  return threads;
}

// seed000_roundtrip: the seed-000 program's operation: AES-128-CBC roundtrip
// of a 100-character message plus a counter, Base64, a new key schedule.
Cell seed000_roundtrip(const std::string& backend, bool pool, int threads) {
  return {.scenario = "seed000",
          .backend = backend,
          .op = Op::kRoundtrip,
          .size = 100,
          .codec = Encoding::kBase64,
          .pool = pool,
          .key = KeyHandling::kPerOp,
          .threads = threads,
          .payload = Payload::kSeed000Message};
}

// seed000_gcm_roundtrip: the same operation with AES-128-GCM, which a
// rewrite of the seed would use (an authenticated mode, no padding): the
// same message, key and Base64 (of the ciphertext and its tag), a fresh
// nonce per operation, no additional authenticated data.
Cell seed000_gcm_roundtrip(const std::string& backend, bool pool, int threads) {
  Cell cell = seed000_roundtrip(backend, pool, threads);
  cell.scenario = "seed000-gcm";
  cell.mode = Mode::kGcm;
  return cell;
}

// The CTR and GCM sizes: odd ones beside the powers of two (63 and 4095: a
// partial last block; 1420: a TLS record that fits a 1500-byte MTU).
constexpr std::size_t kCounterModeSizes[] = {16, 63, 64, 256, 1024, 1420, 4095, 4096, 16384, 65536};
// kTlsAad: the additional authenticated data of a TLS 1.3 record (its
// 5-byte header) plus the 8-byte sequence number TLS 1.2 adds: 13 bytes,
// the AAD of a TLS 1.2 AES-GCM record and the size the seeds' peers use.
constexpr std::size_t kTlsAad = 13;

std::vector<Cell> seed000(const std::vector<std::string>& backends, int cores) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const bool pool : kPools) {
      for (int threads = 1; threads <= 2 * cores; ++threads) {
        cells.push_back(seed000_roundtrip(backend, pool, threads));
        cells.push_back(seed000_gcm_roundtrip(backend, pool, threads));
      }
    }
  }
  return cells;
}

std::vector<Cell> quick(const std::vector<std::string>& backends, int cores) {
  // The seed-000 thread sweep, so the default run's report has its curve.
  std::vector<Cell> cells = seed000(backends, cores);
  for (const std::string& backend : backends) {
    for (const Op op : kDataOps) {
      for (const Encoding codec : kCodecs) {
        for (const bool pool : kPools) {
          for (const std::size_t size : {std::size_t{16}, std::size_t{256}, std::size_t{4096},
                                         std::size_t{16384}, std::size_t{65536}, kMiB}) {
            for (const int threads : {1, 2}) {
              cells.push_back({.backend = backend,
                               .op = op,
                               .size = size,
                               .codec = codec,
                               .pool = pool,
                               .threads = threads});
            }
          }
        }
      }
    }
  }
  return cells;
}

// decision: the default suite, the cells that separate libraries, sized for
// an answer with significance in about two and a half minutes on 2 cores: 40
// rounds of 4 ms (schedule.h). A neighbour's regimes last 0.1-3 s, so short
// rounds, each with its quiet samples, find quiet spells that longer loops
// straddle; 40 of them leave about 12 quiet rounds a benchmark where 80% of
// the time ran contended, enough for the sign test and the floor's halves.
// AES-128-CBC encryption (a chain) and decryption
// (parallel) over a size ladder of 16 B to 16 KiB, from which the tools fit
// each backend's cost per call and per byte; the same at 16 KiB with 2
// threads and with AES-256; Base64 and hex, pool off and a new key schedule
// per operation at the sizes where they matter; the seed-000 roundtrip at 1
// and 2 threads, pool on and off, in CBC and in GCM (seed000-gcm); and the
// AES-GCM cells below (ten more benchmarks per backend, where a run of 14
// backends had 25: the run grows by about 40%, to about two minutes).
std::vector<Cell> decision(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const Op op : {Op::kEncrypt, Op::kDecrypt}) {
      for (const std::size_t size : {16, 64, 256, 1024, 4096, 16384}) {
        cells.push_back({.backend = backend, .op = op, .size = size, .pool = true});
      }
      cells.push_back({.backend = backend, .op = op, .size = 16384, .pool = true, .threads = 2});
      cells.push_back({.backend = backend, .key_bytes = 32, .op = op, .size = 16384, .pool = true});
    }
    for (const Encoding codec : {Encoding::kBase64, Encoding::kHex}) {
      cells.push_back({.backend = backend, .size = 1024, .codec = codec, .pool = true});
    }
    for (const std::size_t size : {64, 1024}) {
      cells.push_back({.backend = backend, .size = size, .pool = false});
    }
    cells.push_back({.backend = backend, .size = 64, .pool = true, .key = KeyHandling::kPerOp});
    // Which library for AES-GCM: a short record with a TLS header as AAD
    // (per-call and GHASH set-up costs), a full-MTU record, and bulk 16 KiB
    // (the AES and GHASH code itself), with AES-256 beside it; CTR at 16 KiB
    // separates the cost of GHASH from the cipher's; and opening (decrypt and
    // verify the tag) at the record size, where a library's open path may
    // differ from its seal path.
    const Cell gcm = {.backend = backend, .mode = Mode::kGcm, .pool = true};
    for (const auto& [size, aad] :
         {std::pair<std::size_t, std::size_t>{64, kTlsAad}, {1420, kTlsAad}, {16384, 0}}) {
      Cell cell = gcm;
      cell.size = size;
      cell.aad = aad;
      cells.push_back(cell);
    }
    cells.push_back(
        {.backend = backend, .mode = Mode::kGcm, .key_bytes = 32, .size = 16384, .pool = true});
    cells.push_back({.backend = backend, .mode = Mode::kCtr, .size = 16384, .pool = true});
    cells.push_back({.backend = backend,
                     .mode = Mode::kGcm,
                     .op = Op::kDecrypt,
                     .size = 1420,
                     .aad = kTlsAad,
                     .pool = true});
    for (const bool pool : kPools) {
      for (const int threads : {1, 2}) {
        cells.push_back(seed000_roundtrip(backend, pool, threads));
        cells.push_back(seed000_gcm_roundtrip(backend, pool, threads));
      }
    }
  }
  return cells;
}

// modes: every backend's AES-128 and AES-256 CTR and GCM, encryption and
// decryption (GCM: open, the tag checked) over the size ladder up to 1 MiB,
// GCM without and with a TLS record's 13 bytes of AAD at the sizes records
// have; 2 threads at 16 KiB; and, at the record size, pool off, a new key
// schedule per operation, Base64 and hex, for encryption, decryption and
// the roundtrip. Backends
// lacking a mode or key size (libsodium: AES-256-GCM only) have fewer cells.
std::vector<Cell> modes(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const Mode mode : {Mode::kCtr, Mode::kGcm}) {
      const bool gcm = mode == Mode::kGcm;
      for (const std::size_t key_bytes : {16, 32}) {
        const Cell base = {.scenario = "modes",
                           .backend = backend,
                           .mode = mode,
                           .key_bytes = key_bytes,
                           .pool = true};
        for (const Op op : {Op::kEncrypt, Op::kDecrypt}) {
          std::vector<std::size_t> sizes(std::begin(kCounterModeSizes),
                                         std::end(kCounterModeSizes));
          sizes.push_back(kMiB);
          for (const std::size_t size : sizes) {
            Cell cell = base;
            cell.op = op;
            cell.size = size;
            cells.push_back(cell);
            if (gcm && (size == 64 || size == 1420 || size == 16384)) {
              cell.aad = kTlsAad;
              cells.push_back(cell);
            }
          }
          Cell threads = base;
          threads.op = op;
          threads.size = 16384;
          threads.threads = 2;
          cells.push_back(threads);
        }
        Cell record = base;
        record.size = 1420;
        record.aad = gcm ? kTlsAad : 0;
        for (const Op op : kDataOps) {
          record.op = op;
          Cell cell = record;
          cell.pool = false;
          cells.push_back(cell);
          cell.key = KeyHandling::kPerOp;
          cells.push_back(cell);
          cell = record;
          cell.key = KeyHandling::kPerOp;
          cells.push_back(cell);
          for (const Encoding codec : {Encoding::kBase64, Encoding::kHex}) {
            cell = record;
            cell.codec = codec;
            cells.push_back(cell);
          }
        }
      }
    }
  }
  return cells;
}

std::vector<Cell> seed002(const std::vector<std::string>& backends, int cores) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const int threads : thread_ladder(cores)) {
      cells.push_back({.scenario = "seed002",
                       .backend = backend,
                       .key_bytes = 32,
                       .op = Op::kRoundtrip,
                       .size = kMiB,
                       .threads = threads});
    }
  }
  return cells;
}

std::vector<Cell> seed002_keys(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    // Where derivation stops mattering: AES-256-CBC roundtrips of the seed-000
    // message size and of 1 MiB, under every key handling.
    for (const std::size_t size : {std::size_t{107}, kMiB}) {
      std::vector<std::pair<KeyHandling, unsigned>> modes = {{KeyHandling::kCached, 0}};
      modes.insert(modes.end(), kKeyModes.begin(), kKeyModes.end());
      for (const auto& [key, iterations] : modes) {
        cells.push_back({.scenario = "seed002",
                         .backend = backend,
                         .key_bytes = 32,
                         .op = Op::kRoundtrip,
                         .size = size,
                         .key = key,
                         .pbkdf2_iterations = iterations});
      }
    }
    // The key setup alone: derivation (if any) and both AES-256 key schedules.
    for (const auto& [key, iterations] : kKeyModes) {
      cells.push_back({.scenario = "keysetup",
                       .backend = backend,
                       .key_bytes = 32,
                       .op = Op::kSetKey,
                       .pool = true,
                       .key = key,
                       .pbkdf2_iterations = iterations});
    }
  }
  return cells;
}

std::vector<Cell> seed003(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const Encoding codec : kCodecs) {
      for (const bool pool : kPools) {
        for (std::size_t size = 10; size <= 1000000; size *= 10) {
          cells.push_back({.scenario = "seed003",
                           .backend = backend,
                           .mode = Mode::kEcb,
                           .op = Op::kEncrypt,
                           .size = size,
                           .codec = codec,
                           .pool = pool});
        }
      }
    }
  }
  return cells;
}

std::vector<Cell> seed004(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const std::size_t size : {std::size_t{65536}, kMiB}) {
      for (const Op op : {Op::kEncrypt, Op::kEncryptLog}) {
        cells.push_back({.scenario = "seed004",
                         .backend = backend,
                         .op = op,
                         .size = size,
                         .codec = Encoding::kBase64});
      }
    }
  }
  return cells;
}

// bounds: one figure per backend and mode to set against the hardware bound
// (cryptobench-results bounds): 16 KiB, cached key, no codec, 1 thread; and
// multi-buffer CBC encryption of 16 messages of 1 KiB and of 16 KiB.
// libraries: the library comparison at a glance: every backend's AES-128-CBC
// encryption (a chain) and decryption (parallel) of a short message (64 B:
// per-call cost dominates) and a long one (16 KiB: the AES code does), and
// the seed-000 roundtrip, in CBC and GCM; one thread, pooled buffers, cached
// key.
std::vector<Cell> libraries(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const Op op : {Op::kEncrypt, Op::kDecrypt}) {
      for (const std::size_t size : {64, 16384}) {
        cells.push_back(
            {.scenario = "libraries", .backend = backend, .op = op, .size = size, .pool = true});
      }
    }
    cells.push_back(seed000_roundtrip(backend, true, 1));
    cells.push_back(seed000_gcm_roundtrip(backend, true, 1));
  }
  return cells;
}

std::vector<Cell> bounds(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const std::size_t key_bytes : {16, 32}) {
      for (const Mode mode : {Mode::kEcb, Mode::kCbc}) {
        for (const Op op : {Op::kEncrypt, Op::kDecrypt}) {
          cells.push_back({.scenario = "bounds",
                           .backend = backend,
                           .mode = mode,
                           .key_bytes = key_bytes,
                           .op = op,
                           .size = 16384,
                           .pool = true});
        }
      }
      for (const std::size_t size : {1024, 16384}) {
        cells.push_back({.scenario = "bounds",
                         .backend = backend,
                         .key_bytes = key_bytes,
                         .op = Op::kEncryptBatch,
                         .size = size,
                         .pool = true,
                         .messages = 16});
      }
    }
  }
  return cells;
}

// multibuffer: CBC encryption of many independent messages at once
// (encrypt-batch) against one message at a time (encrypt), by message count
// and size; and the seed-000 roundtrip with its encryptions batched.
std::vector<Cell> multibuffer(const std::vector<std::string>& backends, int /*cores*/) {
  std::vector<Cell> cells;
  for (const std::string& backend : backends) {
    for (const std::size_t size : {64, 256, 1024, 4096, 16384}) {
      cells.push_back({.scenario = "multibuffer",
                       .backend = backend,
                       .op = Op::kEncrypt,
                       .size = size,
                       .pool = true});
      for (const std::size_t messages : {1, 2, 4, 8, 16, 32, 64}) {
        cells.push_back({.scenario = "multibuffer",
                         .backend = backend,
                         .op = Op::kEncryptBatch,
                         .size = size,
                         .pool = true,
                         .messages = messages});
      }
    }
    for (const std::size_t key_bytes : {16, 32}) {
      cells.push_back({.scenario = "multibuffer",
                       .backend = backend,
                       .key_bytes = key_bytes,
                       .op = Op::kEncryptBatch,
                       .size = 1024,
                       .pool = true,
                       .key = KeyHandling::kPerOp,
                       .messages = 16});
    }
    // The seed-000 roundtrip one message at a time, as in the seed000 suite,
    // so batch and single compare within one run.
    cells.push_back(seed000_roundtrip(backend, true, 1));
    for (const std::size_t messages : {1, 4, 16, 64}) {
      cells.push_back({.scenario = "seed000",
                       .backend = backend,
                       .op = Op::kRoundtripBatch,
                       .size = 100,
                       .codec = Encoding::kBase64,
                       .pool = true,
                       .key = KeyHandling::kPerOp,
                       .payload = Payload::kSeed000Message,
                       .messages = messages});
    }
  }
  return cells;
}

std::vector<Cell> full(const std::vector<std::string>& backends, int cores) {
  std::vector<Cell> cells;
  const std::vector<int> threads_list = thread_ladder(cores);
  for (const std::string& backend : backends) {
    for (const Mode mode : {Mode::kEcb, Mode::kCbc}) {
      for (const std::size_t key_bytes : {16, 24, 32}) {
        for (const Op op : kDataOps) {
          // Derived keys change every operation: decrypt has no fixed input for them.
          std::vector<std::pair<KeyHandling, unsigned>> modes = {{KeyHandling::kCached, 0}};
          for (const auto& mode_and_iterations : kKeyModes) {
            if (op != Op::kDecrypt || mode_and_iterations.first == KeyHandling::kPerOp) {
              modes.push_back(mode_and_iterations);
            }
          }
          for (const std::size_t size : {16, 64, 107, 256, 1024, 4096, 16384, 65536, 1 << 20}) {
            for (const Encoding codec : kCodecs) {
              for (const bool pool : kPools) {
                for (const auto& [key, iterations] : modes) {
                  for (const int threads : threads_list) {
                    cells.push_back({.backend = backend,
                                     .mode = mode,
                                     .key_bytes = key_bytes,
                                     .op = op,
                                     .size = size,
                                     .codec = codec,
                                     .pool = pool,
                                     .key = key,
                                     .pbkdf2_iterations = iterations,
                                     .threads = threads});
                  }
                }
              }
            }
          }
        }
      }
    }
    // CTR and GCM: the same axes over their sizes (key handling cached or
    // per op), GCM with and without a TLS record's AAD.
    for (const Mode mode : {Mode::kCtr, Mode::kGcm}) {
      std::vector<std::size_t> aads = {0};
      if (mode == Mode::kGcm) aads.push_back(kTlsAad);
      std::vector<std::size_t> sizes(std::begin(kCounterModeSizes), std::end(kCounterModeSizes));
      sizes.push_back(kMiB);
      for (const std::size_t key_bytes : {16, 24, 32}) {
        for (const Op op : kDataOps) {
          for (const std::size_t size : sizes) {
            for (const std::size_t aad : aads) {
              for (const Encoding codec : kCodecs) {
                for (const bool pool : kPools) {
                  for (const KeyHandling key : {KeyHandling::kCached, KeyHandling::kPerOp}) {
                    for (const int threads : threads_list) {
                      cells.push_back({.backend = backend,
                                       .mode = mode,
                                       .key_bytes = key_bytes,
                                       .op = op,
                                       .size = size,
                                       .aad = aad,
                                       .codec = codec,
                                       .pool = pool,
                                       .key = key,
                                       .threads = threads});
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return cells;
}

}  // namespace

const std::vector<Suite>& suites() {
  static const std::vector<Suite> list = {
      {"decision",
       "default: the cells that separate libraries (AES-128-CBC encrypt/decrypt 16 B..16 KiB, "
       "2 threads, AES-256, Base64/hex, pool off, per-op key, the seed-000 roundtrip in CBC and "
       "GCM; AES-GCM encrypt 64 B+13 B AAD, 1420 B+13, 16 KiB, AES-256-GCM, AES-128-CTR 16 KiB, "
       "GCM decrypt 1420 B+13), 40 rounds of 4 ms (a class's backends side by side in each)",
       0.004, 40, decision},
      {"quick",
       "every backend x op x codec x pool, AES-128-CBC, cached key, 16 B..1 MiB, 1 and 2 "
       "threads, plus the seed000 thread sweep (CBC and GCM)",
       0.05, 1, quick},
      {"seed000",
       "seed 000: AES-128-CBC roundtrip of the 100-character message + counter, Base64, new key "
       "schedule per op, threads 1..2 x cores, and the same in AES-128-GCM (seed000-gcm); read "
       "ops_per_ms",
       0.5, 1, seed000},
      {"seed002",
       "seed 002: AES-256-CBC encrypt + verified decrypt of 1 MiB of fresh random data; read "
       "items_per_second (ops/s)",
       0.5, 1, seed002},
      {"seed003",
       "seed 003: AES-128-ECB encrypt, sizes 10 B..1 MB by 10x, pool off/on x codec, like go test "
       "-benchmem (ns/op, alloc_bytes_per_op, allocs_per_op)",
       0.2, 1, seed003},
      {"seed002-keys",
       "seed 002's finding: AES-256-CBC roundtrips of 107 B and 1 MiB under every key handling "
       "(cached, per-op schedule, HMAC-SHA256, PBKDF2 1000 and 10000), and the key setup alone",
       0.2, 1, seed002_keys},
      {"seed004",
       "seed 004: AES-128-CBC encrypt of 64 KiB and 1 MiB, without and with a Base64 log line "
       "formatted and written per operation (profile it with --cpuprofile)",
       0.2, 1, seed004},
      {"multibuffer",
       "multi-buffer AES-128-CBC encryption: encrypt-batch of 1..64 messages of 64 B..16 KiB "
       "against single-message encrypt, per-message keys, and the seed-000 roundtrip, single and "
       "batched (1, 4, 16, 64 messages); rates are per message",
       0.1, 1, multibuffer},
      {"bounds",
       "every backend's ECB/CBC encrypt/decrypt of 16 KiB and multi-buffer CBC encrypt (16 x "
       "1 KiB, 16 x 16 KiB), AES-128 and AES-256, for cryptobench-results bounds",
       0.2, 1, bounds},
      {"libraries",
       "every backend side by side: AES-128-CBC encrypt and decrypt of 64 B and 16 KiB and the "
       "seed-000 roundtrip (CBC and GCM), 1 thread, pool on (bounds.txt sets them against the "
       "hardware)",
       0.3, 1, libraries},
      {"modes",
       "AES-128/256 CTR and GCM, every backend: encrypt and decrypt (GCM: open, tag checked) of "
       "16 B..1 MiB with odd sizes (63, 1420, 4095), GCM without and with 13 B of AAD at 64 B, "
       "1420 B and 16 KiB, 2 threads at 16 KiB, and pool off, per-op key, Base64/hex for "
       "encrypt, decrypt and roundtrip at 1420 B",
       0.05, 1, modes},
      {"full", "the whole grid (tens of thousands of benchmarks: filter it)", 0.1, 1, full},
  };
  return list;
}

const Suite* find_suite(std::string_view name) {
  for (const Suite& s : suites()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string suite_names() {
  std::string names;
  for (const Suite& s : suites()) {
    if (!names.empty()) names += ", ";
    names += s.name;
  }
  return names;
}

}  // namespace cryptobench::bench
