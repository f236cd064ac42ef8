// ipsecmb_backend.cc: the Intel IPsec Multi-Buffer library (1.3) through its job API. Each
// AesCipher owns one IMB_MGR (init_mb_mgr_auto picks the architecture) and its expanded keys;
// every operation is a set of IMB_CIPHER_CBC / IMB_CIPHER_ECB jobs submitted and flushed. A
// batch of CBC messages is submitted as one job per message, so the manager encrypts them in
// its parallel lanes. CTR is an IMB_CIPHER_CNTR job per call; GCM the library's direct GCM API
// (IMB_AES*_GCM_ENC/DEC, and INIT_VAR_IV/UPDATE/FINALIZE for nonces other than 12 bytes) on
// the key data IMB_AES*_GCM_PRE computed once. Each CTR or GCM object owns its IMB_MGR too.
#include <dlfcn.h>
#include <intel-ipsec-mb.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "kernels/registry.h"

namespace cryptobench {
namespace {

// The job checks (lib/include/mb_mgr_job_check.h, MB_MAX_LEN16 = 65534 bytes) refuse longer
// CBC-encryption and ECB jobs, so those are fed in chunks of at most this many blocks.
constexpr std::size_t kMaxJobBlocks = 65534 / kAesBlockSize;

// ManagerType: one of the managers init_mb_mgr_auto can set up, as the v1.3 sources
// (lib/<arch>_t<n>/mb_mgr_<arch>_t<n>.c) define it: the feature mask its init requires, the
// exported submit_job it installs, the lanes of its CBC-encrypt out-of-order manager
// (ooo_mgr_aes_reset(state->aes128_ooo, lanes)) and the AES-128 kernels behind its jobs
// (192 and 256 use the same families).
struct ManagerType {
  IMB_ARCH arch;
  std::uint64_t needs;
  const char* name;
  const char* submit_symbol;
  unsigned lanes;
  unsigned register_bits;      // of CBC decryption (and ECB unless below)
  unsigned ecb_register_bits;  // ECB's when it differs, else 0
  const char* kernels;
};

// Within an architecture the library takes the first type whose mask the CPU meets.
constexpr ManagerType kManagerTypes[] = {
    {IMB_ARCH_AVX512, IMB_CPUFLAGS_AVX512_T2, "AVX-512 type 2", "submit_job_avx512_t2", 16, 512, 0,
     "CBC encrypt: the 16-lane aes_cbc_enc_vaes_avx512 manager (VAES, zmm); CBC decrypt: "
     "aes_cbc_dec_128_vaes_avx512; ECB: aes_ecb_enc_128_vaes_avx512"},
    {IMB_ARCH_AVX512, IMB_CPUFLAGS_AVX512, "AVX-512 type 1", "submit_job_avx512_t1", 8, 128, 0,
     "CBC encrypt: the 8-lane aes128_cbc_enc_x8_avx manager; CBC decrypt: aes_cbc_dec_128_avx; "
     "ECB: aes_ecb_enc_128_avx (AES-NI, xmm)"},
    {IMB_ARCH_AVX2, IMB_CPUFLAGS_AVX2_T2, "AVX2 type 2", "submit_job_avx2_t2", 8, 128, 256,
     "CBC encrypt: the 8-lane aes128_cbc_enc_x8_avx manager; CBC decrypt: aes_cbc_dec_128_avx "
     "(AES-NI, xmm); ECB: aes_ecb_enc_128_vaes_avx2 (VAES, ymm)"},
    {IMB_ARCH_AVX2, IMB_CPUFLAGS_AVX2, "AVX2 type 1", "submit_job_avx2_t1", 8, 128, 0,
     "CBC encrypt: the 8-lane aes128_cbc_enc_x8_avx manager; CBC decrypt: aes_cbc_dec_128_avx; "
     "ECB: aes_ecb_enc_128_avx (AES-NI, xmm: the AVX kernels)"},
    {IMB_ARCH_AVX, IMB_CPUFLAGS_AVX_T2, "AVX type 2", "submit_job_avx_t2", 8, 128, 0,
     "CBC encrypt: the 8-lane aes128_cbc_enc_x8_avx manager; CBC decrypt: aes_cbc_dec_128_avx; "
     "ECB: aes_ecb_enc_128_avx (AES-NI, xmm)"},
    {IMB_ARCH_AVX, IMB_CPUFLAGS_AVX, "AVX type 1", "submit_job_avx_t1", 8, 128, 0,
     "CBC encrypt: the 8-lane aes128_cbc_enc_x8_avx manager; CBC decrypt: aes_cbc_dec_128_avx; "
     "ECB: aes_ecb_enc_128_avx (AES-NI, xmm)"},
    {IMB_ARCH_SSE, IMB_CPUFLAGS_SSE_T3, "SSE type 3", "submit_job_sse_t3", 8, 128, 0,
     "CBC encrypt: the 8-lane aes128_cbc_enc_x8_sse manager; CBC decrypt: "
     "aes_cbc_dec_128_by8_sse; ECB: aes_ecb_enc_128_by8_sse (AES-NI, xmm)"},
    {IMB_ARCH_SSE, IMB_CPUFLAGS_SSE_T2, "SSE type 2", "submit_job_sse_t2", 4, 128, 0,
     "CBC encrypt: the 4-lane aes128_cbc_enc_x4_sse manager; CBC decrypt: aes_cbc_dec_128_sse; "
     "ECB: aes_ecb_enc_128_by4_sse (AES-NI, xmm)"},
    {IMB_ARCH_SSE, IMB_CPUFLAGS_SSE, "SSE type 1", "submit_job_sse_t1", 4, 128, 0,
     "CBC encrypt: the 4-lane aes128_cbc_enc_x4_sse manager; CBC decrypt: aes_cbc_dec_128_sse; "
     "ECB: aes_ecb_enc_128_by4_sse (AES-NI, xmm)"},
};

struct FeatureName {
  std::uint64_t bit;
  const char* name;
};
constexpr FeatureName kFeatureNames[] = {
    {IMB_FEATURE_SHANI, "SHANI"},         {IMB_FEATURE_AESNI, "AESNI"},
    {IMB_FEATURE_PCLMULQDQ, "PCLMULQDQ"}, {IMB_FEATURE_CMOV, "CMOV"},
    {IMB_FEATURE_SSE4_2, "SSE4_2"},       {IMB_FEATURE_AVX, "AVX"},
    {IMB_FEATURE_AVX2, "AVX2"},           {IMB_FEATURE_AVX512F, "AVX512F"},
    {IMB_FEATURE_AVX512DQ, "AVX512DQ"},   {IMB_FEATURE_AVX512CD, "AVX512CD"},
    {IMB_FEATURE_AVX512BW, "AVX512BW"},   {IMB_FEATURE_AVX512VL, "AVX512VL"},
    {IMB_FEATURE_VAES, "VAES"},           {IMB_FEATURE_VPCLMULQDQ, "VPCLMULQDQ"},
    {IMB_FEATURE_SAFE_DATA, "SAFE_DATA"}, {IMB_FEATURE_SAFE_PARAM, "SAFE_PARAM"},
    {IMB_FEATURE_GFNI, "GFNI"},           {IMB_FEATURE_AVX512_IFMA, "AVX512_IFMA"},
    {IMB_FEATURE_BMI2, "BMI2"},           {IMB_FEATURE_AESNI_EMU, "AESNI_EMU"},
    {IMB_FEATURE_SELF_TEST, "SELF_TEST"}, {IMB_FEATURE_SELF_TEST_PASS, "SELF_TEST_PASS"},
};

std::string feature_names(std::uint64_t features) {
  std::string names;
  for (const FeatureName& f : kFeatureNames) {
    if ((features & f.bit) == 0) continue;
    if (!names.empty()) names += ' ';
    names += f.name;
  }
  return names;
}

const char* arch_name(IMB_ARCH arch) {
  switch (arch) {
    case IMB_ARCH_SSE:
      return "IMB_ARCH_SSE";
    case IMB_ARCH_AVX:
      return "IMB_ARCH_AVX";
    case IMB_ARCH_AVX2:
      return "IMB_ARCH_AVX2";
    case IMB_ARCH_AVX512:
      return "IMB_ARCH_AVX512";
    case IMB_ARCH_NOAESNI:
      return "IMB_ARCH_NOAESNI";
    default:
      return "IMB_ARCH_NONE";
  }
}

struct MgrDeleter {
  void operator()(IMB_MGR* mgr) const { free_mb_mgr(mgr); }
};
using MgrPtr = std::unique_ptr<IMB_MGR, MgrDeleter>;

// new_manager: an initialised manager, or null (with `failure` saying why).
MgrPtr new_manager(IMB_ARCH* arch, std::string* failure) {
  MgrPtr mgr(alloc_mb_mgr(0));
  if (mgr == nullptr) {
    *failure = "alloc_mb_mgr failed";
    return nullptr;
  }
  *arch = IMB_ARCH_NONE;
  init_mb_mgr_auto(mgr.get(), arch);
  if (const int e = imb_get_errno(mgr.get()); e != 0 || *arch == IMB_ARCH_NONE) {
    *failure = std::string("init_mb_mgr_auto: ") +
               (e != 0 ? imb_get_strerror(e) : "no architecture this library supports") +
               " (IMB_MGR features: " + feature_names(mgr->features) + ")";
    return nullptr;
  }
  if (*arch == IMB_ARCH_NOAESNI) {
    *failure = "init_mb_mgr_auto chose the AES-NI emulation (the CPU lacks AES-NI)";
    return nullptr;
  }
  return mgr;
}

// Probe: what the library sets up on this machine, found once per process.
struct Probe {
  std::string failure;  // "" when a manager could be set up
  IMB_ARCH arch = IMB_ARCH_NONE;
  std::uint64_t features = 0;
  const ManagerType* type = nullptr;
  bool confirmed = false;  // its submit_job is the type's exported one (dlsym)
};

Probe run_probe() {
  Probe p;
  const MgrPtr mgr = new_manager(&p.arch, &p.failure);
  if (mgr == nullptr) return p;
  p.features = mgr->features;
  for (const ManagerType& t : kManagerTypes) {
    if (t.arch == p.arch && (p.features & t.needs) == t.needs) {
      p.type = &t;
      break;
    }
  }
  if (p.type == nullptr) {
    p.failure = std::string("init_mb_mgr_auto chose ") + arch_name(p.arch) +
                " but the features do not match any manager type: " + feature_names(p.features);
    return p;
  }
  // The library exports each type's submit_job (undeclared in its header); the pointer the
  // manager holds shows which one init really installed.
  const void* symbol = dlsym(RTLD_DEFAULT, p.type->submit_symbol);
  p.confirmed = symbol != nullptr && symbol == reinterpret_cast<const void*>(mgr->submit_job);
  return p;
}

const Probe& probe() {
  static const Probe p = run_probe();
  return p;
}

class IpsecmbCipher final : public AesCipher {
 public:
  explicit IpsecmbCipher(Mode mode) : AesCipher(mode) {
    IMB_ARCH arch = IMB_ARCH_NONE;
    std::string failure;
    mgr_ = new_manager(&arch, &failure);
  }
  ~IpsecmbCipher() override {
    secure_wipe(enc_keys_, sizeof enc_keys_);
    secure_wipe(dec_keys_, sizeof dec_keys_);
  }

