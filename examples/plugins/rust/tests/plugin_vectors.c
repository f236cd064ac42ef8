/* plugin_vectors.c: the Rust plugin's own standalone test, through the C ABI
 * only (dlopen, cryptobench_plugin_v1, the table), independent of
 * cryptobench's loader: the table's facts, NIST SP 800-38A ECB/CBC, the GCM
 * spec's test cases 2, 4 and 14 (and a tampered tag), RFC 3686 CTR (and
 * 128-bit counter carries), RFC 4648 Base64 / hex, RFC 4231 HMAC-SHA256 case
 * 1, PBKDF2-HMAC-SHA256, and errors for calls the plugin does not claim.
 *
 * usage: plugin_vectors PATH/librust_aes.so [WHY-NOT-BUILT]
 * Exit status: 0 all pass; 1 a check failed (each failure is printed);
 * 77 (skipped) the plugin was not built here (the reason is printed).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/cryptobench_plugin.h"

static const struct cryptobench_plugin *P;
static int failures;

#define CHECK(cond, ...)                        \
  do {                                          \
    if (!(cond)) {                              \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);             \
      fputc('\n', stderr);                      \
      failures++;                               \
    }                                           \
  } while (0)

/* unhex: `text` (even length) into `out`; returns the byte count. */
static size_t unhex(const char *text, uint8_t *out) {
  size_t n = strlen(text) / 2;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(text + 2 * i, "%2x", &v);
    out[i] = (uint8_t)v;
  }
  return n;
}

static int same(const uint8_t *got, const char *want_hex, size_t n) {
  uint8_t want[512];
  return unhex(want_hex, want) == n && memcmp(got, want, n) == 0;
}

/* ---- ECB and CBC: NIST SP 800-38A F.1.1, F.1.5, F.2.1, F.2.5. ---- */

static const char *kPlain =
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char *kKey128 = "2b7e151628aed2a6abf7158809cf4f3c";
static const char *kKey256 = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";

static void block_mode(uint32_t mode, const char *what, const char *key_hex, const char *cipher_hex) {
  uint8_t key[32], iv[16], plain[64], out[64], back[64];
  size_t key_size = unhex(key_hex, key);
  unhex("000102030405060708090a0b0c0d0e0f", iv);
  unhex(kPlain, plain);
  const uint8_t *chain = mode == CRYPTOBENCH_PLUGIN_CBC ? iv : NULL;
  cryptobench_plugin_context *ctx = P->new_context(mode);
  CHECK(ctx != NULL, "%s: new_context", what);
  if (ctx == NULL) return;
  CHECK(P->set_key(ctx, key, key_size) == CRYPTOBENCH_PLUGIN_OK, "%s: set_key", what);
  CHECK(P->encrypt_blocks(ctx, chain, plain, out, 4) == 0, "%s: encrypt", what);
  CHECK(same(out, cipher_hex, 64), "%s: ciphertext differs from NIST SP 800-38A", what);
  CHECK(P->decrypt_blocks(ctx, chain, out, back, 4) == 0, "%s: decrypt", what);
  CHECK(memcmp(back, plain, 64) == 0, "%s: decryption is not the plaintext", what);
  /* In place, and one block at a time with the chaining value carried by
   * the caller (for CBC: the previous ciphertext block). */
  memcpy(back, plain, 64);
  CHECK(P->encrypt_blocks(ctx, chain, back, back, 4) == 0 && memcmp(back, out, 64) == 0,
        "%s: in-place encryption differs", what);
  for (int b = 0; b < 4; b++) {
    const uint8_t *v = mode == CRYPTOBENCH_PLUGIN_CBC ? (b == 0 ? iv : out + 16 * (b - 1)) : NULL;
    uint8_t one[16];
    CHECK(P->decrypt_blocks(ctx, v, out + 16 * b, one, 1) == 0 &&
              memcmp(one, plain + 16 * b, 16) == 0,
          "%s: block %d decrypted alone differs", what, b);
  }
  CHECK(P->encrypt_blocks(ctx, chain, plain, out, 0) != 0, "%s: 0 blocks accepted", what);
  CHECK(P->ctr_crypt(ctx, iv, plain, out, 16) != 0, "%s: CTR on a block-mode context accepted", what);
  P->free_context(ctx);
}

