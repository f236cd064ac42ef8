/* cryptobench_plugin.h: the plugin ABI, version 1.
 *
 * A plugin is a shared library (C, C++, a Rust cdylib, Go -buildmode=c-shared,
 * Zig, ...) that exports one function:
 *
 *     const struct cryptobench_plugin *cryptobench_plugin_v1(void);
 *
 * returning a table that lives as long as the library is loaded. cryptobench
 * loads it with `cryptobench --plugin=PATH.so` and runs it as a backend under
 * its own name, beside the built-in ones, after it has passed its self-check
 * (docs/plugins.md): the test vectors of every mode it claims and the
 * cross-backend equivalence checks, run first in a child process.
 *
 * Only C types cross this boundary: fixed-width integers, sizes, byte
 * pointers and NUL-terminated UTF-8 strings. Every function returns 0 on
 * success and a non-zero CRYPTOBENCH_PLUGIN_* code on failure.
 *
 * cryptobench validates every argument before it calls a plugin (key, IV,
 * counter, nonce and tag lengths, buffer sizes), applies and checks PKCS#7
 * padding itself, carries the CBC chaining value across calls, and wipes the
 * output of a failed GCM open: a plugin implements the raw primitives only.
 * A context is used by one thread at a time; different contexts may be used
 * by different threads at once, and the codec and KDF functions (which take
 * no context) are called from several threads at once: they must be
 * thread-safe. `out` may equal `in` (in place) but never overlaps it
 * otherwise.
 */
#ifndef CRYPTOBENCH_PLUGIN_H
#define CRYPTOBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CRYPTOBENCH_PLUGIN_ABI_VERSION 1u
#define CRYPTOBENCH_PLUGIN_ENTRY "cryptobench_plugin_v1"

/* Return codes. */
#define CRYPTOBENCH_PLUGIN_OK 0
#define CRYPTOBENCH_PLUGIN_ERROR 1     /* the library failed */
#define CRYPTOBENCH_PLUGIN_BAD_TAG 2   /* gcm_open: the tag does not match */
#define CRYPTOBENCH_PLUGIN_BAD_INPUT 3 /* codec decode: malformed text */

/* Modes (bits of `modes`, and new_context's argument). */
#define CRYPTOBENCH_PLUGIN_ECB 1u
#define CRYPTOBENCH_PLUGIN_CBC 2u
#define CRYPTOBENCH_PLUGIN_CTR 4u
#define CRYPTOBENCH_PLUGIN_GCM 8u

/* Key sizes (bits of `key_sizes`). */
#define CRYPTOBENCH_PLUGIN_AES128 1u
#define CRYPTOBENCH_PLUGIN_AES192 2u
#define CRYPTOBENCH_PLUGIN_AES256 4u

typedef struct cryptobench_plugin_context cryptobench_plugin_context; /* the plugin's own */

struct cryptobench_plugin {
  uint32_t abi_version; /* CRYPTOBENCH_PLUGIN_ABI_VERSION */
  uint32_t table_size;  /* sizeof(struct cryptobench_plugin) as the plugin was built */

  /* Who it is. `name` is its backend name: 1-32 of [a-z0-9-], starting with a
   * letter, and not a built-in backend's. The rest is prose for the report. */
  const char* name;
  const char* library;   /* e.g. "in-house wrapper over OpenSSL EVP" */
  const char* version;   /* the version of the code it runs */
  const char* code_path; /* the AES code it runs here, e.g. "AES-NI via EVP" */
  const char* limits;    /* anything a user should know; "" when nothing (300 characters kept) */

  uint32_t modes;     /* CRYPTOBENCH_PLUGIN_ECB | ...: what it claims */
  uint32_t key_sizes; /* CRYPTOBENCH_PLUGIN_AES128 | ...: in every mode it claims */
  /* The AES register width of its parallel-mode code (128 AES-NI, 256 or 512
   * VAES; 0 when it runs no AES instructions): the hardware bound's input. */
  uint32_t register_bits;
  /* CTR: how many low bits of the counter block it increments (32, 64 or
   * 128); cryptobench splits a message where such a counter would wrap. */
  uint32_t ctr_counter_bits;
  /* GCM: 1 when it takes 12-byte nonces only; the shortest tag it accepts
   * (4..16; 16 always). */
  uint32_t gcm_nonce_12_only;
  uint32_t gcm_min_tag;

