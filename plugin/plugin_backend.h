// plugin_backend.h: a plugin (plugin/cryptobench_plugin.h) as a backend.
//
// load_plugin opens the shared library, reads its table and checks it (ABI
// version, table size, name, the functions its modes need); a problem is a
// PluginError whose message is one line naming the file. PluginBackend then
// serves it through the same interfaces as a built-in backend, whose base
// classes validate arguments, apply PKCS#7 and wipe a failed open's output,
// so a plugin gets no argument the built-ins would not.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/backend.h"
#include "plugin/cryptobench_plugin.h"

namespace cryptobench::plugin {

class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Plugin: one loaded library and its checked table; never unloaded.
struct Plugin {
  std::string path;    // as given
  std::string sha256;  // of the bytes loaded
  // A copy of the plugin's table, taken once: later changes to its own copy
  // have no effect here.
  cryptobench_plugin table_copy{};
  const cryptobench_plugin* table = nullptr;  // &table_copy
  std::string claims;  // every fact of the table, as text (self_check.h's fingerprint)
  BackendEntry entry{};
  std::string name, library, version, code_path, limits;
};

// load_plugin: dlopen, the entry point, the table checked. Throws PluginError.
std::unique_ptr<Plugin> load_plugin(const std::string& path);

// open_plugin_backend: the backend over a loaded plugin's table.
std::unique_ptr<AesBackend> open_plugin_backend(const Plugin& plugin);

}  // namespace cryptobench::plugin
