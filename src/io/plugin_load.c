// plugin_load.c — controller plugins from shared libraries (plugin_load.h).
#include "io/plugin_load.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

csim_status plugin_load(const char* path, const char* file, int line, int column, const char* key,
                        plugin_lib* lib, csim_error* err) {
  memset(lib, 0, sizeof *lib);
  FILE* f = fopen(path, "rb");
  if (!f)
    return err_set(err, CSIM_ERR_INPUT, file, line, column, key,
                   "cannot open controller plugin '%s': %s", path, strerror(errno));
  fclose(f);
  // a path without a slash would make dlopen search the system's library path instead
  char buf[4096];
  snprintf(buf, sizeof buf, "%s%s", strchr(path, '/') ? "" : "./", path);
  void* h = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    return err_set(err, CSIM_ERR_INPUT, file, line, column, key,
                   "cannot load controller plugin '%s': %s", path, why ? why : "dlopen failed");
  }
  csim_plugin_entry_fn entry;
  // POSIX's way from a data pointer to a function pointer (dlsym's rationale)
  *(void**)(&entry) = dlsym(h, CSIM_PLUGIN_ENTRY);
  const char* why = NULL;
  const csim_plugin_api* api = entry ? entry() : NULL;
  if (!entry) why = "no symbol " CSIM_PLUGIN_ENTRY " (see the example in tools/plugin_example)";
  else if (!api) why = CSIM_PLUGIN_ENTRY "() returned NULL";
  else if (api->abi != CSIM_PLUGIN_ABI) why = "ABI version mismatch";
  else if (!api->init || !api->step) why = "its table has no init or no step function";
  if (why) {
    int abi = api ? api->abi : 0;
    dlclose(h);
    if (abi && abi != CSIM_PLUGIN_ABI)
      return err_set(err, CSIM_ERR_INPUT, file, line, column, key,
                     "controller plugin '%s': ABI version %d, this csim needs %d (rebuild it "
                     "against this csim's <csim/plugin.h>)", path, abi, CSIM_PLUGIN_ABI);
    return err_set(err, CSIM_ERR_INPUT, file, line, column, key, "controller plugin '%s': %s",
                   path, why);
  }
  lib->handle = h;
  lib->api = api;
  return CSIM_OK;
}

void plugin_unload(plugin_lib* lib) {
  if (lib->handle) dlclose(lib->handle);
  memset(lib, 0, sizeof *lib);
}
