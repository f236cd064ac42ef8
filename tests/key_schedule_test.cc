// key_schedule_test.cc: the hand-written kernels' batched key expansion
// (several schedules interleaved, one per register lane) must produce exactly
// what the one-key expansion does, for every key size, every count around
// the lane groups, and every register width this CPU can run.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/cpu_features.h"
#include "kernels/vaes/vaes_kernels.h"

namespace cryptobench {
namespace {

struct Table {
  const char* name;
  const aesni::BlockKernels* kernels;  // nullptr: this CPU cannot run it
};

std::vector<Table> tables() {
  const CpuFeatures& cpu = cpu_features();
  std::vector<Table> t = {{"xmm", cpu.aesni && cpu.sse41 ? &aesni::xmm_kernels() : nullptr}};
  t.push_back({"ymm", cpu.aesni && cpu.vaes && cpu.avx2 ? &vaes::ymm_kernels() : nullptr});
  t.push_back({"zmm", cpu.aesni && cpu.vaes && cpu.avx512f ? &vaes::zmm_kernels() : nullptr});
  return t;
}

TEST(KeySchedule, BatchedExpansionEqualsOneKeyAtATime) {
  std::mt19937_64 rng(31);
  int checked = 0;
  for (const Table& table : tables()) {
    if (table.kernels == nullptr) {
      std::printf("skipped %s: this CPU cannot run it\n", table.name);
      continue;
    }
    for (const std::size_t key_size : {16u, 24u, 32u}) {
      for (std::size_t n = 1; n <= 37; ++n) {
        SCOPED_TRACE(::testing::Message() << table.name << " key " << key_size * 8 << " n " << n);
        std::vector<std::vector<std::uint8_t>> keys(n, std::vector<std::uint8_t>(key_size));
        std::vector<const std::uint8_t*> key_ptrs;
        for (auto& k : keys) {
          for (auto& b : k) b = static_cast<std::uint8_t>(rng());
          key_ptrs.push_back(k.data());
        }
        std::vector<aesni::KeySchedule> batched(n), single(n);
        std::vector<aesni::KeySchedule*> out;
        for (auto& s : batched) {
          std::memset(static_cast<void*>(&s), 0x5a, sizeof s);
          out.push_back(&s);
        }
        table.kernels->expand_keys(key_ptrs.data(), key_size, out.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
          std::memset(static_cast<void*>(&single[i]), 0x5a, sizeof single[i]);
          aesni::expand_key(keys[i].data(), key_size, &single[i]);
          ASSERT_EQ(batched[i].rounds, single[i].rounds) << "key " << i;
          const std::size_t used = static_cast<std::size_t>(single[i].rounds + 1) * 16;
          ASSERT_EQ(std::memcmp(batched[i].enc, single[i].enc, used), 0) << "enc, key " << i;
          ASSERT_EQ(std::memcmp(batched[i].dec, single[i].dec, used), 0) << "dec, key " << i;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace cryptobench
