// plugin_load.h — loading a controller plugin (core/plugin.h) from a shared library: dlopen, the
// entry symbol, the ABI version and the table's functions checked, each failure an input error
// naming the library (and the scenario key the caller gives).
#ifndef CSIM_PLUGIN_LOAD_H
#define CSIM_PLUGIN_LOAD_H

#include "core/error.h"
#include "core/plugin.h"

typedef struct {
  void* handle;                 // dlopen handle (NULL: not loaded)
  const csim_plugin_api* api;   // the library's table
} plugin_lib;

// load `path` (file, line, column and key name where it was given, for messages); on failure
// lib is zeroed and err says why: no such file, not a shared library (dlerror's text), no
// csim_plugin_entry symbol, a NULL table, an ABI other than CSIM_PLUGIN_ABI, or a table
// without init or step
csim_status plugin_load(const char* path, const char* file, int line, int column, const char* key,
                        plugin_lib* lib, csim_error* err);

// dlclose (after the controller's release); lib zeroed
void plugin_unload(plugin_lib* lib);

#endif  // CSIM_PLUGIN_LOAD_H
