// nss_backend.cc: NSS 3 through its PK11 API (the softoken and its freebl
// run the AES). ECB keeps one PK11 context per direction; CBC and CTR encrypt
// each message with the one-shot PK11_Encrypt/PK11_Decrypt, which take the IV
// or counter block; GCM keeps one PKCS #11 v3 message context per direction
// (PK11_AEADOp), keyed once.
#include <nss.h>
#include <nssb64.h>
#include <pk11pub.h>
#include <pkcs11n.h>
#include <secerr.h>
#include <secitem.h>
#include <secoid.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

// NSS_NoDB_Init once per process: the internal slot without a key database.
const std::string& nss_init_error() {
  static const std::string error = []() -> std::string {
    if (NSS_IsInitialized() || NSS_NoDB_Init(nullptr) == SECSuccess) return "";
    return "NSS_NoDB_Init failed (NSS error " + std::to_string(PORT_GetError()) + ")";
  }();
  return error;
}

// PK11 and the Base64 coder take int / unsigned int lengths; feed huge inputs
// in chunks (2^30: whole AES blocks, whole groups of 4 Base64 characters).
constexpr std::size_t kMaxChunk = std::size_t{1} << 30;

// Padded encryption copies the message and its final block into `out` and
// runs one library call up to these sizes; beyond them, a second call costs
// less than the copy (a reused ECB context's PK11_CipherOp ~0.2 us, a CBC
// one-shot ~1.5 us, against memmove at ~10 bytes/ns).
constexpr std::size_t kEcbFuseLimit = std::size_t{2} << 10;
constexpr std::size_t kCbcFuseLimit = std::size_t{16} << 10;

// SECItem wants a mutable pointer even where NSS only reads; an empty span
// may have no pointer at all, which some PK11 calls reject.
SECItem item(const std::uint8_t* data, std::size_t length) {
  static unsigned char empty = 0;
  return {siBuffer, data != nullptr ? const_cast<unsigned char*>(data) : &empty,
          static_cast<unsigned int>(length)};
}

// A new IV per CBC message: PK11 contexts take the IV only when created
// (PK11_CreateContextBySymKey; no call sets a new one), so the choices are a
// context per message or the one-shot PK11_Encrypt/PK11_Decrypt with the IV
// as a SECItem. Measured here for 64-byte messages (AES-128, NSS 3.87.1):
// context + PK11_CipherOp + PK11_DestroyContext 2.9 us, PK11_Encrypt 1.5 us,
// PK11_Decrypt 1.1 us (a reused context's PK11_CipherOp alone: 0.19 us). Both
// re-run C_EncryptInit, i.e. the AES key expansion, per message: NSS binds the
// schedule to the IV. So CBC takes the one-shot calls; ECB, which has no IV,
// keeps a context per direction.
class NssCipher final : public AesCipher {
 public:
  // slot: the backend's, referenced (PK11_GetBestSlot per cipher would cost
  // a walk of NSS's module list each time).
  NssCipher(Mode mode, PK11SlotInfo* slot)
      : AesCipher(mode),
        mechanism_(mode == Mode::kEcb ? CKM_AES_ECB : CKM_AES_CBC),
        slot_(slot != nullptr ? PK11_ReferenceSlot(slot) : nullptr) {}
  ~NssCipher() override {
    release();
    if (slot_ != nullptr) PK11_FreeSlot(slot_);
  }

