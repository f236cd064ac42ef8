// registry_test.cc: names, errors and CPU gating of the backend registry.
#include "kernels/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "kernels/cpu_features.h"

namespace cryptobench {
namespace {

bool aes_masked() {
  const char* mask = std::getenv("CRYPTOBENCH_CPU_MASK");
  return mask != nullptr && std::string(mask).find("aes") != std::string::npos;
}

TEST(Registry, UnknownBackendIsAnErrorNamingItAndTheChoices) {
  try {
    (void)open_backend("no-such-backend");
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'no-such-backend'"), std::string::npos) << message;
    for (const BackendEntry* entry : compiled_backends()) {
      EXPECT_NE(message.find(entry->name), std::string::npos) << message;
    }
  }
}

// The rules a run resolves its backends by: verified against another
// library that offers the same modes, a fallback KDF of a library's own, and
// the facts tools read, for every usable backend.
TEST(Registry, ReferenceIsAnotherLibraryWithTheSameModes) {
  for (const std::string& name : usable_backend_names()) {
    const std::string ref = reference_backend_name(name);
    if (ref == name) continue;  // a single usable backend
    const BackendInfo mine = open_backend(name)->info(), theirs = open_backend(ref)->info();
    for (const Mode m : mine.modes) {
      if (is_block_mode(m)) {
        EXPECT_TRUE(theirs.offers(m)) << name << " vs " << ref;
      }
    }
    const bool other_library_exists = [&] {
      for (const std::string& other : usable_backend_names()) {
        if (std::string(find_backend(other)->library) != find_backend(name)->library) return true;
      }
      return false;
    }();
    if (other_library_exists) {
      EXPECT_NE(std::string(find_backend(ref)->library), find_backend(name)->library) << name;
    }
  }
}

// CTR and GCM are verified per key size against another backend that offers
// that mode and key size (another library when there is one), never the
// backend itself; a mode or key size a backend lacks is not offered.
TEST(Registry, CounterModeReferenceOffersTheModeAndKeySize) {
  for (const std::string& name : usable_backend_names()) {
    const std::unique_ptr<AesBackend> backend = open_backend(name);
    for (const Mode mode : {Mode::kCtr, Mode::kGcm}) {
      for (const std::size_t key_bytes : {16, 24, 32}) {
        if (!offers_key(*backend, mode, key_bytes)) {
          if (backend->info().offers(mode) && mode == Mode::kGcm) {
            EXPECT_FALSE(backend->make_gcm()->limits().allows_key(key_bytes)) << name;
          }
          continue;
        }
        const std::string ref = counter_mode_reference_name(name, mode, key_bytes);
        ASSERT_FALSE(ref.empty()) << name << " " << mode_name(mode) << " " << key_bytes;
        EXPECT_NE(ref, name);
        EXPECT_TRUE(offers_key(*open_backend(ref), mode, key_bytes)) << name << " vs " << ref;
        EXPECT_NE(std::string(find_backend(ref)->library), find_backend(name)->library) << name;
      }
    }
  }
  if (find_backend("sodium") != nullptr && unusable_reason(*find_backend("sodium")).empty()) {
    const std::unique_ptr<AesBackend> sodium = open_backend("sodium");
    EXPECT_FALSE(offers_key(*sodium, Mode::kGcm, 16));  // AES-256-GCM only
    EXPECT_TRUE(offers_key(*sodium, Mode::kGcm, 32));
    EXPECT_FALSE(offers_key(*sodium, Mode::kCtr, 32));
    const BackendSet set({"sodium"});
    EXPECT_FALSE(set.members()[0].offers(Mode::kGcm, 16));
    EXPECT_EQ(set.members()[0].reference_for(Mode::kGcm, 16), nullptr);
    EXPECT_NE(set.members()[0].reference_for(Mode::kGcm, 32), nullptr);
  }
}

TEST(Registry, FallbackKdfIsALibrarysOwn) {
  const std::string fallback = fallback_kdf_backend_name();
  ASSERT_FALSE(fallback.empty());
  EXPECT_FALSE(open_backend(fallback)->info().kdf.empty());
  for (const std::string& name : usable_backend_names()) {
    EXPECT_NE(open_backend(name)->key_deriver(), nullptr) << name;
  }
}

TEST(Registry, BackendSetOpensEachOnceAndRefusesDuplicates) {
  const std::vector<std::string> usable = usable_backend_names();
  const BackendSet all({});
  EXPECT_EQ(all.names(), usable);
  const auto context = all.context();
  for (const std::string& name : usable) {
    for (const char* field : {"library", "code_path", "codec", "codec_source", "kdf", "kdf_source",
                              "register_bits", "batch_lanes", "modes", "verified_against"}) {
      const std::string key = "backend." + name + "." + field;
      EXPECT_TRUE(std::any_of(context.begin(), context.end(), [&](const auto& kv) {
        return kv.first == key && !kv.second.empty();
      })) << key;
    }
  }
  EXPECT_THROW(BackendSet({usable.front(), usable.front()}), BackendError);
  EXPECT_THROW(BackendSet({"no-such-backend"}), BackendError);
}

TEST(Registry, EveryUsableBackendReportsWhatItRuns) {
  ASSERT_FALSE(usable_backend_names().empty());
  for (const std::string& name : usable_backend_names()) {
    const BackendInfo info = open_backend(name)->info();
    EXPECT_EQ(info.name, name);
    EXPECT_FALSE(info.library.empty());
    EXPECT_FALSE(info.version.empty());
    EXPECT_FALSE(info.code_path.empty());
    EXPECT_FALSE(info.codec.empty());
  }
}

TEST(Registry, HandWrittenBackendIsGatedOnAesNi) {
  const BackendEntry* entry = find_backend("aesni");
  if (entry == nullptr) GTEST_SKIP() << "the aesni backend is not compiled in";
  EXPECT_EQ(unusable_reason(*entry).empty(), cpu_features().aesni && cpu_features().sse41);
  if (!cpu_features().aesni) {
    // With CRYPTOBENCH_CPU_MASK=aes (a CTest case sets it) the backend must be
    // refused by name, never substituted.
    try {
      (void)open_backend("aesni");
      FAIL() << "expected BackendError";
    } catch (const BackendError& e) {
      EXPECT_NE(std::string(e.what()).find("'aesni'"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("AES-NI"), std::string::npos);
    }
  }
}

TEST(CpuFeatures, MaskTurnsFlagsOff) {
  const CpuFeatures masked = detect_cpu_features("aes,vaes,avx2");
  EXPECT_FALSE(masked.aesni);
  EXPECT_FALSE(masked.vaes);
  EXPECT_FALSE(masked.avx2);
  EXPECT_EQ(masked.model, hardware_cpu_features().model);
  EXPECT_EQ(cpu_features().aesni, hardware_cpu_features().aesni && !aes_masked());
}

TEST(CpuFeatures, DetectedOnceAndCached) {
  EXPECT_EQ(&cpu_features(), &cpu_features());
  EXPECT_EQ(&hardware_cpu_features(), &hardware_cpu_features());
}

}  // namespace
}  // namespace cryptobench