 protected:
  Error schedule_key(Bytes key) override {
    if (mgr_ == nullptr) return Error::kLibraryFailure;
    // The expansions return nothing; they fail only on null pointers (reported through the
    // library's process-wide errno, which other threads write too), and none is passed.
    switch (key.size()) {
      case 16:
        IMB_AES_KEYEXP_128(mgr_.get(), key.data(), enc_keys_, dec_keys_);
        break;
      case 24:
        IMB_AES_KEYEXP_192(mgr_.get(), key.data(), enc_keys_, dec_keys_);
        break;
      default:
        IMB_AES_KEYEXP_256(mgr_.get(), key.data(), enc_keys_, dec_keys_);
        break;
    }
    return Error::kNone;
  }

  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (iv == nullptr) return ecb(IMB_DIR_ENCRYPT, in, out, blocks);
    CbcLane lane{enc_keys_, iv, in, out, blocks, nullptr};
    return cbc_encrypt(&lane, 1) ? Error::kNone : Error::kLibraryFailure;
  }

  Error encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                           std::size_t blocks, const std::uint8_t* final) override {
    if (iv == nullptr) return AesCipher::encrypt_with_final(iv, in, out, blocks, final);
    CbcLane lane{enc_keys_, iv, in, out, blocks, final};
    return cbc_encrypt(&lane, 1) ? Error::kNone : Error::kLibraryFailure;
  }

  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (iv == nullptr) return ecb(IMB_DIR_DECRYPT, in, out, blocks);
    // CBC decryption has no job length limit: one job, decrypted by the manager at once.
    bool failed = false;
    submit(IMB_CIPHER_CBC, IMB_DIR_DECRYPT, iv, in, out, blocks, &failed);
    flush();
    return failed ? Error::kLibraryFailure : Error::kNone;
  }

  // CBC: one job per message, all submitted before the flush, so the manager fills its lanes
  // with different messages.
  void encrypt_checked_batch(Padding padding, std::span<BatchMessage> messages) override {
    if (mode() != Mode::kCbc) {
      AesCipher::encrypt_checked_batch(padding, messages);  // ECB jobs are not interleaved
      return;
    }
    // Chunks with their padded last blocks on the stack: no allocation.
    constexpr std::size_t kChunk = 64;
    CbcLane lanes[kChunk];
    alignas(16) std::uint8_t finals[kChunk][kAesBlockSize];
    while (!messages.empty()) {
      const std::size_t n = std::min(kChunk, messages.size());
      for (std::size_t i = 0; i < n; ++i) {
        const BatchMessage& m = messages[i];
        // encrypt_batch checked that every key is an IpsecmbCipher of this key size.
        const auto* key = static_cast<const IpsecmbCipher*>(m.key != nullptr ? m.key : this);
        const std::size_t blocks = m.in.size() / kAesBlockSize;
        const std::uint8_t* final = nullptr;
        if (padding == Padding::kPkcs7) {
          pkcs7_fill_last_block(m.in.data() + blocks * kAesBlockSize, m.in.size() % kAesBlockSize,
                                finals[i]);
          final = finals[i];
        }
        lanes[i] = {key->enc_keys_, m.iv.data(), m.in.data(), m.out.data(), blocks, final};
      }
      cbc_encrypt(lanes, n);
      if (padding == Padding::kPkcs7) secure_wipe(finals, n * kAesBlockSize);
      for (std::size_t i = 0; i < n; ++i) {
        messages[i].result = lanes[i].failed ? Result::failure(Error::kLibraryFailure)
                                             : Result::success(lanes[i].total() * kAesBlockSize);
      }
      messages = messages.subspan(n);
    }
  }

 private:
  // CbcLane: one message of a CBC encryption: `blocks` whole blocks of `in`, then `final`
  // (the padded last block) when it is not null.
  struct CbcLane {
    const std::uint8_t* keys = nullptr;
    const std::uint8_t* iv = nullptr;
    const std::uint8_t* in = nullptr;
    std::uint8_t* out = nullptr;
    std::size_t blocks = 0;
    const std::uint8_t* final = nullptr;
    std::size_t done = 0;  // blocks of `out` submitted
    bool failed = false;

    std::size_t total() const { return blocks + (final != nullptr ? 1 : 0); }
  };

  // cbc_encrypt: each round submits the next job of every unfinished message, then flushes;
  // a message needs more than one round only past the job length limit. The final block is
  // joined to its message's last job by gathering that job's plaintext in `out` (the message
  // must be one contiguous job: the chain runs through it). A failed message's output is
  // wiped. Returns false when any failed.
  bool cbc_encrypt(CbcLane* lanes, std::size_t n) {
    bool pending = true;
    while (pending) {
      pending = false;
      for (std::size_t i = 0; i < n; ++i) {
        CbcLane& lane = lanes[i];
        if (lane.failed || lane.done == lane.total()) continue;
        const std::uint8_t* src = lane.in + lane.done * kAesBlockSize;
        std::uint8_t* dst = lane.out + lane.done * kAesBlockSize;
        const std::uint8_t* iv = lane.done == 0 ? lane.iv : dst - kAesBlockSize;
        std::size_t job_blocks = std::min(lane.blocks - lane.done, kMaxJobBlocks);
        if (lane.final != nullptr && lane.blocks - lane.done < kMaxJobBlocks) {
          if (job_blocks != 0 && dst != src) std::memcpy(dst, src, job_blocks * kAesBlockSize);
          std::memcpy(dst + job_blocks * kAesBlockSize, lane.final, kAesBlockSize);
          src = dst;
          ++job_blocks;
        }
        submit(IMB_CIPHER_CBC, IMB_DIR_ENCRYPT, iv, src, dst, job_blocks, &lane.failed, lane.keys);
        lane.done += job_blocks;
        pending = pending || lane.done != lane.total();
      }
      flush();
    }
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (!lanes[i].failed) continue;
      secure_wipe(lanes[i].out, lanes[i].total() * kAesBlockSize);
      ok = false;
    }
    return ok;
  }

  // ecb: independent jobs of at most kMaxJobBlocks, all submitted, then flushed.
  Error ecb(IMB_CIPHER_DIRECTION direction, const std::uint8_t* in, std::uint8_t* out,
            std::size_t blocks) {
    bool failed = false;
    for (std::size_t done = 0; done < blocks;) {
      const std::size_t job_blocks = std::min(blocks - done, kMaxJobBlocks);
      submit(IMB_CIPHER_ECB, direction, nullptr, in + done * kAesBlockSize,
             out + done * kAesBlockSize, job_blocks, &failed);
      done += job_blocks;
    }
    flush();
    if (failed) secure_wipe(out, blocks * kAesBlockSize);
    return failed ? Error::kLibraryFailure : Error::kNone;
  }

  // submit: queues one cipher-only job under `enc_keys` (default: this cipher's) and
  // dec_keys_; any failure of it sets *failed. A job the manager hands back completed is
  // checked at once (it is only valid until the next IMB_GET_NEXT_JOB).
  void submit(IMB_CIPHER_MODE cipher_mode, IMB_CIPHER_DIRECTION direction, const std::uint8_t* iv,
              const std::uint8_t* src, std::uint8_t* dst, std::size_t blocks, bool* failed,
              const std::uint8_t* enc_keys = nullptr) {
    IMB_JOB* job = IMB_GET_NEXT_JOB(mgr_.get());
    if (job == nullptr) {
      *failed = true;
      return;
    }
    job->cipher_mode = cipher_mode;
    job->cipher_direction = direction;
    job->chain_order = direction == IMB_DIR_ENCRYPT ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
    job->hash_alg = IMB_AUTH_NULL;
    job->key_len_in_bytes = key_size();
    job->enc_keys = enc_keys != nullptr ? enc_keys : enc_keys_;
    job->dec_keys = dec_keys_;
    job->iv = iv;
    job->iv_len_in_bytes = iv != nullptr ? kAesBlockSize : 0;
    job->src = src;
    job->dst = dst;
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = blocks * kAesBlockSize;
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = 0;
    job->auth_tag_output = nullptr;
    job->auth_tag_output_len_in_bytes = 0;
    job->user_data = failed;
    IMB_JOB* completed = IMB_SUBMIT_JOB(mgr_.get());
    // A rejected job is also handed back later with IMB_STATUS_INVALID_ARGS.
    if (imb_get_errno(mgr_.get()) != 0) *failed = true;
    if (completed != nullptr) check(completed);
  }

  // flush: completes every queued job (in submission order).
  void flush() {
    while (IMB_JOB* job = IMB_FLUSH_JOB(mgr_.get())) check(job);
  }

  static void check(const IMB_JOB* job) {
    if (job->status != IMB_STATUS_COMPLETED) *static_cast<bool*>(job->user_data) = true;
  }

  MgrPtr mgr_;
  // The library's expanded keys (15 round keys for AES-256), 16-byte aligned as it needs.
  alignas(16) std::uint8_t enc_keys_[15 * kAesBlockSize] = {};
  alignas(16) std::uint8_t dec_keys_[15 * kAesBlockSize] = {};
};