 protected:
  // A PK11SymKey is immutable: a new key is a new softoken object (the old
  // one is destroyed, and softoken zeroes its value). ECB contexts are made on
  // first use, so re-keying costs one import.
  Error schedule_key(Bytes key) override {
    release();
    if (slot_ == nullptr) return Error::kLibraryFailure;
    SECItem key_item = item(key.data(), key.size());
    key_ = PK11_ImportSymKeyWithFlags(slot_, mechanism_, PK11_OriginUnwrap, CKA_ENCRYPT, &key_item,
                                      CKF_ENCRYPT | CKF_DECRYPT, PR_FALSE, nullptr);
    return key_ != nullptr ? Error::kNone : Error::kLibraryFailure;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(true, iv, in, out, blocks);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(false, iv, in, out, blocks);
  }
  // One library call for the whole padded message instead of two: each PK11
  // call costs far more than copying a short message.
  Error encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                           std::size_t blocks, const std::uint8_t* final) override {
    const std::size_t length = blocks * kAesBlockSize;
    if (length > (iv == nullptr ? kEcbFuseLimit : kCbcFuseLimit)) {
      return AesCipher::encrypt_with_final(iv, in, out, blocks, final);
    }
    if (out != in && length != 0) std::memmove(out, in, length);
    std::memcpy(out + length, final, kAesBlockSize);
    const Error e = run(true, iv, out, out, blocks + 1);
    // A failed call must not leave the plaintext copy in the output.
    if (e != Error::kNone) secure_wipe(out, length + kAesBlockSize);
    return e;
  }

 private:
  Error run(bool encrypting, const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
            std::size_t blocks) {
    if (key_ == nullptr) return Error::kLibraryFailure;
    PK11Context* ecb = nullptr;
    if (iv == nullptr && (ecb = ecb_context(encrypting)) == nullptr) return Error::kLibraryFailure;
    Block chain{};
    if (iv != nullptr) std::memcpy(chain.data(), iv, kAesBlockSize);
    std::size_t remaining = blocks * kAesBlockSize;
    while (remaining != 0) {
      const std::size_t chunk = std::min(remaining, kMaxChunk);
      if (ecb != nullptr) {
        int written = 0;
        if (PK11_CipherOp(ecb, out, &written, static_cast<int>(chunk), in,
                          static_cast<int>(chunk)) != SECSuccess ||
            static_cast<std::size_t>(written) != chunk) {
          drop_ecb_context(encrypting);  // its state is unknown now
          return Error::kLibraryFailure;
        }
      } else {
        // Only huge inputs take more than one call; the next IV is the last
        // ciphertext block, read before an in-place decryption overwrites it.
        Block next;
        if (!encrypting) std::memcpy(next.data(), in + chunk - kAesBlockSize, kAesBlockSize);
        SECItem iv_item = item(chain.data(), chain.size());
        unsigned int written = 0;
        const SECStatus status = encrypting
                                     ? PK11_Encrypt(key_, CKM_AES_CBC, &iv_item, out, &written,
                                                    static_cast<unsigned int>(chunk), in,
                                                    static_cast<unsigned int>(chunk))
                                     : PK11_Decrypt(key_, CKM_AES_CBC, &iv_item, out, &written,
                                                    static_cast<unsigned int>(chunk), in,
                                                    static_cast<unsigned int>(chunk));
        if (status != SECSuccess || written != chunk) return Error::kLibraryFailure;
        if (encrypting) std::memcpy(next.data(), out + chunk - kAesBlockSize, kAesBlockSize);
        chain = next;
      }
      in += chunk;
      out += chunk;
      remaining -= chunk;
    }
    return Error::kNone;
  }

  PK11Context* ecb_context(bool encrypting) {
    PK11Context*& context = encrypting ? ecb_enc_ : ecb_dec_;
    if (context == nullptr) {
      SECItem no_param = {siBuffer, nullptr, 0};
      context = PK11_CreateContextBySymKey(CKM_AES_ECB, encrypting ? CKA_ENCRYPT : CKA_DECRYPT,
                                           key_, &no_param);
    }
    return context;
  }
  void drop_ecb_context(bool encrypting) {
    PK11Context*& context = encrypting ? ecb_enc_ : ecb_dec_;
    if (context != nullptr) PK11_DestroyContext(context, PR_TRUE);
    context = nullptr;
  }
  void release() {
    drop_ecb_context(true);
    drop_ecb_context(false);
    if (key_ != nullptr) PK11_FreeSymKey(key_);
    key_ = nullptr;
  }

  CK_MECHANISM_TYPE mechanism_;
  PK11SlotInfo* slot_;
  PK11SymKey* key_ = nullptr;
  PK11Context* ecb_enc_ = nullptr;
  PK11Context* ecb_dec_ = nullptr;
};

