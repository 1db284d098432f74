#!/usr/bin/env bash
# Copy docs/scenario_keys.md (generated from the scenario schema) into docs/scenarios.md between
# the markers <!-- keys:begin --> and <!-- keys:end -->. tests/test_cli.c fails when they differ.
set -euo pipefail
cd "$(dirname "$0")/../.."
/usr/bin/env python3 - <<'PY'
import re
page = open("docs/scenarios.md").read()
keys = open("docs/scenario_keys.md").read()
new = re.sub(r"<!-- keys:begin -->.*<!-- keys:end -->",
             lambda m: "<!-- keys:begin -->\n" + keys + "<!-- keys:end -->", page, flags=re.S)
open("docs/scenarios.md", "w").write(new)
PY