// CTR: one IMB_CIPHER_CNTR job per call with the 16-byte counter block as the IV (the job
// also takes a 12-byte IV, completed with the counter 1; nothing else: IMB_ERR_JOB_IV_LEN).
// Its kernels increment only the low 32 bits of the block, big-endian, without a carry into
// the rest (measured with this machine's AVX2 manager: from ...ff fe the third block differs
// from a 128-bit counter's at every key size, while no message that stays clear of a 32-bit
// wrap does), so limits() says 32 and the base class splits a message at each wrap; 32 is
// right for a manager that counts wider, too. An empty
// job is refused (IMB_ERR_JOB_CIPH_LEN), which the base class never sends.
class IpsecmbCtr final : public AesCtr {
 public:
  IpsecmbCtr() {
    IMB_ARCH arch = IMB_ARCH_NONE;
    std::string failure;
    mgr_ = new_manager(&arch, &failure);
  }
  ~IpsecmbCtr() override {
    secure_wipe(enc_keys_, sizeof enc_keys_);
    secure_wipe(dec_keys_, sizeof dec_keys_);
  }
  CtrLimits limits() const override { return {.counter_bits = 32}; }

 protected:
  Error schedule_key(Bytes key) override {
    if (mgr_ == nullptr) return Error::kLibraryFailure;
    // As for the block modes: the expansions fail only on null pointers (see IpsecmbCipher).
    switch (key.size()) {
      case 16:
        IMB_AES_KEYEXP_128(mgr_.get(), key.data(), enc_keys_, dec_keys_);
        break;
      case 24:
        IMB_AES_KEYEXP_192(mgr_.get(), key.data(), enc_keys_, dec_keys_);
        break;
      default:
        IMB_AES_KEYEXP_256(mgr_.get(), key.data(), enc_keys_, dec_keys_);
        break;
    }
    return Error::kNone;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    // Jobs of at most 1 GiB (whole blocks; the next starts at the counter advanced past
    // them, within the low 32 bits: the base class keeps a call clear of their wrap).
    constexpr std::size_t kMaxCtrJob = std::size_t{1} << 30;
    Block block;
    std::memcpy(block.data(), counter, kAesBlockSize);
    for (std::size_t done = 0; done < size;) {
      const std::size_t chunk = std::min(size - done, kMaxCtrJob);
      if (!run_job(block.data(), in + done, out + done, chunk)) return Error::kLibraryFailure;
      ctr_add(block.data(), chunk / kAesBlockSize);
      done += chunk;
    }
    return Error::kNone;
  }