// import_key: `key` as a softoken object for `mechanism`, usable both ways;
// nullptr on failure.
PK11SymKey* import_key(PK11SlotInfo* slot, CK_MECHANISM_TYPE mechanism, Bytes key) {
  if (slot == nullptr) return nullptr;
  SECItem key_item = item(key.data(), key.size());
  return PK11_ImportSymKeyWithFlags(slot, mechanism, PK11_OriginUnwrap, CKA_ENCRYPT, &key_item,
                                    CKF_ENCRYPT | CKF_DECRYPT, PR_FALSE, nullptr);
}

// CTR: CKM_AES_CTR with CK_AES_CTR_PARAMS. As with CBC, a PK11 context takes
// its counter block only when created, so each call is one PK11_Encrypt (which
// re-runs C_EncryptInit: NSS binds the key schedule to the counter block).
// ulCounterBits = 128: freebl's CTR then carries through the whole block
// (measured across 2^32, 2^64 and 2^128 against OpenSSL, AES-NI path).
class NssCtr final : public AesCtr {
 public:
  explicit NssCtr(PK11SlotInfo* slot)
      : slot_(slot != nullptr ? PK11_ReferenceSlot(slot) : nullptr) {}
  ~NssCtr() override {
    if (key_ != nullptr) PK11_FreeSymKey(key_);
    if (slot_ != nullptr) PK11_FreeSlot(slot_);
  }

 protected:
  Error schedule_key(Bytes key) override {
    if (key_ != nullptr) PK11_FreeSymKey(key_);
    key_ = import_key(slot_, CKM_AES_CTR, key);
    return key_ != nullptr ? Error::kNone : Error::kLibraryFailure;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    if (key_ == nullptr) return Error::kLibraryFailure;
    CK_AES_CTR_PARAMS params;
    params.ulCounterBits = 128;
    std::memcpy(params.cb, counter, sizeof params.cb);
    // Only huge inputs take more than one call (whole blocks: the next one
    // starts at the counter advanced past them).
    for (std::size_t done = 0; done < size;) {
      const std::size_t chunk = std::min(size - done, kMaxChunk);
      SECItem param_item = item(reinterpret_cast<const std::uint8_t*>(&params), sizeof params);
      unsigned int written = 0;
      if (PK11_Encrypt(key_, CKM_AES_CTR, &param_item, out + done, &written,
                       static_cast<unsigned int>(chunk), in + done,
                       static_cast<unsigned int>(chunk)) != SECSuccess ||
          written != chunk) {
        return Error::kLibraryFailure;
      }
      ctr_add(params.cb, chunk / kAesBlockSize);
      done += chunk;
    }
    return Error::kNone;
  }

 private:
  PK11SlotInfo* slot_;
  PK11SymKey* key_ = nullptr;
};

// GCM: a message context per direction (PK11_CreateContextBySymKey with
// CKA_NSS_MESSAGE | CKA_ENCRYPT or CKA_DECRYPT: softoken's C_MessageEncryptInit
// expands the key and GHASH key once), then one PK11_AEADOp per message with
// its own nonce, AAD and a separate tag (CKG_NO_GENERATE: the caller's
// nonce, only read). PK11_Encrypt with CK_GCM_PARAMS would take the nonce
// too, but re-key per message and append the tag to the output.
//
// What it accepts (NSS 3.87.1, measured): nonces of any length from 1 byte
// (against libgcrypt up to 69,999 bytes, both ways), all three key sizes, and the tag lengths SP
// 800-38D lists: 4, 8 and 12 to 16 bytes (freebl's gcm_InitCounter refuses the others). GcmLimits
// cannot express the gap, so the lengths offered are 12 to 16. One rule is freebl's own: an
// encryption context binds the nonce length of its first message (gcm_GenerateIV checks that later
// ones match, to count its IVs), so a seal with another nonce length re-creates it.
GcmLimits nss_gcm_limits() {
  return {.min_nonce = 1, .max_nonce = std::size_t{1} << 16, .min_tag = 12};
}