  /* A context for one mode (one of the mode bits). NULL on failure. */
  cryptobench_plugin_context* (*new_context)(uint32_t mode);
  void (*free_context)(cryptobench_plugin_context* ctx);
  /* key_size is 16, 24 or 32 and one of key_sizes. */
  int (*set_key)(cryptobench_plugin_context* ctx, const uint8_t* key, size_t key_size);

  /* ECB and CBC: `blocks` >= 1 whole 16-byte blocks. `iv` is the CBC
   * chaining value (16 bytes; NULL for ECB); need not be updated. */
  int (*encrypt_blocks)(cryptobench_plugin_context* ctx, const uint8_t* iv, const uint8_t* in,
                        uint8_t* out, size_t blocks);
  int (*decrypt_blocks)(cryptobench_plugin_context* ctx, const uint8_t* iv, const uint8_t* in,
                        uint8_t* out, size_t blocks);

  /* CTR: `size` >= 1 bytes; `counter` the 16-byte initial counter block,
   * incremented big-endian per block. NULL when CTR is not claimed. */
  int (*ctr_crypt)(cryptobench_plugin_context* ctx, const uint8_t* counter, const uint8_t* in,
                   uint8_t* out, size_t size);

  /* GCM (NIST SP 800-38D). `size` and `aad_size` may be 0. gcm_open returns
   * CRYPTOBENCH_PLUGIN_BAD_TAG on a mismatch (compared in constant time); what
   * it left in `out` is then wiped by cryptobench. NULL when not claimed. */
  int (*gcm_seal)(cryptobench_plugin_context* ctx, const uint8_t* nonce, size_t nonce_size,
                  const uint8_t* aad, size_t aad_size, const uint8_t* in, uint8_t* out, size_t size,
                  uint8_t* tag, size_t tag_size);
  int (*gcm_open)(cryptobench_plugin_context* ctx, const uint8_t* nonce, size_t nonce_size,
                  const uint8_t* aad, size_t aad_size, const uint8_t* in, uint8_t* out, size_t size,
                  const uint8_t* tag, size_t tag_size);

  /* Optional (NULL: cryptobench's own codec, and the first built-in library's
   * KDF, serve it, and the report says so).
   * base64/hex: RFC 4648 Base64 (padded) and lowercase hex. encode writes
   * exactly the encoded length; decode writes the decoded bytes and their
   * count to *written, or returns CRYPTOBENCH_PLUGIN_BAD_INPUT. `out` has
   * room for (size / 4) * 3 bytes (Base64) or size / 2 (hex). */
  const char* codec; /* who wrote the codec, e.g. "the base64 crate 0.13"; NULL with no codec */
  int (*base64_encode)(const uint8_t* in, size_t size, char* out);
  int (*base64_decode)(const char* text, size_t size, uint8_t* out, size_t* written);
  int (*hex_encode)(const uint8_t* in, size_t size, char* out);
  int (*hex_decode)(const char* text, size_t size, uint8_t* out, size_t* written);

  const char* kdf; /* e.g. "ring 0.16 HMAC-SHA256, PBKDF2"; NULL with no KDF */
  /* HMAC-SHA256(secret, message), its first out_size (1..32) bytes. */
  int (*hmac_sha256)(const uint8_t* secret, size_t secret_size, const uint8_t* message,
                     size_t message_size, uint8_t* out, size_t out_size);
  /* PBKDF2-HMAC-SHA256, out_size (1..64) bytes, iterations >= 1. */
  int (*pbkdf2_sha256)(const uint8_t* password, size_t password_size, const uint8_t* salt,
                       size_t salt_size, uint32_t iterations, uint8_t* out, size_t out_size);

  /* GCM: the longest nonce it takes, in bytes (0: any up to 65536). */
  uint32_t gcm_max_nonce;
  /* GCM's AES register width where it differs from register_bits (a plugin
   * whose GCM comes from another library than its block modes); 0: the same. */
  uint32_t gcm_register_bits;
};

/* Mark the entry point exported when building with hidden visibility:
 *   CRYPTOBENCH_PLUGIN_EXPORT const struct cryptobench_plugin *cryptobench_plugin_v1(void); */
#if defined(__GNUC__)
#define CRYPTOBENCH_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define CRYPTOBENCH_PLUGIN_EXPORT
#endif

/* The one entry point. */
typedef const struct cryptobench_plugin* (*cryptobench_plugin_entry)(void);

#ifdef __cplusplus
}
#endif

#endif /* CRYPTOBENCH_PLUGIN_H */