 private:
  // run_job: one CNTR job, submitted and flushed; true when it completed.
  bool run_job(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
               std::size_t size) {
    IMB_JOB* job = IMB_GET_NEXT_JOB(mgr_.get());
    if (job == nullptr) return false;
    job->cipher_mode = IMB_CIPHER_CNTR;
    job->cipher_direction = IMB_DIR_ENCRYPT;
    job->chain_order = IMB_ORDER_CIPHER_HASH;
    job->hash_alg = IMB_AUTH_NULL;
    job->key_len_in_bytes = key_size();
    job->enc_keys = enc_keys_;
    job->dec_keys = enc_keys_;  // CTR decrypts with the encryption schedule
    job->iv = counter;
    job->iv_len_in_bytes = kAesBlockSize;
    job->src = in;
    job->dst = out;
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = size;
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = 0;
    job->auth_tag_output = nullptr;
    job->auth_tag_output_len_in_bytes = 0;
    bool ok = true;
    IMB_JOB* completed = IMB_SUBMIT_JOB(mgr_.get());
    // A rejected job is also handed back later with IMB_STATUS_INVALID_ARGS.
    if (imb_get_errno(mgr_.get()) != 0) ok = false;
    if (completed != nullptr && completed->status != IMB_STATUS_COMPLETED) ok = false;
    while (IMB_JOB* flushed = IMB_FLUSH_JOB(mgr_.get())) {
      if (flushed->status != IMB_STATUS_COMPLETED) ok = false;
    }
    return ok;
  }