class NssGcm final : public AesGcm {
 public:
  explicit NssGcm(PK11SlotInfo* slot)
      : slot_(slot != nullptr ? PK11_ReferenceSlot(slot) : nullptr) {}
  ~NssGcm() override {
    release();
    if (slot_ != nullptr) PK11_FreeSlot(slot_);
  }
  GcmLimits limits() const override { return nss_gcm_limits(); }

 protected:
  Error schedule_key(Bytes key) override {
    release();
    key_ = import_key(slot_, CKM_AES_GCM, key);
    if (key_ == nullptr || (enc_ = message_context(CKA_ENCRYPT)) == nullptr ||
        (dec_ = message_context(CKA_DECRYPT)) == nullptr) {
      release();
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    if (in.size() > INT_MAX || aad.size() > INT_MAX) return Error::kLibraryFailure;  // int lengths
    if (enc_nonce_size_ != 0 && enc_nonce_size_ != nonce.size()) drop_encryption_context();
    if (enc_ == nullptr && (enc_ = message_context(CKA_ENCRYPT)) == nullptr) {
      return Error::kLibraryFailure;
    }
    enc_nonce_size_ = nonce.size();
    int written = 0;
    if (aead(enc_, nonce, aad, in, out, tag.data(), tag.size(), &written) != SECSuccess ||
        static_cast<std::size_t>(written) != in.size()) {
      drop_encryption_context();  // its state is unknown now
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    if (in.size() > INT_MAX || aad.size() > INT_MAX) return Error::kLibraryFailure;
    // PK11_AEADOp takes a mutable tag pointer even when it only reads it.
    std::uint8_t expected[16];
    std::memcpy(expected, tag.data(), tag.size());
    int written = 0;
    // freebl compares the tag in constant time (NSS_SecureMemcmp) and
    // reports a mismatch as SEC_ERROR_BAD_DATA (gcm.c checks before it
    // decrypts; intel-gcm decrypts first, then zeroes the output).
    if (aead(dec_, nonce, aad, in, out, expected, tag.size(), &written) != SECSuccess) {
      return PORT_GetError() == SEC_ERROR_BAD_DATA ? Error::kBadTag : Error::kLibraryFailure;
    }
    return static_cast<std::size_t>(written) == in.size() ? Error::kNone : Error::kLibraryFailure;
  }

 private:
  PK11Context* message_context(CK_ATTRIBUTE_TYPE direction) const {
    SECItem no_param = {siBuffer, nullptr, 0};
    return PK11_CreateContextBySymKey(CKM_AES_GCM, CKA_NSS_MESSAGE | direction, key_, &no_param);
  }
  // aead: one message. NSS refuses null buffers even for an empty message.
  static SECStatus aead(PK11Context* context, Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                        std::uint8_t* tag, std::size_t tag_size, int* written) {
    static std::uint8_t empty[1];
    return PK11_AEADOp(context, CKG_NO_GENERATE, 0,
                       // Read only under CKG_NO_GENERATE.
                       const_cast<std::uint8_t*>(nonce.data()), static_cast<int>(nonce.size()),
                       aad.empty() ? nullptr : aad.data(), static_cast<int>(aad.size()),
                       in.empty() ? empty : out, written, static_cast<int>(in.size()), tag,
                       static_cast<int>(tag_size), in.empty() ? empty : in.data(),
                       static_cast<int>(in.size()));
  }
  void drop_encryption_context() {
    if (enc_ != nullptr) PK11_DestroyContext(enc_, PR_TRUE);
    enc_ = nullptr;
    enc_nonce_size_ = 0;
  }
  void release() {
    drop_encryption_context();
    if (dec_ != nullptr) PK11_DestroyContext(dec_, PR_TRUE);
    dec_ = nullptr;
    if (key_ != nullptr) PK11_FreeSymKey(key_);
    key_ = nullptr;
  }

  PK11SlotInfo* slot_;
  PK11SymKey* key_ = nullptr;
  PK11Context* enc_ = nullptr;
  std::size_t enc_nonce_size_ = 0;  // the nonce length enc_ is bound to; 0: none yet
  PK11Context* dec_ = nullptr;
};

// NSS's streaming Base64 coder hands its output to a callback: the encoder's
// text (broken into 64-character lines with CRLF, as NSSBase64_EncodeItem
// does too) is copied into the caller's buffer without the line breaks; the
// decoder writes straight into it. Both are bounds-checked against the
// buffer size the public wrappers guarantee.
struct Sink {
  char* text;          // encoding
  std::uint8_t* data;  // decoding
  std::size_t capacity;
  std::size_t written = 0;
};

PRInt32 take_text(void* arg, const char* chunk, PRInt32 length) {
  Sink& sink = *static_cast<Sink*>(arg);
  for (PRInt32 i = 0; i < length;) {
    if (chunk[i] == '\r' || chunk[i] == '\n') {
      ++i;
      continue;
    }
    const void* end = std::memchr(chunk + i, '\r', static_cast<std::size_t>(length - i));
    const PRInt32 stop =
        end != nullptr ? static_cast<PRInt32>(static_cast<const char*>(end) - chunk) : length;
    const std::size_t run = static_cast<std::size_t>(stop - i);
    if (run > sink.capacity - sink.written) return -1;
    std::memcpy(sink.text + sink.written, chunk + i, run);
    sink.written += run;
    i = stop;
  }
  return length;
}

PRInt32 take_data(void* arg, const unsigned char* chunk, PRInt32 length) {
  Sink& sink = *static_cast<Sink*>(arg);
  const std::size_t n = static_cast<std::size_t>(length);
  if (n > sink.capacity - sink.written) return -1;
  std::memcpy(sink.data + sink.written, chunk, n);
  sink.written += n;
  return length;
}

// Whole Base64 groups per update call: a multiple of 3 bytes in, of 4 characters out.
constexpr std::size_t kEncodeChunk = kMaxChunk / 3 * 3;
constexpr std::size_t kDecodeChunk = kMaxChunk;

class NssCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    if (length == 0) return Result::success(0);
    Sink sink{out, nullptr, encoded_size(Encoding::kBase64, length)};
    NSSBase64Encoder* encoder = NSSBase64Encoder_Create(take_text, &sink);
    if (encoder == nullptr) return Result::failure(Error::kLibraryFailure);
    bool ok = true;
    for (std::size_t done = 0; ok && done < length;) {
      const std::size_t chunk = std::min(length - done, kEncodeChunk);
      ok = NSSBase64Encoder_Update(encoder, in + done, static_cast<PRUint32>(chunk)) == SECSuccess;
      done += chunk;
    }
    // Destroy flushes the last group (with its padding); abort when failed.
    ok = NSSBase64Encoder_Destroy(encoder, ok ? PR_FALSE : PR_TRUE) == SECSuccess && ok;
    if (!ok || sink.written != sink.capacity) return Result::failure(Error::kLibraryFailure);
    return Result::success(sink.written);
  }

  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    // NSS's decoder skips characters outside the alphabet and accepts
    // missing padding and non-canonical bits, so validate strictly first.
    const Result checked = checked_decoded_size(Encoding::kBase64, text);
    if (!checked.ok() || text.empty()) return checked;
    Sink sink{nullptr, out, checked.size};
    NSSBase64Decoder* decoder = NSSBase64Decoder_Create(take_data, &sink);
    if (decoder == nullptr) return Result::failure(Error::kLibraryFailure);
    bool ok = true;
    for (std::size_t done = 0; ok && done < text.size();) {
      const std::size_t chunk = std::min(text.size() - done, kDecodeChunk);
      ok = NSSBase64Decoder_Update(decoder, text.data() + done, static_cast<PRUint32>(chunk)) ==
           SECSuccess;
      done += chunk;
    }
    ok = NSSBase64Decoder_Destroy(decoder, ok ? PR_FALSE : PR_TRUE) == SECSuccess && ok;
    if (!ok || sink.written != checked.size) return Result::failure(Error::kLibraryFailure);
    return checked;
  }

  // NSS has no public hex decoder, and its one hex encoder, CERT_Hexify, is
  // meant for certificate display (uppercase, heap-allocated, "00" for no
  // bytes): hex is the project's codec.
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    return project_codec().encode(Encoding::kHex, {in, length}, {out, 2 * length});
  }
  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    return project_codec().decode(Encoding::kHex, text,
                                  {out, decode_capacity(Encoding::kHex, text.size())});
  }
};