/* ---- CTR: RFC 3686 test vectors 2, 3 and 7; 128-bit counter carries. ---- */

static void ctr_case(const char *what, const char *key_hex, const char *counter_hex,
                     const uint8_t *plain, size_t size, const char *cipher_hex, size_t check_from) {
  uint8_t key[32], counter[16], out[512], back[512];
  size_t key_size = unhex(key_hex, key);
  unhex(counter_hex, counter);
  cryptobench_plugin_context *ctx = P->new_context(CRYPTOBENCH_PLUGIN_CTR);
  CHECK(ctx != NULL && P->set_key(ctx, key, key_size) == 0, "%s: context and key", what);
  if (ctx == NULL) return;
  CHECK(P->ctr_crypt(ctx, counter, plain, out, size) == 0, "%s: ctr_crypt", what);
  CHECK(same(out + check_from, cipher_hex, size - check_from), "%s: keystream differs", what);
  memcpy(back, out, size);
  CHECK(P->ctr_crypt(ctx, counter, back, back, size) == 0 && memcmp(back, plain, size) == 0,
        "%s: in-place decryption is not the plaintext", what);
  P->free_context(ctx);
}

static void ctr(void) {
  uint8_t plain[512];
  for (int i = 0; i < 256; i++) plain[i] = (uint8_t)i;
  memset(plain + 256, 0, sizeof plain - 256);
  ctr_case("RFC 3686 #2 (AES-128, 32 B)", "7E24067817FAE0D743D6CE1F32539163",
           "006CB6DBC0543B59DA48D90B00000001", plain, 32,
           "5104A106168A72D9790D41EE8EDAD388EB2E1EFC46DA57C8FCE630DF9141BE28", 0);
  ctr_case("RFC 3686 #3 (AES-128, 36 B)", "7691BE035E5020A8AC6E618529F9A0DC",
           "00E0017B27777F3F4A1786F000000001", plain, 36,
           "C1CF48A89F2FFDD9CF4652E9EFDB72D74540A42BDE6D7836D59A5CEAAEF3105325B2072F", 0);
  ctr_case("RFC 3686 #7 (AES-256, 16 B)",
           "776BEFF2851DB06F4C8A0542C8696F6C6A81AF1EEC96B4D37FC1D689E6C1C104",
           "00000060DB5672C97AA8F0B200000001", (const uint8_t *)"Single block msg", 16,
           "145AD01DBF824EC7560863DC71E3E0C0", 0);
  uint8_t zeros[64] = {0};
  ctr_case("carry from the low 64 bits into the high 64", kKey128,
           "0000000000000000fffffffffffffffe", zeros, 40,
           "52f82d2d30250cf2a1bd084f0c060af0ef8737b783c4fa88e687ee9467073f6edc0a3bc38609c26f", 0);
  ctr_case("wrap of all 128 bits", kKey128, "ffffffffffffffffffffffffffffffff", zeros, 32,
           "8af2860142f786f409307c1a3f7eaaac7df76b0c1ab899b33e42f047b91b546f", 0);
  ctr_case("301 B (whole 8-block groups and a tail)", kKey128, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
           plain, 301, "64240129bb18db6530a0aa2226c9b442c1be3b8ce74b5bd7bc23a4f5e9cf93cd", 301 - 32);
}

/* ---- GCM: the GCM spec's (McGrew and Viega) test cases 2, 4 and 14. ---- */

