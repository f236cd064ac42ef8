/* hostile_plugin.c: plugins that break the ABI's rules on purpose, one per
 * FAULT, for tests/plugins_test.py. Each is otherwise a correct AES-ECB and
 * AES-GCM over OpenSSL EVP, so the fault alone is what cryptobench must
 * catch:
 *   none          correct (the control)
 *   no_entry      exports no cryptobench_plugin_v1
 *   wrong_abi     says ABI version 2
 *   name_clash    calls itself "openssl"
 *   wrong_output  ECB: flips a bit of the second block of longer messages
 *   overrun       ECB: writes one byte past its output
 *   error_code    set_key reports an error
 *   crash         encrypt_blocks dereferences NULL
 *   forged_tag    gcm_open accepts any tag
 *   hang          set_key never returns (and turns the self-check's alarm off)
 *   two_faced     claims ECB alone while its self-check runs (an alarm is
 *                 pending), ECB and GCM otherwise */
#include <openssl/evp.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "plugin/cryptobench_plugin.h"

#define IS(f) (strcmp(FAULT, #f) == 0)

struct cryptobench_plugin_context {
  uint32_t mode;
  size_t key_size;
  uint8_t key[32];
};

static cryptobench_plugin_context *new_context(uint32_t mode) {
  cryptobench_plugin_context *ctx = calloc(1, sizeof *ctx);
  if (ctx != NULL) ctx->mode = mode;
  return ctx;
}

static void free_context(cryptobench_plugin_context *ctx) { free(ctx); }

static int set_key(cryptobench_plugin_context *ctx, const uint8_t *key, size_t key_size) {
  if (IS(error_code)) return CRYPTOBENCH_PLUGIN_ERROR;
  if (IS(hang)) {
    alarm(0);
    signal(SIGALRM, SIG_IGN);
    for (;;) pause();
  }
  memcpy(ctx->key, key, key_size);
  ctx->key_size = key_size;
  return CRYPTOBENCH_PLUGIN_OK;
}

static const EVP_CIPHER *ecb(size_t key_size) {
  return key_size == 16 ? EVP_aes_128_ecb() : key_size == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
}

static int blocks_op(cryptobench_plugin_context *ctx, int enc, const uint8_t *in, uint8_t *out,
                     size_t blocks) {
  EVP_CIPHER_CTX *evp = EVP_CIPHER_CTX_new();
  int n = 0;
  int ok = EVP_CipherInit_ex(evp, ecb(ctx->key_size), NULL, ctx->key, NULL, enc) == 1 &&
           EVP_CIPHER_CTX_set_padding(evp, 0) == 1 &&
           EVP_CipherUpdate(evp, out, &n, in, (int)(blocks * 16)) == 1;
  EVP_CIPHER_CTX_free(evp);
  if (IS(wrong_output) && enc && blocks >= 2) out[17] ^= 1;
  if (IS(overrun)) out[blocks * 16] = 0;
  return ok ? CRYPTOBENCH_PLUGIN_OK : CRYPTOBENCH_PLUGIN_ERROR;
}

static int encrypt_blocks(cryptobench_plugin_context *ctx, const uint8_t *iv, const uint8_t *in,
                          uint8_t *out, size_t blocks) {
  (void)iv;
  if (IS(crash)) {
    volatile uint8_t *nowhere = NULL;
    *nowhere = in[0];
  }
  return blocks_op(ctx, 1, in, out, blocks);
}

static int decrypt_blocks(cryptobench_plugin_context *ctx, const uint8_t *iv, const uint8_t *in,
                          uint8_t *out, size_t blocks) {
  (void)iv;
  return blocks_op(ctx, 0, in, out, blocks);
}

