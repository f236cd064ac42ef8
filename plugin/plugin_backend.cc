#include "plugin/plugin_backend.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace cryptobench::plugin {
namespace {

constexpr std::uint32_t kAllModes = CRYPTOBENCH_PLUGIN_ECB | CRYPTOBENCH_PLUGIN_CBC |
                                    CRYPTOBENCH_PLUGIN_CTR | CRYPTOBENCH_PLUGIN_GCM;
constexpr std::uint32_t kAllKeys =
    CRYPTOBENCH_PLUGIN_AES128 | CRYPTOBENCH_PLUGIN_AES192 | CRYPTOBENCH_PLUGIN_AES256;

std::uint32_t mode_bit(Mode mode) {
  switch (mode) {
    case Mode::kEcb:
      return CRYPTOBENCH_PLUGIN_ECB;
    case Mode::kCbc:
      return CRYPTOBENCH_PLUGIN_CBC;
    case Mode::kCtr:
      return CRYPTOBENCH_PLUGIN_CTR;
    case Mode::kGcm:
      return CRYPTOBENCH_PLUGIN_GCM;
  }
  return 0;
}

std::uint32_t key_bit(std::size_t key_bytes) {
  return key_bytes == 16   ? CRYPTOBENCH_PLUGIN_AES128
         : key_bytes == 24 ? CRYPTOBENCH_PLUGIN_AES192
         : key_bytes == 32 ? CRYPTOBENCH_PLUGIN_AES256
                           : 0;
}

Error library_error(int code) { return code == 0 ? Error::kNone : Error::kLibraryFailure; }

std::string sha256_hex(const std::vector<char>& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) != 1) return "";
  std::string hex;
  for (unsigned i = 0; i < size; ++i) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", digest[i]);
    hex += two;
  }
  return hex;
}

// read_all: the open file's bytes; false on an error.
bool read_all(int fd, std::vector<char>* out) {
  char buffer[1 << 16];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out->insert(out->end(), buffer, buffer + n);
  }
  return true;
}

// One line: a plugin's strings are shown to users and written to the JSON.
std::string one_line(const char* text, std::size_t limit = 300) {
  std::string out;
  for (const char* p = text; *p != '\0' && out.size() < limit; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  }
  return out;
}

bool valid_name(const char* name) {
  const std::size_t n = std::strlen(name);
  if (n == 0 || n > 32 || name[0] < 'a' || name[0] > 'z') return false;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// Context: one plugin context, freed with the object that owns it.
class Context {
 public:
  Context(const cryptobench_plugin& t, Mode mode) : t_(t), c_(t.new_context(mode_bit(mode))) {}
  ~Context() {
    if (c_ != nullptr) t_.free_context(c_);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  const cryptobench_plugin& t() const { return t_; }
  cryptobench_plugin_context* get() const { return c_; }
  Error set_key(Bytes key) const {
    if ((t_.key_sizes & key_bit(key.size())) == 0) return Error::kKeyNotOffered;
    if (c_ == nullptr) return Error::kLibraryFailure;
    return library_error(t_.set_key(c_, key.data(), key.size()));
  }

 private:
  const cryptobench_plugin& t_;
  cryptobench_plugin_context* c_;
};

class PluginCipher final : public AesCipher {
 public:
  PluginCipher(const cryptobench_plugin& t, Mode mode) : AesCipher(mode), ctx_(t, mode) {}

 protected:
  Error schedule_key(Bytes key) override { return ctx_.set_key(key); }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return library_error(ctx_.t().encrypt_blocks(ctx_.get(), iv, in, out, blocks));
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return library_error(ctx_.t().decrypt_blocks(ctx_.get(), iv, in, out, blocks));
  }

 private:
  Context ctx_;
};

class PluginCtr final : public AesCtr {
 public:
  explicit PluginCtr(const cryptobench_plugin& t) : ctx_(t, Mode::kCtr) {}
  CtrLimits limits() const override { return {ctx_.t().ctr_counter_bits}; }

 protected:
  Error schedule_key(Bytes key) override { return ctx_.set_key(key); }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    return library_error(ctx_.t().ctr_crypt(ctx_.get(), counter, in, out, size));
  }

 private:
  Context ctx_;
};

class PluginGcm final : public AesGcm {
 public:
  explicit PluginGcm(const cryptobench_plugin& t) : ctx_(t, Mode::kGcm) {}
  GcmLimits limits() const override {
    const cryptobench_plugin& t = ctx_.t();
    GcmLimits l;
    l.nonce_12_only = t.gcm_nonce_12_only != 0;
    l.min_tag = t.gcm_min_tag;
    if (t.gcm_max_nonce != 0) l.max_nonce = t.gcm_max_nonce;
    l.key_16 = (t.key_sizes & CRYPTOBENCH_PLUGIN_AES128) != 0;
    l.key_24 = (t.key_sizes & CRYPTOBENCH_PLUGIN_AES192) != 0;
    l.key_32 = (t.key_sizes & CRYPTOBENCH_PLUGIN_AES256) != 0;
    return l;
  }