static void gcm_case(const char *what, const char *key_hex, const char *nonce_hex,
                     const char *aad_hex, const char *plain_hex, const char *cipher_hex,
                     const char *tag_hex) {
  uint8_t key[32], nonce[12], aad[64], plain[128], out[128], back[128], tag[16];
  size_t key_size = unhex(key_hex, key), aad_size = unhex(aad_hex, aad);
  size_t size = unhex(plain_hex, plain);
  unhex(nonce_hex, nonce);
  cryptobench_plugin_context *ctx = P->new_context(CRYPTOBENCH_PLUGIN_GCM);
  CHECK(ctx != NULL && P->set_key(ctx, key, key_size) == 0, "%s: context and key", what);
  if (ctx == NULL) return;
  CHECK(P->gcm_seal(ctx, nonce, 12, aad, aad_size, plain, out, size, tag, 16) == 0, "%s: seal", what);
  CHECK(same(out, cipher_hex, size), "%s: ciphertext differs", what);
  CHECK(same(tag, tag_hex, 16), "%s: tag differs", what);
  memset(back, 0xa5, sizeof back);
  CHECK(P->gcm_open(ctx, nonce, 12, aad, aad_size, out, back, size, tag, 16) == 0 &&
            memcmp(back, plain, size) == 0,
        "%s: open", what);
  /* A tampered tag, then a tampered ciphertext: BAD_TAG, `out` untouched. */
  tag[15] ^= 1;
  memset(back, 0xa5, sizeof back);
  CHECK(P->gcm_open(ctx, nonce, 12, aad, aad_size, out, back, size, tag, 16) ==
            CRYPTOBENCH_PLUGIN_BAD_TAG,
        "%s: a tampered tag is not BAD_TAG", what);
  tag[15] ^= 1;
  if (size > 0) {
    out[0] ^= 0x80;
    CHECK(P->gcm_open(ctx, nonce, 12, aad, aad_size, out, back, size, tag, 16) ==
              CRYPTOBENCH_PLUGIN_BAD_TAG,
          "%s: a tampered ciphertext is not BAD_TAG", what);
    out[0] ^= 0x80;
  }
  for (size_t i = 0; i < size; i++) CHECK(back[i] == 0xa5, "%s: a failed open wrote byte %zu", what, i);
  /* Limits it declares: 12-byte nonces, 16-byte tags. */
  CHECK(P->gcm_seal(ctx, nonce, 8, aad, aad_size, plain, out, size, tag, 16) != 0,
        "%s: an 8-byte nonce accepted", what);
  CHECK(P->gcm_seal(ctx, nonce, 12, aad, aad_size, plain, out, size, tag, 12) != 0,
        "%s: a 12-byte tag accepted", what);
  /* In place. */
  memcpy(back, plain, size);
  CHECK(P->gcm_seal(ctx, nonce, 12, aad, aad_size, back, back, size, tag, 16) == 0 &&
            same(back, cipher_hex, size) && same(tag, tag_hex, 16),
        "%s: in-place seal differs", what);
  P->free_context(ctx);
}

static void gcm(void) {
  gcm_case("GCM test case 2 (AES-128, 16 B)", "00000000000000000000000000000000",
           "000000000000000000000000", "", "00000000000000000000000000000000",
           "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf");
  gcm_case("GCM test case 4 (AES-128, 60 B, 20 B AAD)", "feffe9928665731c6d6a8f9467308308",
           "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
           "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
           "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
           "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
           "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
           "5bc94fbc3221a5db94fae95ae7121a47");
  gcm_case("GCM test case 13 (AES-256, empty)",
           "0000000000000000000000000000000000000000000000000000000000000000",
           "000000000000000000000000", "", "", "", "530f8afbc74536b9a963b4f1c4cb738b");
  gcm_case("GCM test case 14 (AES-256, 16 B)",
           "0000000000000000000000000000000000000000000000000000000000000000",
           "000000000000000000000000", "", "00000000000000000000000000000000",
           "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919");
}

/* ---- Codec: RFC 4648 section 10, and malformed text. ---- */

