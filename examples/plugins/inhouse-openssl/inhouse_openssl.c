/* inhouse_openssl.c: the in-house wrapper teams write (seed 002), as a
 * cryptobench plugin: a thin C layer over OpenSSL's EVP API that, on every
 * call, allocates a new cipher context, initialises it with the key and
 * frees it. It keeps only the key's bytes between calls, so nothing about
 * the key is reused. Measured beside the `openssl` backend (which keeps its
 * contexts), the answer shows what that habit costs. */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/cryptobench_plugin.h"

struct cryptobench_plugin_context {
  uint32_t mode;
  size_t key_size;
  uint8_t key[32];
};

static const EVP_CIPHER *cipher_of(uint32_t mode, size_t key_size) {
  switch (mode) {
    case CRYPTOBENCH_PLUGIN_ECB:
      return key_size == 16 ? EVP_aes_128_ecb() : key_size == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
    case CRYPTOBENCH_PLUGIN_CBC:
      return key_size == 16 ? EVP_aes_128_cbc() : key_size == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
    case CRYPTOBENCH_PLUGIN_CTR:
      return key_size == 16 ? EVP_aes_128_ctr() : key_size == 24 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
    default:
      return key_size == 16 ? EVP_aes_128_gcm() : key_size == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
  }
}

static cryptobench_plugin_context *new_context(uint32_t mode) {
  cryptobench_plugin_context *ctx = calloc(1, sizeof *ctx);
  if (ctx != NULL) ctx->mode = mode;
  return ctx;
}

static void free_context(cryptobench_plugin_context *ctx) {
  if (ctx == NULL) return;
  OPENSSL_cleanse(ctx->key, sizeof ctx->key);
  free(ctx);
}

static int set_key(cryptobench_plugin_context *ctx, const uint8_t *key, size_t key_size) {
  if (key_size > sizeof ctx->key) return CRYPTOBENCH_PLUGIN_ERROR;
  memcpy(ctx->key, key, key_size);
  ctx->key_size = key_size;
  return CRYPTOBENCH_PLUGIN_OK;
}

/* One call, one context: what the wrapper does for every message. */
static int crypt(const cryptobench_plugin_context *ctx, int encrypt, const uint8_t *iv,
                 const uint8_t *in, uint8_t *out, size_t size) {
  EVP_CIPHER_CTX *evp = EVP_CIPHER_CTX_new();
  int ok = evp != NULL &&
           EVP_CipherInit_ex(evp, cipher_of(ctx->mode, ctx->key_size), NULL, ctx->key, iv,
                             encrypt) == 1 &&
           EVP_CIPHER_CTX_set_padding(evp, 0) == 1;
  int written = 0, tail = 0;
  ok = ok && size <= (size_t)INT32_MAX &&
       EVP_CipherUpdate(evp, out, &written, in, (int)size) == 1 &&
       EVP_CipherFinal_ex(evp, out + written, &tail) == 1 && (size_t)(written + tail) == size;
  EVP_CIPHER_CTX_free(evp);
  return ok ? CRYPTOBENCH_PLUGIN_OK : CRYPTOBENCH_PLUGIN_ERROR;
}

static int encrypt_blocks(cryptobench_plugin_context *ctx, const uint8_t *iv, const uint8_t *in,
                          uint8_t *out, size_t blocks) {
  return crypt(ctx, 1, iv, in, out, blocks * 16);
}

static int decrypt_blocks(cryptobench_plugin_context *ctx, const uint8_t *iv, const uint8_t *in,
                          uint8_t *out, size_t blocks) {
  return crypt(ctx, 0, iv, in, out, blocks * 16);
}

static int ctr_crypt(cryptobench_plugin_context *ctx, const uint8_t *counter, const uint8_t *in,
                     uint8_t *out, size_t size) {
  return crypt(ctx, 1, counter, in, out, size);
}