 protected:
  Error schedule_key(Bytes key) override { return ctx_.set_key(key); }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    return library_error(ctx_.t().gcm_seal(ctx_.get(), nonce.data(), nonce.size(), aad.data(),
                                           aad.size(), in.data(), out, in.size(), tag.data(),
                                           tag.size()));
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    const int code =
        ctx_.t().gcm_open(ctx_.get(), nonce.data(), nonce.size(), aad.data(), aad.size(), in.data(),
                          out, in.size(), tag.data(), tag.size());
    return code == CRYPTOBENCH_PLUGIN_BAD_TAG ? Error::kBadTag : library_error(code);
  }

 private:
  Context ctx_;
};

class PluginCodec final : public TextCodec {
 public:
  explicit PluginCodec(const cryptobench_plugin& t) : t_(t) {}

 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    return encoded(t_.base64_encode(in, length, out), encoded_size(Encoding::kBase64, length));
  }
  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    return decoded(Encoding::kBase64, t_.base64_decode, text, out);
  }
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    return encoded(t_.hex_encode(in, length, out), encoded_size(Encoding::kHex, length));
  }
  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    return decoded(Encoding::kHex, t_.hex_decode, text, out);
  }

 private:
  static Result encoded(int code, std::size_t size) {
    return code == 0 ? Result::success(size) : Result::failure(Error::kLibraryFailure);
  }
  using Decode = int (*)(const char*, size_t, uint8_t*, size_t*);
  // The strict check first, as the library backends do: a plugin's decoder
  // may be lenient, and every backend must refuse the same texts.
  static Result decoded(Encoding encoding, Decode decode, std::string_view text,
                        std::uint8_t* out) {
    const Result want = checked_decoded_size(encoding, text);
    if (!want.ok()) return want;
    std::size_t written = 0;
    const int code = decode(text.data(), text.size(), out, &written);
    if (code == CRYPTOBENCH_PLUGIN_BAD_INPUT) return Result::failure(Error::kBadEncoding);
    if (code != 0 || written != want.size) return Result::failure(Error::kLibraryFailure);
    return Result::success(written);
  }
  const cryptobench_plugin& t_;
};

class PluginKdf final : public KeyDeriver {
 public:
  explicit PluginKdf(const cryptobench_plugin& t) : t_(t) {}
  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    return library_error(t_.hmac_sha256(secret.data(), secret.size(), message.data(),
                                        message.size(), out.data(), out.size()));
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    if (iterations == 0) return Error::kLibraryFailure;
    return library_error(t_.pbkdf2_sha256(password.data(), password.size(), salt.data(),
                                          salt.size(), iterations, out.data(), out.size()));
  }

 private:
  const cryptobench_plugin& t_;
};