// HMAC-SHA256 through a CKM_SHA256_HMAC signing context, kept while the secret
// stays the same (PK11_DigestBegin restarts it); PBKDF2 through the PKCS #5 v2
// key generation (CKM_PKCS5_PBKD2 in softoken) and PK11_ExtractKeyValue.
class NssKeyDeriver final : public KeyDeriver {
 public:
  explicit NssKeyDeriver(PK11SlotInfo* slot)
      : slot_(slot != nullptr ? PK11_ReferenceSlot(slot) : nullptr) {}
  ~NssKeyDeriver() override {
    release_hmac();
    if (slot_ != nullptr) PK11_FreeSlot(slot_);
  }
  NssKeyDeriver(const NssKeyDeriver&) = delete;
  NssKeyDeriver& operator=(const NssKeyDeriver&) = delete;

  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    // SECItem lengths are unsigned int.
    if (slot_ == nullptr || out.size() > kSha256Size || secret.size() > UINT_MAX) {
      return Error::kLibraryFailure;
    }
    if (hmac_ == nullptr || !same_secret(secret)) {
      release_hmac();
      // An empty secret imports as an empty generic-secret key; softoken's
      // HMAC then pads it to the block size as RFC 2104 says.
      SECItem key_item = item(secret.data(), secret.size());
      hmac_key_ = PK11_ImportSymKey(slot_, CKM_SHA256_HMAC, PK11_OriginUnwrap, CKA_SIGN, &key_item,
                                    nullptr);
      SECItem no_param = {siBuffer, nullptr, 0};
      if (hmac_key_ != nullptr) {
        hmac_ = PK11_CreateContextBySymKey(CKM_SHA256_HMAC, CKA_SIGN, hmac_key_, &no_param);
      }
      if (hmac_ == nullptr) {
        release_hmac();
        return Error::kLibraryFailure;
      }
      secret_.assign(secret.begin(), secret.end());
    }
    bool ok = PK11_DigestBegin(hmac_) == SECSuccess;
    for (std::size_t done = 0; ok && done < message.size();) {
      const std::size_t chunk = std::min(message.size() - done, kMaxChunk);
      ok = PK11_DigestOp(hmac_, message.data() + done, static_cast<unsigned int>(chunk)) ==
           SECSuccess;
      done += chunk;
    }
    unsigned char mac[kSha256Size];
    unsigned int length = 0;
    ok = ok && PK11_DigestFinal(hmac_, mac, &length, sizeof mac) == SECSuccess &&
         length == kSha256Size;
    if (!ok) {
      release_hmac();  // the context's state is unknown now
      return Error::kLibraryFailure;
    }
    std::memcpy(out.data(), mac, out.size());
    secure_wipe(mac, sizeof mac);
    return Error::kNone;
  }

  // Softoken keeps the last three PBKDF2 results process-wide (keyed by
  // password, salt, iterations and length; NSS bug 1606992): a repeated
  // derivation is a cache hit. The benchmark's salts differ per operation.
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    if (slot_ == nullptr || iterations == 0 || iterations > INT_MAX || out.empty() ||
        out.size() > INT_MAX || salt.size() > UINT_MAX || password.size() > UINT_MAX) {
      return Error::kLibraryFailure;
    }
    SECItem salt_item = item(salt.data(), salt.size());
    SECAlgorithmID* algorithm = PK11_CreatePBEV2AlgorithmID(
        SEC_OID_PKCS5_PBKDF2, SEC_OID_HMAC_SHA256, SEC_OID_HMAC_SHA256,
        static_cast<int>(out.size()), static_cast<int>(iterations), &salt_item);
    if (algorithm == nullptr) return Error::kLibraryFailure;
    SECItem password_item = item(password.data(), password.size());
    PK11SymKey* key = PK11_PBEKeyGen(slot_, algorithm, &password_item, PR_FALSE, nullptr);
    SECOID_DestroyAlgorithmID(algorithm, PR_TRUE);
    if (key == nullptr) return Error::kLibraryFailure;
    Error result = Error::kLibraryFailure;
    if (PK11_ExtractKeyValue(key) == SECSuccess) {
      const SECItem* value = PK11_GetKeyData(key);  // owned by the key, zeroed when it is freed
      if (value != nullptr && value->data != nullptr && value->len == out.size()) {
        std::memcpy(out.data(), value->data, out.size());
        result = Error::kNone;
      }
    }
    PK11_FreeSymKey(key);
    return result;
  }

 private:
  bool same_secret(Bytes secret) const {
    if (secret.size() != secret_.size()) return false;
    unsigned char diff = 0;  // no early exit on the secret's bytes
    for (std::size_t i = 0; i < secret.size(); ++i)
      diff = static_cast<unsigned char>(diff | (secret[i] ^ secret_[i]));
    return diff == 0;
  }
  void release_hmac() {
    if (hmac_ != nullptr) PK11_DestroyContext(hmac_, PR_TRUE);
    if (hmac_key_ != nullptr) PK11_FreeSymKey(hmac_key_);
    hmac_ = nullptr;
    hmac_key_ = nullptr;
    secure_wipe(secret_.data(), secret_.size());
    secret_.clear();
  }

  PK11SlotInfo* slot_;
  PK11SymKey* hmac_key_ = nullptr;
  PK11Context* hmac_ = nullptr;
  std::vector<std::uint8_t> secret_;  // the secret hmac_key_ holds
};

