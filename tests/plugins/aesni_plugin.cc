// aesni_plugin.cc: the hand-written AES-NI kernels (kernels/aesni) behind the
// plugin ABI, to measure what the ABI costs: the same code as the built-in
// `aesni` backend, reached through cryptobench's plugin adapter and a C
// function table instead of a C++ virtual call.
#include <cstdlib>
#include <new>

#include "kernels/aesni/aesni_kernels.h"
#include "plugin/cryptobench_plugin.h"

namespace {

using cryptobench::aesni::KeySchedule;
using cryptobench::aesni::xmm_kernels;

}  // namespace

struct cryptobench_plugin_context {
  KeySchedule schedule;
};

namespace {

cryptobench_plugin_context* new_context(uint32_t) {
  return new (std::nothrow) cryptobench_plugin_context{};
}

void free_context(cryptobench_plugin_context* ctx) { delete ctx; }

int set_key(cryptobench_plugin_context* ctx, const uint8_t* key, size_t key_size) {
  cryptobench::aesni::expand_key(key, key_size, &ctx->schedule);
  return CRYPTOBENCH_PLUGIN_OK;
}

int encrypt_blocks(cryptobench_plugin_context* ctx, const uint8_t* iv, const uint8_t* in,
                   uint8_t* out, size_t blocks) {
  if (iv == nullptr) {
    xmm_kernels().ecb_encrypt(ctx->schedule, in, out, blocks);
  } else {
    xmm_kernels().cbc_encrypt(ctx->schedule, iv, in, out, blocks, nullptr);
  }
  return CRYPTOBENCH_PLUGIN_OK;
}

int decrypt_blocks(cryptobench_plugin_context* ctx, const uint8_t* iv, const uint8_t* in,
                   uint8_t* out, size_t blocks) {
  if (iv == nullptr) {
    xmm_kernels().ecb_decrypt(ctx->schedule, in, out, blocks);
  } else {
    xmm_kernels().cbc_decrypt(ctx->schedule, iv, in, out, blocks);
  }
  return CRYPTOBENCH_PLUGIN_OK;
}

int ctr_crypt(cryptobench_plugin_context* ctx, const uint8_t* counter, const uint8_t* in,
              uint8_t* out, size_t size) {
  xmm_kernels().ctr_crypt(ctx->schedule, counter, in, out, size);
  return CRYPTOBENCH_PLUGIN_OK;
}

cryptobench_plugin make_table() {
  cryptobench_plugin t{};
  t.abi_version = CRYPTOBENCH_PLUGIN_ABI_VERSION;
  t.table_size = sizeof t;
  t.name = "aesni-plugin";
  t.library = "cryptobench's hand-written AES-NI, as a plugin";
  t.version = "the tree it was built from";
  t.code_path = "the aesni backend's kernels (8 blocks interleaved; serial CBC encrypt)";
  t.limits = "the tests' plugin: run only on a CPU with AES-NI";
  t.modes = CRYPTOBENCH_PLUGIN_ECB | CRYPTOBENCH_PLUGIN_CBC | CRYPTOBENCH_PLUGIN_CTR;
  t.key_sizes = CRYPTOBENCH_PLUGIN_AES128 | CRYPTOBENCH_PLUGIN_AES192 | CRYPTOBENCH_PLUGIN_AES256;
  t.register_bits = 128;
  t.ctr_counter_bits = 128;
  t.new_context = new_context;
  t.free_context = free_context;
  t.set_key = set_key;
  t.encrypt_blocks = encrypt_blocks;
  t.decrypt_blocks = decrypt_blocks;
  t.ctr_crypt = ctr_crypt;
  return t;
}

}  // namespace

extern "C" CRYPTOBENCH_PLUGIN_EXPORT const cryptobench_plugin* cryptobench_plugin_v1() {
  static const cryptobench_plugin table = make_table();
  return &table;
}
