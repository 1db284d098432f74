#!/usr/bin/python3
"""Write src/run/cubetoss_params.c from params files written by `csim identify cubetoss`.

usage: /usr/bin/python3 tools/gen/cubetoss_params_c.py PARAMS.yaml... > src/run/cubetoss_params.c

The files are copied (comments included: date, data, split, scores; repeated comment lines once),
in the order given;
a model that appears twice keeps its first entry (csim's params reader rejects duplicate keys).
"""
import sys

lines, seen = [], set()
for path in sys.argv[1:]:
    with open(path) as f:
        for ln in f.read().splitlines():
            if ln.startswith("#") and ln in lines:
                continue  # the header comments every file repeats
            if ln and not ln.startswith("#") and ":" in ln:
                name = ln.split(":", 1)[0].strip()
                if name in seen:
                    continue
                seen.add(name)
            lines.append(ln)
print("// cubetoss_params.c — the contact parameters csim ships for `csim validate cubetoss` (used when")
print("// no --params is given): the params files written by `csim identify cubetoss`, copied by")
print("// tools/gen/cubetoss_params_c.py (their comment lines say when, on which data and split, and with")
print("// which training and held-out e_q).")
print('#include "cubetoss.h"')
print()
print("static const char kParams[] =")
for ln in lines:
    print('    "' + ln.replace("\\", "\\\\").replace('"', '\\"') + '\\n"')
print("    ;")
print()
print("const char* ct_default_params(void) {")
print("  return kParams;")
print("}")