static void codec(void) {
  static const char *const b64[][2] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                       {"foo", "Zm9v"},  {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
                                       {"foobar", "Zm9vYmFy"}};
  char text[64];
  uint8_t bytes[64];
  size_t written;
  for (size_t i = 0; i < sizeof b64 / sizeof b64[0]; i++) {
    size_t n = strlen(b64[i][0]), t = strlen(b64[i][1]);
    memset(text, '#', sizeof text);
    CHECK(P->base64_encode((const uint8_t *)b64[i][0], n, text) == 0 && memcmp(text, b64[i][1], t) == 0 &&
              text[t] == '#',
          "base64 of '%s' is not '%s' (or wrote past it)", b64[i][0], b64[i][1]);
    written = 999;
    CHECK(P->base64_decode(b64[i][1], t, bytes, &written) == 0 && written == n &&
              memcmp(bytes, b64[i][0], n) == 0,
          "base64 decode of '%s'", b64[i][1]);
  }
  static const char *const bad64[] = {"Zg=", "Zh==", "Z===", "Zm9v!A==", "Zg==Zg==", "=Zm9"};
  for (size_t i = 0; i < sizeof bad64 / sizeof bad64[0]; i++) {
    CHECK(P->base64_decode(bad64[i], strlen(bad64[i]), bytes, &written) == CRYPTOBENCH_PLUGIN_BAD_INPUT,
          "base64 decode of malformed '%s' is not BAD_INPUT", bad64[i]);
  }
  memset(text, '#', sizeof text);
  CHECK(P->hex_encode((const uint8_t *)"foobar\xff", 7, text) == 0 &&
            memcmp(text, "666f6f626172ff#", 15) == 0,
        "hex of 'foobar\\xff' is not lowercase 666f6f626172ff");
  CHECK(P->hex_decode("666F6f626172Ff", 14, bytes, &written) == 0 && written == 7 &&
            memcmp(bytes, "foobar\xff", 7) == 0,
        "hex decode (either case)");
  CHECK(P->hex_decode("666", 3, bytes, &written) == CRYPTOBENCH_PLUGIN_BAD_INPUT, "odd hex accepted");
  CHECK(P->hex_decode("6g", 2, bytes, &written) == CRYPTOBENCH_PLUGIN_BAD_INPUT, "hex 'g' accepted");
  /* A round trip of every byte value. */
  uint8_t all[256], again[256];
  char long_text[512];
  for (int i = 0; i < 256; i++) all[i] = (uint8_t)i;
  CHECK(P->base64_encode(all, 256, long_text) == 0 &&
            P->base64_decode(long_text, 344, again, &written) == 0 && written == 256 &&
            memcmp(all, again, 256) == 0,
        "base64 round trip of 0..255");
  CHECK(P->hex_encode(all, 256, long_text) == 0 &&
            P->hex_decode(long_text, 512, again, &written) == 0 && written == 256 &&
            memcmp(all, again, 256) == 0,
        "hex round trip of 0..255");
}

/* ---- KDF: RFC 4231 test case 1; PBKDF2-HMAC-SHA256 ("password", "salt"). ---- */