// freebl picks its AES code when softoken loads it: the AES-NI assembly
// (intel-aes) when CPUID.1:ECX.AES is set and NSS_DISABLE_HW_AES is not in
// the environment (blinit.c's CheckX86CPUSupport, which reads any value as
// "disable"); else its C tables. PCLMUL only matters for GCM.
bool freebl_uses_aesni() {
  return hardware_cpu_features().aesni && std::getenv("NSS_DISABLE_HW_AES") == nullptr;
}

// freebl's GCM: its intel-gcm assembly when it uses AES-NI and the CPU also
// has PCLMUL and AVX (rijndael.c's AES_InitContext), else gcm.c.
bool freebl_uses_intel_gcm() {
  const CpuFeatures& cpu = hardware_cpu_features();
  return freebl_uses_aesni() && cpu.pclmulqdq && cpu.avx;
}

// The freebl library softoken loaded into this process, from /proc/self/maps.
std::string loaded_freebl() {
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return "";
  std::string found;
  char line[4096];
  while (found.empty() && std::fgets(line, sizeof line, maps) != nullptr) {
    const char* path = std::strchr(line, '/');
    if (path != nullptr && std::strstr(path, "freebl") != nullptr) {
      found.assign(path, std::strcspn(path, "\n"));
    }
  }
  std::fclose(maps);
  return found;
}

