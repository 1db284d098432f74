// version.h — csim's version, written into every output file (csim_version) and printed by
// csim --version.
#ifndef CSIM_VERSION_H
#define CSIM_VERSION_H

#define CSIM_VERSION "0.1.0"

#endif  // CSIM_VERSION_H