  MgrPtr mgr_;
  alignas(16) std::uint8_t enc_keys_[15 * kAesBlockSize] = {};
  alignas(16) std::uint8_t dec_keys_[15 * kAesBlockSize] = {};
};

// GCM: the direct API on the manager's architecture-specific GCM functions (init_mb_mgr_auto
// installed them), over the gcm_key_data (round keys and GHASH key powers) that
// IMB_AES*_GCM_PRE computes once per key. A 12-byte nonce takes one IMB_AES*_GCM_ENC/DEC call;
// any other length INIT_VAR_IV, UPDATE and FINALIZE (the library hashes the nonce). Measured
// against OpenSSL: nonces of 1 to 128 bytes (and 65,536 accepted), tags of 1 to 16 bytes at
// every key size (0 and 17 are refused with IMB_ERR_AUTH_TAG_LEN, a zero IV length with
// IMB_ERR_IV_LEN). Decryption returns the tag it computed: it is compared here in constant
// time. These calls return nothing; their argument errors (null pointers, those lengths, all
// excluded before the call) go to the library's process-wide imb_errno, which other threads'
// calls write too, so it is not read.
GcmLimits ipsecmb_gcm_limits() {
  return {.min_nonce = 1, .max_nonce = std::size_t{1} << 16, .min_tag = 4};
}