class PluginBackend final : public AesBackend {
 public:
  explicit PluginBackend(const Plugin& p) : p_(p), t_(*p.table) {
    if (t_.base64_encode != nullptr) codec_ = std::make_unique<PluginCodec>(t_);
  }
  BackendInfo info() const override {
    BackendInfo info;
    info.name = p_.name;
    info.library = p_.library;
    info.version = p_.version;
    info.code_path =
        p_.code_path + (p_.limits.empty() ? "" : "; " + p_.limits) + " (plugin " + p_.path + ")";
    info.codec = codec_ != nullptr
                     ? one_line(t_.codec) + " (the plugin's)"
                     : "cryptobench's own (the plugin has none): " + project_codec_description();
    info.codec_source = codec_ != nullptr ? CodecSource::kLibrary : CodecSource::kProject;
    info.kdf = t_.hmac_sha256 != nullptr ? one_line(t_.kdf) + " (the plugin's)" : "";
    info.register_bits = t_.register_bits;
    info.gcm_register_bits = t_.gcm_register_bits;
    info.modes.clear();
    for (const Mode m : {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm}) {
      if ((t_.modes & mode_bit(m)) != 0) info.modes.push_back(m);
    }
    info.key_sizes.clear();
    for (const std::size_t k : {16, 24, 32}) {
      if ((t_.key_sizes & key_bit(k)) != 0) info.key_sizes.push_back(k);
    }
    if (info.modes.size() < 4) info.not_offered = "the plugin does not claim it";
    return info;
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<PluginCipher>(t_, mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override {
    if ((t_.modes & CRYPTOBENCH_PLUGIN_CTR) == 0) return nullptr;
    return std::make_unique<PluginCtr>(t_);
  }
  std::unique_ptr<AesGcm> make_gcm() const override {
    if ((t_.modes & CRYPTOBENCH_PLUGIN_GCM) == 0) return nullptr;
    return std::make_unique<PluginGcm>(t_);
  }
  const TextCodec& codec() const override { return codec_ != nullptr ? *codec_ : project_codec(); }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    if (t_.hmac_sha256 == nullptr) return nullptr;
    return std::make_unique<PluginKdf>(t_);
  }

 private:
  const Plugin& p_;
  const cryptobench_plugin& t_;
  std::unique_ptr<PluginCodec> codec_;
};

// check_table: "" when the table is one this cryptobench can run.
std::string check_table(const cryptobench_plugin& t) {
  if (t.abi_version != CRYPTOBENCH_PLUGIN_ABI_VERSION) {
    return "it was built for plugin ABI version " + std::to_string(t.abi_version) +
           "; this cryptobench reads version " + std::to_string(CRYPTOBENCH_PLUGIN_ABI_VERSION) +
           " (plugin/cryptobench_plugin.h): rebuild it against that header";
  }
  if (t.table_size < sizeof(cryptobench_plugin)) {
    return "its table is " + std::to_string(t.table_size) + " bytes, version 1's is " +
           std::to_string(sizeof(cryptobench_plugin)) + ": rebuild it against the header";
  }
  if (t.name == nullptr || !valid_name(t.name)) {
    return "its name must be 1 to 32 of a-z, 0-9 and '-', starting with a letter";
  }
  if (t.library == nullptr || t.version == nullptr || t.code_path == nullptr) {
    return "it must give library, version and code_path (strings)";
  }
  if (t.modes == 0 || (t.modes & ~kAllModes) != 0) {
    return "its modes must be a non-empty set of CRYPTOBENCH_PLUGIN_ECB/CBC/CTR/GCM";
  }
  if (t.key_sizes == 0 || (t.key_sizes & ~kAllKeys) != 0) {
    return "its key_sizes must be a non-empty set of CRYPTOBENCH_PLUGIN_AES128/192/256";
  }
  for (const std::uint32_t bits : {t.register_bits, t.gcm_register_bits}) {
    if (bits != 0 && bits != 128 && bits != 256 && bits != 512) {
      return "its register_bits and gcm_register_bits must be 0, 128, 256 or 512";
    }
  }
  if (t.new_context == nullptr || t.free_context == nullptr || t.set_key == nullptr) {
    return "new_context, free_context and set_key are required";
  }
  if ((t.modes & (CRYPTOBENCH_PLUGIN_ECB | CRYPTOBENCH_PLUGIN_CBC)) != 0 &&
      (t.encrypt_blocks == nullptr || t.decrypt_blocks == nullptr)) {
    return "it claims ECB or CBC without encrypt_blocks and decrypt_blocks";
  }
  if ((t.modes & CRYPTOBENCH_PLUGIN_CTR) != 0) {
    if (t.ctr_crypt == nullptr) return "it claims CTR without ctr_crypt";
    if (t.ctr_counter_bits != 32 && t.ctr_counter_bits != 64 && t.ctr_counter_bits != 128) {
      return "its ctr_counter_bits must be 32, 64 or 128";
    }
  }
  if ((t.modes & CRYPTOBENCH_PLUGIN_GCM) != 0) {
    if (t.gcm_seal == nullptr || t.gcm_open == nullptr) {
      return "it claims GCM without gcm_seal and gcm_open";
    }
    if (t.gcm_min_tag < 4 || t.gcm_min_tag > 16) return "its gcm_min_tag must be 4 to 16";
    if (t.gcm_max_nonce != 0 && t.gcm_max_nonce < 12) return "its gcm_max_nonce must be 0 or 12+";
  }
  const int codec = (t.base64_encode != nullptr) + (t.base64_decode != nullptr) +
                    (t.hex_encode != nullptr) + (t.hex_decode != nullptr);
  if (codec != 0 && (codec != 4 || t.codec == nullptr)) {
    return "a codec needs all four of base64_encode/decode and hex_encode/decode, and `codec`";
  }
  if ((t.hmac_sha256 != nullptr) != (t.pbkdf2_sha256 != nullptr) ||
      (t.hmac_sha256 != nullptr && t.kdf == nullptr)) {
    return "a KDF needs both hmac_sha256 and pbkdf2_sha256, and `kdf`";
  }
  return "";
}

// claims_of: every fact the table states, as one line.
std::string claims_of(const cryptobench_plugin& t) {
  std::string out;
  const auto add = [&out](const std::string& field) {
    out += field;
    out += '|';
  };
  for (const char* p : {t.name, t.library, t.version, t.code_path, t.limits, t.codec, t.kdf}) {
    add(p != nullptr ? one_line(p) : std::string("-"));
  }
  for (const std::uint32_t n :
       {t.modes, t.key_sizes, t.register_bits, t.gcm_register_bits, t.ctr_counter_bits,
        t.gcm_nonce_12_only, t.gcm_min_tag, t.gcm_max_nonce}) {
    add(std::to_string(n));
  }
  unsigned functions = 0, bit = 0;
  for (const bool present :
       {t.new_context != nullptr, t.free_context != nullptr, t.set_key != nullptr,
        t.encrypt_blocks != nullptr, t.decrypt_blocks != nullptr, t.ctr_crypt != nullptr,
        t.gcm_seal != nullptr, t.gcm_open != nullptr, t.base64_encode != nullptr,
        t.base64_decode != nullptr, t.hex_encode != nullptr, t.hex_decode != nullptr,
        t.hmac_sha256 != nullptr, t.pbkdf2_sha256 != nullptr}) {
    functions |= (present ? 1u : 0u) << bit++;
  }
  add(std::to_string(functions));
  return out;
}

}  // namespace

