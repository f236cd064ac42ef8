// registry.h: the backends compiled into this binary, which of them can run
// on this CPU, and how a run resolves them. Asking for an unknown or unusable
// backend is an error that names it; nothing is silently substituted.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/backend.h"

namespace cryptobench {

class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// compiled_backends: every backend linked in, in registry order.
std::span<const BackendEntry* const> compiled_backends();

// register_backend: adds a backend found at run time (a plugin) after the
// compiled-in ones; `entry` must outlive the process's use of the registry.
// Call it before anything else asks the registry (the reference and KDF
// choices are made once). Throws BackendError when the name is taken.
void register_backend(const BackendEntry* entry);

// find_backend: nullptr when `name` is not compiled in.
const BackendEntry* find_backend(std::string_view name);

// unusable_reason: "" when the backend can run on this CPU.
std::string unusable_reason(const BackendEntry& entry);

// open_backend: throws BackendError naming `name` and the valid choices
// when it is unknown, or the reason when it cannot run here.
std::unique_ptr<AesBackend> open_backend(std::string_view name);

// usable_backend_names: compiled in and usable here, in registry order.
std::vector<std::string> usable_backend_names();

// compiled_backend_names: "openssl, cryptopp, ..." for messages.
std::string compiled_backend_names();

// reference_backend_name: the backend `name` is verified against: the first
// usable backend in registry order of another library that offers every
// mode `name` offers; failing that any other such backend; failing that
// `name` itself.
std::string reference_backend_name(std::string_view name);

// offers_key: the backend offers `mode` with `key_bytes`-byte keys as the
// benchmarks run it: block modes, any AES key; CTR, any AES key; GCM, a key
// size, a 12-byte nonce and a 16-byte tag its GcmLimits allow.
bool offers_key(const AesBackend& backend, Mode mode, std::size_t key_bytes);

// counter_mode_reference_name: the backend `name`'s CTR or GCM outputs with
// `key_bytes`-byte keys are verified against: the first usable backend in
// registry order of another library that offers it (offers_key); failing
// that any other backend that does; "" when no other backend does (never
// `name` itself: a backend cannot vouch for its own counter-mode outputs).
std::string counter_mode_reference_name(std::string_view name, Mode mode, std::size_t key_bytes);

// fallback_kdf_backend_name: whose KDF serves the backends without one: the
// first usable backend in registry order whose library has its own; "" when
// none has.
std::string fallback_kdf_backend_name();

// kdf_description: what derives keys for a backend with this info.
std::string kdf_description(const BackendInfo& info);

// mode_names: "ecb,cbc".
std::string mode_names(const std::vector<Mode>& modes);

// BackendSet: the backends of one run, each opened once, with the backend it
// is verified against (opened too) and its facts.
class BackendSet {
 public:
  // CounterReference: whom one (counter mode, key size) the backend offers
  // is verified against; backend nullptr when no other backend offers it.
  struct CounterReference {
    Mode mode;
    std::size_t key_bytes;
    std::string name;
    const AesBackend* backend;
  };
  struct Member {
    std::string name;
    const AesBackend* backend;
    const AesBackend* reference;  // block modes
    std::string reference_name;
    BackendInfo info;
    std::vector<CounterReference> counter_references;  // each CTR/GCM key size offered

    // offers: `mode` with `key_bytes`-byte keys, as offers_key() says.
    bool offers(Mode mode, std::size_t key_bytes) const;
    // reference_for: whom that mode and key size is verified against;
    // nullptr when nobody else offers it.
    const AesBackend* reference_for(Mode mode, std::size_t key_bytes) const;
  };

  // names empty: every usable backend. Throws BackendError for an unknown or
  // unusable name, a duplicate, or when no backend can run here.
  explicit BackendSet(const std::vector<std::string>& names);

  const std::vector<Member>& members() const { return members_; }
  std::vector<std::string> names() const;
  // find: nullptr when `name` is not in the set.
  const Member* find(std::string_view name) const;
  // context: ("backend.<name>.<field>", value) for every member: library,
  // code path, codec, KDF, reference, and the structured facts.
  std::vector<std::pair<std::string, std::string>> context() const;

 private:
  std::map<std::string, std::unique_ptr<AesBackend>, std::less<>> opened_;
  std::vector<Member> members_;
};

}  // namespace cryptobench