class IpsecmbGcm final : public AesGcm {
 public:
  IpsecmbGcm() {
    IMB_ARCH arch = IMB_ARCH_NONE;
    std::string failure;
    mgr_ = new_manager(&arch, &failure);
  }
  ~IpsecmbGcm() override {
    secure_wipe(&key_, sizeof key_);
    secure_wipe(&context_, sizeof context_);
  }
  GcmLimits limits() const override { return ipsecmb_gcm_limits(); }

 protected:
  Error schedule_key(Bytes key) override {
    if (mgr_ == nullptr) return Error::kLibraryFailure;
    IMB_MGR* m = mgr_.get();
    switch (key.size()) {
      case 16:
        IMB_AES128_GCM_PRE(m, key.data(), &key_);
        break;
      case 24:
        IMB_AES192_GCM_PRE(m, key.data(), &key_);
        break;
      default:
        IMB_AES256_GCM_PRE(m, key.data(), &key_);
        break;
    }
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    run(true, nonce, aad, in, out, tag.data(), tag.size());
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    std::uint8_t computed[16];
    run(false, nonce, aad, in, out, computed, tag.size());
    const bool match = constant_time_equal(computed, tag.data(), tag.size());
    secure_wipe(computed, sizeof computed);
    return match ? Error::kNone : Error::kBadTag;
  }