class NssBackend final : public AesBackend {
 public:
  // NSS is initialised before the slots are looked up (once per backend).
  NssBackend()
      : aes_slot_(nss_init_error().empty() ? PK11_GetBestSlot(CKM_AES_CBC, nullptr) : nullptr),
        kdf_slot_(nss_init_error().empty() ? PK11_GetBestSlot(CKM_SHA256_HMAC, nullptr) : nullptr) {
  }
  ~NssBackend() override {
    if (aes_slot_ != nullptr) PK11_FreeSlot(aes_slot_);
    if (kdf_slot_ != nullptr) PK11_FreeSlot(kdf_slot_);
  }
  NssBackend(const NssBackend&) = delete;
  NssBackend& operator=(const NssBackend&) = delete;
  BackendInfo info() const override {
    const bool aesni = freebl_uses_aesni();
    std::string freebl = loaded_freebl();
    if (freebl.empty()) freebl = "freebl (not found in /proc/self/maps)";
    return {.name = "nss",
            .library = "NSS",
            .version = NSS_GetVersion(),
            .code_path =
                std::string(aesni ? "freebl intel-aes (AES-NI assembly)"
                                  : "freebl rijndael.c (C tables, no AES-NI)") +
                ", per CPUID.1:ECX.AES and NSS_DISABLE_HW_AES " +
                (std::getenv("NSS_DISABLE_HW_AES") ? "set" : "unset") +
                " (freebl's rule); run by softoken from " + freebl +
                "; CBC and CTR re-key per message (PK11_Encrypt/PK11_Decrypt one-shot); GCM: " +
                (freebl_uses_intel_gcm() ? "freebl intel-gcm (AES-NI, PCLMUL and AVX assembly)"
                                         : "freebl gcm.c (no AES-NI+PCLMUL+AVX here)") +
                " by rijndael.c's rule, one message context per direction (PK11_AEADOp), "
                "keyed once",
            .codec =
                "NSS NSSBase64Encoder/NSSBase64Decoder (line breaks removed); hex: "
                "cryptobench codec (NSS has no hex decoder; CERT_Hexify is a "
                "display helper)",
            .kdf =
                "NSS PK11 CKM_SHA256_HMAC, PK11_PBEKeyGen PKCS #5 v2 PBKDF2 "
                "(SEC_OID_HMAC_SHA256)",
            .register_bits = aesni ? 128u : 0u,
            .modes = modes(),
            .not_offered = not_offered()};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<NssCipher>(mode, aes_slot_);
  }
  std::unique_ptr<AesCtr> make_ctr() const override {
    return has(CKM_AES_CTR) ? std::make_unique<NssCtr>(aes_slot_) : nullptr;
  }
  std::unique_ptr<AesGcm> make_gcm() const override {
    return has(CKM_AES_GCM) ? std::make_unique<NssGcm>(aes_slot_) : nullptr;
  }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<NssKeyDeriver>(kdf_slot_);
  }

 private:
  // CTR and GCM where the slot (softoken's, in practice) has the mechanism.
  bool has(CK_MECHANISM_TYPE mechanism) const {
    return aes_slot_ != nullptr && PK11_DoesMechanism(aes_slot_, mechanism);
  }
  std::vector<Mode> modes() const {
    std::vector<Mode> m = {Mode::kEcb, Mode::kCbc};
    if (has(CKM_AES_CTR)) m.push_back(Mode::kCtr);
    if (has(CKM_AES_GCM)) m.push_back(Mode::kGcm);
    return m;
  }
  std::string not_offered() const {
    std::string why;
    if (!has(CKM_AES_CTR)) why = "CTR: the AES slot has no CKM_AES_CTR";
    if (!has(CKM_AES_GCM))
      why += std::string(why.empty() ? "" : "; ") + "GCM: the AES slot has no CKM_AES_GCM";
    return why;
  }

  PK11SlotInfo* aes_slot_;  // the internal slot, in practice: NSS_NoDB_Init loads no other
  PK11SlotInfo* kdf_slot_;
  NssCodec codec_;
};

std::string nss_unusable_reason() {
  if (const std::string& error = nss_init_error(); !error.empty()) return error;
  PK11SlotInfo* slot = PK11_GetBestSlot(CKM_AES_CBC, nullptr);
  if (slot == nullptr) return "NSS has no slot for CKM_AES_CBC";
  PK11_FreeSlot(slot);
  return "";
}

}  // namespace

const BackendEntry& nss_backend_entry() {
  static const BackendEntry entry{
      "nss", "NSS 3 PK11 over softoken/freebl (library-chosen AES-NI path)", nss_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<NssBackend>(); }, "NSS"};
  return entry;
}

}  // namespace cryptobench
