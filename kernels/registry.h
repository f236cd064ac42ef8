// registry.h: the backends compiled into this binary and which of them can
// run on this CPU. Asking for an unknown or unusable backend is an error that
// names it; nothing is silently substituted.
#pragma once

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/backend.h"

namespace cryptobench {

class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// compiled_backends: every backend linked in, in registry order.
std::span<const BackendEntry* const> compiled_backends();

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

}  // namespace cryptobench