 private:
  // run: one message; `tag` receives `tag_size` bytes of the tag (sealing: the tag; opening:
  // the tag of the ciphertext, to compare). Empty buffers get a valid pointer all the same.
  void run(bool sealing, Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out, std::uint8_t* tag,
           std::size_t tag_size) {
    static std::uint8_t empty[1];
    const std::uint8_t* src = in.empty() ? empty : in.data();
    std::uint8_t* dst = in.empty() ? empty : out;
    const std::uint8_t* a = aad.empty() ? empty : aad.data();
    IMB_MGR* m = mgr_.get();
    const std::uint64_t n = in.size(), an = aad.size(), tn = tag_size;
    if (nonce.size() == 12) {
      switch (key_size()) {
        case 16:
          if (sealing) {
            IMB_AES128_GCM_ENC(m, &key_, &context_, dst, src, n, nonce.data(), a, an, tag, tn);
          } else {
            IMB_AES128_GCM_DEC(m, &key_, &context_, dst, src, n, nonce.data(), a, an, tag, tn);
          }
          return;
        case 24:
          if (sealing) {
            IMB_AES192_GCM_ENC(m, &key_, &context_, dst, src, n, nonce.data(), a, an, tag, tn);
          } else {
            IMB_AES192_GCM_DEC(m, &key_, &context_, dst, src, n, nonce.data(), a, an, tag, tn);
          }
          return;
        default:
          if (sealing) {
            IMB_AES256_GCM_ENC(m, &key_, &context_, dst, src, n, nonce.data(), a, an, tag, tn);
          } else {
            IMB_AES256_GCM_DEC(m, &key_, &context_, dst, src, n, nonce.data(), a, an, tag, tn);
          }
          return;
      }
    }
    const std::uint64_t nn = nonce.size();
    switch (key_size()) {
      case 16:
        IMB_AES128_GCM_INIT_VAR_IV(m, &key_, &context_, nonce.data(), nn, a, an);
        if (sealing) {
          IMB_AES128_GCM_ENC_UPDATE(m, &key_, &context_, dst, src, n);
          IMB_AES128_GCM_ENC_FINALIZE(m, &key_, &context_, tag, tn);
        } else {
          IMB_AES128_GCM_DEC_UPDATE(m, &key_, &context_, dst, src, n);
          IMB_AES128_GCM_DEC_FINALIZE(m, &key_, &context_, tag, tn);
        }
        return;
      case 24:
        IMB_AES192_GCM_INIT_VAR_IV(m, &key_, &context_, nonce.data(), nn, a, an);
        if (sealing) {
          IMB_AES192_GCM_ENC_UPDATE(m, &key_, &context_, dst, src, n);
          IMB_AES192_GCM_ENC_FINALIZE(m, &key_, &context_, tag, tn);
        } else {
          IMB_AES192_GCM_DEC_UPDATE(m, &key_, &context_, dst, src, n);
          IMB_AES192_GCM_DEC_FINALIZE(m, &key_, &context_, tag, tn);
        }
        return;
      default:
        IMB_AES256_GCM_INIT_VAR_IV(m, &key_, &context_, nonce.data(), nn, a, an);
        if (sealing) {
          IMB_AES256_GCM_ENC_UPDATE(m, &key_, &context_, dst, src, n);
          IMB_AES256_GCM_ENC_FINALIZE(m, &key_, &context_, tag, tn);
        } else {
          IMB_AES256_GCM_DEC_UPDATE(m, &key_, &context_, dst, src, n);
          IMB_AES256_GCM_DEC_FINALIZE(m, &key_, &context_, tag, tn);
        }
        return;
    }
  }