std::unique_ptr<Plugin> load_plugin(const std::string& path) {
  const std::string where = "plugin " + path + ": ";
  if (path.find('/') == std::string::npos) {
    // dlopen would search the library path for a bare name: say what to give.
    throw PluginError(where + "give a path to the shared library (./" + path + ")");
  }
  // The bytes hashed are the bytes loaded: one open file, hashed, then
  // loaded through /proc/self/fd (the path could be replaced in between).
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw PluginError(where + "cannot be opened: " + std::strerror(errno));
  std::vector<char> bytes;
  if (!read_all(fd, &bytes)) {
    close(fd);
    throw PluginError(where + "cannot be read: " + std::strerror(errno));
  }
  const std::string sha256 = sha256_hex(bytes);
  const std::string by_fd = "/proc/self/fd/" + std::to_string(fd);
  // The descriptor stays open: the dynamic loader knows a library by the name
  // it was opened with, and a reused /proc/self/fd/N would name the first.
  void* handle = dlopen(by_fd.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    close(fd);
    const char* why = dlerror();
    std::string text = one_line(why != nullptr ? why : "?");
    if (const std::size_t at = text.find(by_fd); at != std::string::npos) {
      text.replace(at, by_fd.size(), path);
    }
    throw PluginError(where + "cannot be loaded: " + text);
  }
  auto entry = reinterpret_cast<cryptobench_plugin_entry>(dlsym(handle, CRYPTOBENCH_PLUGIN_ENTRY));
  if (entry == nullptr) {
    throw PluginError(where + "has no entry point " CRYPTOBENCH_PLUGIN_ENTRY
                              " (plugin/cryptobench_plugin.h): not a cryptobench plugin");
  }
  auto p = std::make_unique<Plugin>();
  p->path = path;
  const cryptobench_plugin* table = entry();
  if (table == nullptr) throw PluginError(where + CRYPTOBENCH_PLUGIN_ENTRY "() returned NULL");
  // Version and size first: only then is it safe to copy version 1's table.
  if (table->abi_version != CRYPTOBENCH_PLUGIN_ABI_VERSION ||
      table->table_size < sizeof(cryptobench_plugin)) {
    throw PluginError(where + check_table(*table));
  }
  p->table_copy = *table;
  p->table = &p->table_copy;
  if (const std::string problem = check_table(*p->table); !problem.empty()) {
    throw PluginError(where + problem);
  }
  p->sha256 = sha256;
  p->claims = claims_of(*p->table);
  p->name = p->table->name;
  p->library = one_line(p->table->library);
  p->version = one_line(p->table->version);
  p->code_path = one_line(p->table->code_path);
  p->limits = p->table->limits != nullptr ? one_line(p->table->limits) : "";
  p->entry.name = p->name.c_str();
  p->entry.summary = p->code_path.c_str();
  p->entry.library = p->library.c_str();
  p->entry.unusable_reason = [] { return std::string(); };
  const Plugin* self = p.get();
  p->entry.open = [self] { return open_plugin_backend(*self); };
  p->entry.plugin = path;
  p->entry.plugin_sha256 = p->sha256;
  return p;
}

std::unique_ptr<AesBackend> open_plugin_backend(const Plugin& plugin) {
  return std::make_unique<PluginBackend>(plugin);
}

}  // namespace cryptobench::plugin