static void kdf(void) {
  uint8_t key[20], out[64];
  memset(key, 0x0b, sizeof key);
  CHECK(P->hmac_sha256(key, 20, (const uint8_t *)"Hi There", 8, out, 32) == 0 &&
            same(out, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", 32),
        "HMAC-SHA256 RFC 4231 case 1");
  CHECK(P->hmac_sha256(key, 20, (const uint8_t *)"Hi There", 8, out, 16) == 0 &&
            same(out, "b0344c61d8db38535ca8afceaf0bf12b", 16),
        "HMAC-SHA256 truncated to 16 bytes");
  CHECK(P->hmac_sha256(key, 20, (const uint8_t *)"Hi There", 8, out, 33) != 0, "a 33-byte HMAC accepted");
  CHECK(P->pbkdf2_sha256((const uint8_t *)"password", 8, (const uint8_t *)"salt", 4, 1, out, 32) == 0 &&
            same(out, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b", 32),
        "PBKDF2-HMAC-SHA256, 1 iteration");
  CHECK(P->pbkdf2_sha256((const uint8_t *)"password", 8, (const uint8_t *)"salt", 4, 4096, out, 64) == 0 &&
            same(out,
                 "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"
                 "f7ad98c1b458ce3fd74ca35beba3cda7b8d1038d6a87071b918f837405f3fe77",
                 64),
        "PBKDF2-HMAC-SHA256, 4096 iterations, 64 bytes");
  CHECK(P->pbkdf2_sha256((const uint8_t *)"password", 8, (const uint8_t *)"salt", 4, 0, out, 32) != 0,
        "PBKDF2 with 0 iterations accepted");
}

/* ---- The table, and what it refuses. ---- */

static void table(void) {
  CHECK(P->abi_version == CRYPTOBENCH_PLUGIN_ABI_VERSION, "abi_version %u", P->abi_version);
  CHECK(P->table_size == sizeof(struct cryptobench_plugin), "table_size %u, the header's %zu",
        P->table_size, sizeof(struct cryptobench_plugin));
  size_t n = P->name != NULL ? strlen(P->name) : 0;
  CHECK(n >= 1 && n <= 32 && strspn(P->name, "abcdefghijklmnopqrstuvwxyz0123456789-") == n &&
            P->name[0] >= 'a' && P->name[0] <= 'z',
        "name '%s'", P->name != NULL ? P->name : "(null)");
  CHECK(P->library && P->version && P->code_path && P->limits && P->codec && P->kdf,
        "a NULL string in the table");
  CHECK(P->modes == (CRYPTOBENCH_PLUGIN_ECB | CRYPTOBENCH_PLUGIN_CBC | CRYPTOBENCH_PLUGIN_CTR |
                     CRYPTOBENCH_PLUGIN_GCM),
        "modes %u", P->modes);
  CHECK(P->key_sizes == (CRYPTOBENCH_PLUGIN_AES128 | CRYPTOBENCH_PLUGIN_AES256), "key_sizes %u", P->key_sizes);
  CHECK(P->ctr_counter_bits == 128 && P->gcm_nonce_12_only == 1 && P->gcm_min_tag == 16 &&
            P->gcm_max_nonce == 12,
        "CTR/GCM limits %u %u %u %u", P->ctr_counter_bits, P->gcm_nonce_12_only, P->gcm_min_tag,
        P->gcm_max_nonce);
  CHECK(P->register_bits == 0 || P->register_bits == 128, "register_bits %u", P->register_bits);
  CHECK(P->new_context && P->free_context && P->set_key && P->encrypt_blocks && P->decrypt_blocks &&
            P->ctr_crypt && P->gcm_seal && P->gcm_open && P->base64_encode && P->base64_decode &&
            P->hex_encode && P->hex_decode && P->hmac_sha256 && P->pbkdf2_sha256,
        "a NULL function in the table");
  CHECK(P->new_context(16) == NULL && P->new_context(3) == NULL, "a context for a mode it lacks");
  uint8_t key[32] = {0}, block[16] = {0};
  cryptobench_plugin_context *ctx = P->new_context(CRYPTOBENCH_PLUGIN_ECB);
  CHECK(P->set_key(ctx, key, 24) != 0, "a 192-bit key accepted (not claimed)");
  CHECK(P->encrypt_blocks(ctx, NULL, block, block, 1) != 0, "encryption before set_key accepted");
  CHECK(P->set_key(NULL, key, 16) != 0 && P->encrypt_blocks(NULL, NULL, block, block, 1) != 0,
        "a NULL context accepted");
  P->free_context(ctx);
  P->free_context(NULL);
  ctx = P->new_context(CRYPTOBENCH_PLUGIN_GCM);
  CHECK(P->set_key(ctx, key, 16) == 0 && P->encrypt_blocks(ctx, NULL, block, block, 1) != 0,
        "ECB on a GCM context accepted");
  P->free_context(ctx);
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: plugin_vectors PATH/librust_aes.so [WHY-NOT-BUILT]\n");
    return 2;
  }
  if (argc == 3 || access(argv[1], F_OK) != 0) {
    printf("skipped: the Rust plugin %s was not built here: %s\n", argv[1],
           argc == 3 ? argv[2] : "it is missing (see cmake's 'Rust plugin' line)");
    return 77;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
    return 1;
  }
  cryptobench_plugin_entry entry;
  *(void **)&entry = dlsym(lib, CRYPTOBENCH_PLUGIN_ENTRY);
  if (entry == NULL || (P = entry()) == NULL) {
    fprintf(stderr, "FAIL: no %s, or it returned NULL\n", CRYPTOBENCH_PLUGIN_ENTRY);
    return 1;
  }
  printf("%s: %s\n  version: %s\n  code path: %s\n  register_bits: %u\n  limits: %s\n  codec: %s\n  kdf: %s\n",
         P->name, P->library, P->version, P->code_path, P->register_bits, P->limits, P->codec, P->kdf);
  table();
  block_mode(CRYPTOBENCH_PLUGIN_ECB, "ECB-AES128 (F.1.1)", kKey128,
             "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
             "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4");
  block_mode(CRYPTOBENCH_PLUGIN_ECB, "ECB-AES256 (F.1.5)", kKey256,
             "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
             "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7");
  block_mode(CRYPTOBENCH_PLUGIN_CBC, "CBC-AES128 (F.2.1)", kKey128,
             "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
             "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7");
  block_mode(CRYPTOBENCH_PLUGIN_CBC, "CBC-AES256 (F.2.5)", kKey256,
             "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
             "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b");
  ctr();
  gcm();
  codec();
  kdf();
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