  MgrPtr mgr_;
  // The header aligns gcm_key_data to 64 bytes only where LINUX is defined (the library's
  // own build flag), and its kernels store to it with aligned moves: aligned here.
  alignas(64) gcm_key_data key_{};
  alignas(64) gcm_context_data context_{};  // one message's state (its keystream included)
};

class IpsecmbBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    const Probe& p = probe();
    char features[32];
    std::snprintf(features, sizeof features, "0x%llx", static_cast<unsigned long long>(p.features));
    std::string path = std::string("init_mb_mgr_auto chose ") + arch_name(p.arch);
    if (p.type != nullptr) {
      path += ": the " + std::string(p.type->name) + " manager (";
      // The next better type of this architecture, and the features it lacks here.
      if (p.type != kManagerTypes && (p.type - 1)->arch == p.arch) {
        path += std::string((p.type - 1)->name) + " would also need " +
                feature_names((p.type - 1)->needs & ~p.features) + "; ";
      }
      path += p.confirmed ? "confirmed: the IMB_MGR's submit_job is the library's "
                          : "NOT confirmed: the IMB_MGR's submit_job is not the library's ";
      path += std::string(p.type->submit_symbol) + ", found by dlsym); " + p.type->kernels;
      path += " (kernels and lane counts from the ipsec-mb v1.3 source of that manager's init)";
    }
    path += "; IMB_MGR features " + std::string(features) + " (" + feature_names(p.features) +
            "); CBC-encryption and ECB jobs of at most 65520 bytes (the job check's limit), "
            "longer inputs go as several jobs (CBC: chained); one IMB_MGR per cipher (its "
            "initialisation runs the library's self-test, a few hundred microseconds, which "
            "pool-off key:per-op cells include, as they create a cipher per operation); CTR: "
            "one IMB_CIPHER_CNTR job per call, whose counter is the low 32 bits of the block "
            "(a message is split where they wrap); GCM: the direct GCM API the manager "
            "installed for its architecture (IMB_AES*_GCM_ENC/DEC for 12-byte nonces, "
            "INIT_VAR_IV/UPDATE/FINALIZE otherwise) on key data precomputed once per key; each "
            "CTR and GCM object has its own IMB_MGR";
    return {.name = "ipsecmb",
            .library = "Intel IPsec Multi-Buffer",
            .version = imb_get_version_str(),
            .code_path = path,
            .codec = "cryptobench codec (the library has none)",
            .kdf = "",
            .register_bits = p.type != nullptr ? p.type->register_bits : 0u,
            .ecb_register_bits = p.type != nullptr ? p.type->ecb_register_bits : 0u,
            .batch_lanes = p.type != nullptr ? p.type->lanes : 0u,
            .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm},
            .codec_source = CodecSource::kProject};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<IpsecmbCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return std::make_unique<IpsecmbCtr>(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return std::make_unique<IpsecmbGcm>(); }
  const TextCodec& codec() const override { return project_codec(); }
  // No make_key_deriver: ipsec-mb has HMAC-SHA256 jobs but no PBKDF2, so the registry's
  // fallback derives keys.
};

std::string ipsecmb_unusable_reason() { return probe().failure; }

}  // namespace

const BackendEntry& ipsecmb_backend_entry() {
  static const BackendEntry entry{
      "ipsecmb", "Intel IPsec Multi-Buffer job API (library-chosen SSE/AVX/AVX2/AVX-512 manager)",
      ipsecmb_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<IpsecmbBackend>(); },
      "Intel IPsec Multi-Buffer"};
  return entry;
}

}  // namespace cryptobench