static int gcm(cryptobench_plugin_context *ctx, int seal, const uint8_t *nonce, size_t nonce_size,
               const uint8_t *aad, size_t aad_size, const uint8_t *in, uint8_t *out, size_t size,
               uint8_t *tag, size_t tag_size) {
  const EVP_CIPHER *c = ctx->key_size == 16   ? EVP_aes_128_gcm()
                        : ctx->key_size == 24 ? EVP_aes_192_gcm()
                                              : EVP_aes_256_gcm();
  EVP_CIPHER_CTX *evp = EVP_CIPHER_CTX_new();
  int n = 0;
  int ok = EVP_CipherInit_ex(evp, c, NULL, NULL, NULL, seal) == 1 &&
           EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_SET_IVLEN, (int)nonce_size, NULL) == 1 &&
           EVP_CipherInit_ex(evp, NULL, NULL, ctx->key, nonce, seal) == 1;
  if (ok && aad_size > 0) ok = EVP_CipherUpdate(evp, NULL, &n, aad, (int)aad_size) == 1;
  if (ok && size > 0) ok = EVP_CipherUpdate(evp, out, &n, in, (int)size) == 1;
  if (ok && !seal) ok = EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_SET_TAG, (int)tag_size, tag) == 1;
  int final = ok && EVP_CipherFinal_ex(evp, out, &n) == 1;
  if (ok && seal) ok = EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_GET_TAG, (int)tag_size, tag) == 1;
  EVP_CIPHER_CTX_free(evp);
  if (!seal && ok && !final) return IS(forged_tag) ? CRYPTOBENCH_PLUGIN_OK : CRYPTOBENCH_PLUGIN_BAD_TAG;
  return ok && final ? CRYPTOBENCH_PLUGIN_OK : CRYPTOBENCH_PLUGIN_ERROR;
}

static int gcm_seal(cryptobench_plugin_context *ctx, const uint8_t *nonce, size_t nonce_size,
                    const uint8_t *aad, size_t aad_size, const uint8_t *in, uint8_t *out,
                    size_t size, uint8_t *tag, size_t tag_size) {
  return gcm(ctx, 1, nonce, nonce_size, aad, aad_size, in, out, size, tag, tag_size);
}

static int gcm_open(cryptobench_plugin_context *ctx, const uint8_t *nonce, size_t nonce_size,
                    const uint8_t *aad, size_t aad_size, const uint8_t *in, uint8_t *out,
                    size_t size, const uint8_t *tag, size_t tag_size) {
  return gcm(ctx, 0, nonce, nonce_size, aad, aad_size, in, out, size, (uint8_t *)tag, tag_size);
}

static const struct cryptobench_plugin *table(void) {
  static struct cryptobench_plugin t;
  t.abi_version = IS(wrong_abi) ? 2 : CRYPTOBENCH_PLUGIN_ABI_VERSION;
  t.table_size = sizeof t;
  t.name = IS(name_clash) ? "openssl" : "hostile-" FAULT_NAME;
  t.library = "the tests' hostile plugin (" FAULT ")";
  t.version = "1";
  t.code_path = "OpenSSL EVP, one context per call";
  t.modes = CRYPTOBENCH_PLUGIN_ECB | CRYPTOBENCH_PLUGIN_GCM;
  if (IS(two_faced)) {
    const unsigned left = alarm(0);
    if (left > 0) {
      alarm(left);
      t.modes = CRYPTOBENCH_PLUGIN_ECB;
    }
  }
  t.key_sizes = CRYPTOBENCH_PLUGIN_AES128 | CRYPTOBENCH_PLUGIN_AES256;
  t.register_bits = 128;
  t.gcm_min_tag = 4;
  t.gcm_max_nonce = 128;
  t.new_context = new_context;
  t.free_context = free_context;
  t.set_key = set_key;
  t.encrypt_blocks = encrypt_blocks;
  t.decrypt_blocks = decrypt_blocks;
  t.gcm_seal = gcm_seal;
  t.gcm_open = gcm_open;
  return &t;
}

#ifndef NO_ENTRY
CRYPTOBENCH_PLUGIN_EXPORT const struct cryptobench_plugin *cryptobench_plugin_v1(void) {
  return table();
}
#else
CRYPTOBENCH_PLUGIN_EXPORT const struct cryptobench_plugin *cryptobench_plugin(void) {
  return table();
}
#endif