static int gcm(const cryptobench_plugin_context *ctx, int seal, const uint8_t *nonce,
               size_t nonce_size, const uint8_t *aad, size_t aad_size, const uint8_t *in,
               uint8_t *out, size_t size, uint8_t *tag, size_t tag_size) {
  if (size > (size_t)INT32_MAX || aad_size > (size_t)INT32_MAX) return CRYPTOBENCH_PLUGIN_ERROR;
  EVP_CIPHER_CTX *evp = EVP_CIPHER_CTX_new();
  int ok = evp != NULL &&
           EVP_CipherInit_ex(evp, cipher_of(CRYPTOBENCH_PLUGIN_GCM, ctx->key_size), NULL, NULL,
                             NULL, seal) == 1 &&
           EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_SET_IVLEN, (int)nonce_size, NULL) == 1 &&
           EVP_CipherInit_ex(evp, NULL, NULL, ctx->key, nonce, seal) == 1;
  int n = 0;
  if (ok && aad_size > 0) ok = EVP_CipherUpdate(evp, NULL, &n, aad, (int)aad_size) == 1;
  if (ok && size > 0) ok = EVP_CipherUpdate(evp, out, &n, in, (int)size) == 1;
  if (ok && !seal) ok = EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_SET_TAG, (int)tag_size, tag) == 1;
  int verified = ok;
  if (ok) {
    verified = EVP_CipherFinal_ex(evp, out + (size > 0 ? n : 0), &n) == 1;
    if (!seal && !verified) {
      EVP_CIPHER_CTX_free(evp);
      return CRYPTOBENCH_PLUGIN_BAD_TAG;
    }
  }
  if (ok && seal) ok = EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_GCM_GET_TAG, (int)tag_size, tag) == 1;
  EVP_CIPHER_CTX_free(evp);
  return ok && verified ? CRYPTOBENCH_PLUGIN_OK : CRYPTOBENCH_PLUGIN_ERROR;
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

CRYPTOBENCH_PLUGIN_EXPORT const struct cryptobench_plugin *cryptobench_plugin_v1(void) {
  static struct cryptobench_plugin table;
  static char version[64];
  if (table.abi_version == 0) {
    /* The OpenSSL this process runs, not the one it was built against. */
    strncpy(version, OpenSSL_version(OPENSSL_VERSION), sizeof version - 1);
    table.abi_version = CRYPTOBENCH_PLUGIN_ABI_VERSION;
    table.table_size = sizeof table;
    table.name = "inhouse-openssl";
    table.library = "in-house wrapper over OpenSSL EVP (a new context per call)";
    table.version = version;
    table.code_path =
        "OpenSSL EVP's AES (AES-NI/VAES where the CPU has them), a context allocated and keyed "
        "on every call";
    table.limits = "";
    table.modes = CRYPTOBENCH_PLUGIN_ECB | CRYPTOBENCH_PLUGIN_CBC | CRYPTOBENCH_PLUGIN_CTR |
                  CRYPTOBENCH_PLUGIN_GCM;
    table.key_sizes = CRYPTOBENCH_PLUGIN_AES128 | CRYPTOBENCH_PLUGIN_AES192 |
                      CRYPTOBENCH_PLUGIN_AES256;
    table.register_bits = __builtin_cpu_supports("aes") ? 128 : 0;
    table.ctr_counter_bits = 128;
    table.gcm_nonce_12_only = 0;
    table.gcm_min_tag = 4;
    table.gcm_max_nonce = 128; /* OpenSSL's default provider keeps 128 bytes of IV */
    table.new_context = new_context;
    table.free_context = free_context;
    table.set_key = set_key;
    table.encrypt_blocks = encrypt_blocks;
    table.decrypt_blocks = decrypt_blocks;
    table.ctr_crypt = ctr_crypt;
    table.gcm_seal = gcm_seal;
    table.gcm_open = gcm_open;
  }
  return &table;
}
