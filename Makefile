# csim — build, install dependencies, test.
#   make deps      install the Debian packages csim needs (idempotent; root, no sudo)
#   make           build ./csim (-O3, warnings as errors)
#   make test      Check suites, then the same suites under ASan+UBSan (parallel; JOBS=N)
#   make test-long the checks that need minutes (csim replay in headless Chromium); CI runs it
#   make run       deps + build + run the showcase scenario
#   make bench     csim vs MuJoCo, Bullet, ODE and Siconos, all measured in the run (QUICK=1: a subset)
#   make test-slurm  a one-node SLURM cluster on localhost runs a sweep as a job array (root)
#   make figures   every experiment of tools/figures/figures.list, then out/figures/REPORT.md and
#                  docs/figures.md
#   make fig-ID    one experiment (e.g. make fig-000-6); make test-figures: the drift check
#   make check-links  every relative link of README.md and docs/ resolves
#   make clean
# Switches: SANITIZE=1 (ASan+UBSan build in build/san), DEBUG=1 (-O0 -g), VALIDATE=1 (invariant checks).

PKGS      := yaml-0.1 ccd hdf5 lapacke
DEB_PKGS  := build-essential pkg-config valgrind libyaml-dev libccd-dev liblapacke-dev libopenblas-dev \
             libhdf5-dev hdf5-tools check python3-h5py python3-matplotlib python3-numpy python3-scipy \
             libmujoco-dev libmujoco-samples libsiconos-numerics-dev \
             libbullet-dev libode-dev g++ \
             slurm-wlm munge parallel libsuitesparse-dev
# csim replay's browser tests (headless Chromium) and the plot checker (Pillow reads the PNG)
DEB_PKGS  += chromium python3-pil
DEB_PKGS  += clang libclang-rt-dev

CC        ?= cc
BUILD     ?= build
ifeq ($(SANITIZE),1)
BUILD     := build/san
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# cores for make test's build and test runs (make -jN passes its own N to the sub-makes)
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
# OpenBLAS picks its kernels per CPU when it loads (Haswell on an AMD EPYC with AVX-512, SkylakeX
# on Intel's AVX-512 parts) and they round differently: cube_stack_ill's staggered run takes 96 or
# 146 iterations a step, and the closed-loop walks of docs/figures.md move. Every program make
# runs (tests, figures, bench) uses the Haswell kernels wherever the CPU has AVX2 and FMA, so
# their numbers are the same on any such machine; OPENBLAS_CORETYPE in the environment wins
ifeq ($(origin OPENBLAS_CORETYPE),undefined)
OPENBLAS_CORETYPE := $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && echo Haswell)
endif
ifneq ($(OPENBLAS_CORETYPE),)
export OPENBLAS_CORETYPE
endif
# -O3: GCC vectorizes the 3x3 block sums and row loops of the step (4-5 % fewer instructions per
# step on the small bench scenes); no -ffast-math, so IEEE results are those of -O2 bit for bit
# (csim compare --rtol 0 --atol 0 on cube_slide, solo12, talos, panda)
OPT       := -O3 -g
# link-time optimization for ./csim and the bench programs (calls across modules, e.g. the cone
# residuals inside the solvers' sweeps, are inlined: 5-6 % fewer Ir/step on the small bench
# scenes; values unchanged, no -ffast-math). Fat objects keep ordinary code too, so the test
# programs link without the whole-program pass (-fno-lto), which would cost ~15 s per program
LTO       := -flto=auto -ffat-lto-objects
ifeq ($(DEBUG),1)
OPT       := -O0 -g
LTO       :=
endif
# the test programs' own code at -O1: they check and drive, the library they link is built with
# OPT; -O1 halves their compile time against -O3 (test_collision.c: 3.0 -> 1.7 s)
TEST_OPT  := -O1 -g
ifeq ($(DEBUG),1)
TEST_OPT  := -O0 -g
endif
# the ASan+UBSan build at -O1 (what the sanitizer manuals advise; -O3 with the instrumentation
# doubles the compile time, collision_convex.c 8.0 -> 3.6 s); no -ffast-math and -std=c11 (no
# FMA contraction), so its numbers are those of -O3 bit for bit (the goldens at rtol 0 hold)
ifeq ($(SANITIZE),1)
LTO       :=
OPT       := -O1 -g
TEST_OPT  := -O1 -g
# the flow-based warnings on the instrumented code give false positives (a snprintf of two ints
# "may be truncated"); the plain build checks the same sources with them on
SANWARN   := -Wno-format-truncation -Wno-maybe-uninitialized -Wno-stringop-overflow
endif
DEFS      :=
ifeq ($(VALIDATE),1)
DEFS      += -DCSIM_VALIDATE=1
endif

# CHOLMOD (SuiteSparse 5.12, ADMM's sparse island factor): Debian ships no cholmod.pc
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -isystem /usr/include/suitesparse
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcholmod -lsuitesparseconfig -lopenblas
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

WARN      := -Wall -Wextra -Wpedantic -Werror -Wmissing-prototypes -Wvla -Wshadow $(SANWARN)
CFLAGS    := -std=c11 -D_DEFAULT_SOURCE $(OPT) $(LTO) $(WARN) $(SANFLAGS) $(DEFS) $(PKG_CFLAGS) -Isrc -MMD -MP
TCFLAGS   := $(filter-out $(OPT) $(LTO),$(CFLAGS)) $(TEST_OPT) -fno-lto -Itests
LDFLAGS   := $(SANFLAGS)
LDLIBS    := $(PKG_LIBS) -lm

SRC_ALL   := $(sort $(wildcard src/*/*.c src/*/*/*.c))
SRC_LIB   := $(filter-out src/cli/main.c,$(SRC_ALL))
OBJ_LIB   := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRC_LIB))
LIB       := $(BUILD)/libcsim.a
# MuJoCo (libmujoco-dev) is optional: the tests that compare against it are built only when present.
HAVE_MUJOCO := $(shell test -f /usr/include/mujoco/mujoco.h && echo 1)
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
ifneq ($(HAVE_MUJOCO),1)
TEST_SRC  := $(filter-out tests/test_mujoco%,$(TEST_SRC))
endif
# Bullet and ODE (the measured peers, below) likewise: tests/test_peers.c only when one is present
HAVE_ODE    := $(shell pkg-config --exists ode 2>/dev/null && echo 1)
HAVE_BULLET := $(shell pkg-config --exists bullet-float64 2>/dev/null && echo 1)
ifeq ($(HAVE_ODE)$(HAVE_BULLET),)
TEST_SRC  := $(filter-out tests/test_peers.c,$(TEST_SRC))
endif
TEST_BIN  := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TEST_HELP := $(filter-out $(TEST_SRC),$(wildcard tests/*.c))
TEST_HOBJ := $(patsubst tests/%.c,$(BUILD)/tobj/%.o,$(TEST_HELP))

ifeq ($(SANITIZE),1)
CSIM_BIN  := $(BUILD)/csim
else
CSIM_BIN  := csim
endif

.PHONY: all deps test test-unit test-san run bench clean
.PHONY: test-slurm print-opt
all: $(CSIM_BIN) robots/iiwa_wsg.urdf plugins

# controller plugins (core/plugin.h): the example users copy (tools/plugin_example) and the broken
# ones tests/test_control.c loads; built against the header as it is installed, <csim/plugin.h>
PLUGIN_DIR := $(BUILD)/plugins
PLUGIN_INC := $(BUILD)/include/csim/plugin.h
BAD_PLUGINS := abi null nostep nosym nan fail crash
PLUGINS    := $(PLUGIN_DIR)/pd_plugin.so $(patsubst %,$(PLUGIN_DIR)/bad_%.so,$(BAD_PLUGINS))
PLUGIN_CC  = $(CC) -std=c11 -O2 -fPIC -shared -Wall -Wextra -Werror -I$(BUILD)/include
.PHONY: plugins install
plugins: $(PLUGINS)
$(PLUGIN_INC): src/core/plugin.h
	@mkdir -p $(dir $@)
	cp $< $@
$(PLUGIN_DIR)/pd_plugin.so: tools/plugin_example/pd_plugin.c $(PLUGIN_INC)
	@mkdir -p $(dir $@)
	$(PLUGIN_CC) -o $@ $< -lm
$(PLUGIN_DIR)/bad_%.so: tests/plugins/bad_plugins.c $(PLUGIN_INC)
	@mkdir -p $(dir $@)
	$(PLUGIN_CC) -DBAD_$(shell echo $* | tr a-z A-Z) -o $@ $< -lm
$(BUILD)/tests/test_control: TCFLAGS += -DPLUGIN_DIR='"$(PLUGIN_DIR)"'
$(BUILD)/tests/test_control: | $(PLUGINS)

# make install PREFIX=/usr/local: csim, the plugin header and csim-plugin.pc, so a plugin builds
# outside the repository with `pkg-config --cflags csim-plugin`
PREFIX ?= /usr/local
install: $(CSIM_BIN)
	install -D -m 755 $(CSIM_BIN) $(DESTDIR)$(PREFIX)/bin/csim
	install -D -m 644 src/core/plugin.h $(DESTDIR)$(PREFIX)/include/csim/plugin.h
	@mkdir -p $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf 'prefix=%s\nincludedir=$${prefix}/include\n\nName: csim-plugin\nDescription: csim controller plugin ABI (<csim/plugin.h>)\nVersion: 1\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/csim-plugin.pc

# the optimization flags of this build (tools/bench/bench.sh records them beside the figures)
print-opt:
	@echo $(OPT) $(LTO)

# the Kuka + WSG 50 stand-in of scenarios/kuka_bottle.yaml, built from the shared iiwa14 URDF
# (../shared is read, never copied into the repository)
robots/iiwa_wsg.urdf: tools/figures/kuka_bottle.py
	/usr/bin/python3 tools/figures/kuka_bottle.py --urdf-only

$(CSIM_BIN): $(BUILD)/obj/cli/main.o $(LIB) | robots/iiwa_wsg.urdf
	$(CC) $(OPT) $(LTO) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIB): $(OBJ_LIB)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tobj/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TCFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(TEST_HOBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TCFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HOBJ) $(LIB) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/test_mujoco%: tests/test_mujoco%.c $(TEST_HOBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TCFLAGS) $(LDFLAGS) -o $@ $< $(TEST_HOBJ) $(LIB) $(CHECK_LIBS) $(LDLIBS) -lmujoco

# Bullet 3.24 and ODE 0.16 as measured peers (tools/bench/bench_bullet.cpp, bench_ode.c, the shared
# scenes and residual in peer_common.c; make bench and tests/test_peers.c run them): each is built
# only when its package is present (make deps installs them); `make peers` says which it skips
PEER_BINS   := $(if $(HAVE_ODE),$(BUILD)/bench_ode) \
               $(if $(HAVE_BULLET),$(BUILD)/bench_bullet $(BUILD)/cubetoss_bullet) \
               $(if $(HAVE_MUJOCO),$(BUILD)/cubetoss_mujoco)
PEER_OBJ    := $(BUILD)/peer/peer_common.o
PEER_CFLAGS := $(filter-out -MMD -MP,$(CFLAGS)) -Itools/bench
.PHONY: peers
peers: $(PEER_BINS)
	@test -n "$(HAVE_ODE)" || echo "peers: SKIP bench_ode (libode-dev not installed: make deps)"
	@test -n "$(HAVE_BULLET)" || echo "peers: SKIP bench_bullet (libbullet-dev not installed: make deps)"
$(BUILD)/tests/test_peers: private TCFLAGS += $(if $(HAVE_ODE),-DPEER_ODE='"$(BUILD)/bench_ode"') \
                                       $(if $(HAVE_BULLET),-DPEER_BULLET='"$(BUILD)/bench_bullet"')
$(BUILD)/tests/test_peers: | $(PEER_BINS)
$(BUILD)/peer/%.o: tools/bench/%.c tools/bench/%.h
	@mkdir -p $(dir $@)
	$(CC) $(PEER_CFLAGS) -c -o $@ $<
$(BUILD)/bench_ode: tools/bench/bench_ode.c $(PEER_OBJ) $(LIB)
	$(CC) $(PEER_CFLAGS) $(shell pkg-config --cflags ode 2>/dev/null) $(LDFLAGS) -o $@ $< $(PEER_OBJ) \
	  $(LIB) $(LDLIBS) $(shell pkg-config --libs ode 2>/dev/null)
# Bullet is C++; its headers as system headers (their unused parameters are not csim's warnings)
$(BUILD)/bench_bullet: tools/bench/bench_bullet.cpp $(PEER_OBJ) $(LIB)
	$(CXX) -std=c++17 $(OPT) $(LTO) -Wall -Wextra -Werror $(SANFLAGS) \
	  $(patsubst -I%,-isystem %,$(shell pkg-config --cflags bullet-float64 2>/dev/null)) -Itools/bench \
	  $(LDFLAGS) -o $@ $< $(PEER_OBJ) $(LIB) $(LDLIBS) $(shell pkg-config --libs bullet-float64 2>/dev/null)
# seed 003's Bullet row: the recorded cube tosses replayed in Bullet, scored by csim's e_q code
$(BUILD)/cubetoss_bullet: tools/bench/cubetoss_bullet.cpp $(BUILD)/peer/peer_cubetoss.o $(LIB)
	$(CXX) -std=c++17 $(OPT) $(LTO) -Wall -Wextra -Werror $(SANFLAGS) \
	  $(patsubst -I%,-isystem %,$(shell pkg-config --cflags bullet-float64 2>/dev/null)) -Itools/bench \
	  $(LDFLAGS) -o $@ $< $(BUILD)/peer/peer_cubetoss.o $(LIB) $(LDLIBS) \
	  $(shell pkg-config --libs bullet-float64 2>/dev/null)

# seed 003's MuJoCo row: the same tosses replayed in MuJoCo 2.2.2 (libmujoco-dev); its test runs it
$(BUILD)/tests/test_mujoco_cubetoss: private TCFLAGS += -DCUBETOSS_MUJOCO='"$(BUILD)/cubetoss_mujoco"'
$(BUILD)/tests/test_mujoco_cubetoss: | $(BUILD)/cubetoss_mujoco
$(BUILD)/cubetoss_mujoco: tools/bench/cubetoss_mujoco.c $(BUILD)/peer/peer_cubetoss.o $(LIB)
	$(CC) $(PEER_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/peer/peer_cubetoss.o $(LIB) $(LDLIBS) -lmujoco

# Install every Debian package csim, its tests and its benchmarks need. Quiet when all are present.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi
	@# three.js for csim replay, from the npm registry (tools/view/replay/package-lock.json); npm from
	@# Debian only where no npm is installed (a NodeSource nodejs brings its own)
	@command -v npm >/dev/null 2>&1 || { echo "installing: nodejs npm"; SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm >/dev/null || exit 1; }
	@test -f tools/view/replay/node_modules/three/build/three.module.min.js || \
	  (cd tools/view/replay && npm ci --no-audit --no-fund --loglevel=error)

# The README's test command: unit suites, then the same suites under ASan+UBSan, one after the
# other (a recipe, not two prerequisites, so make -j never runs the two passes at once). Each
# pass builds in parallel (JOBS, or the caller's -jN) and runs its programs JOBS at a time
# (tests/run_tests.sh: longest first, results in order with each program's wall time); the last
# line is the sanitized pass's "checks: N passed, N failed". The minutes-long checks are in
# test-long. First the layering of src/ (check-layers: no upward include, no module circle).
PAR       = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))
test:
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory $(PAR) test-unit
	@$(MAKE) --no-print-directory $(PAR) test-san

# the slowest programs (wall time, plain and ASan+UBSan passes, 2 cores), started first on a fresh
# build; later runs order by the times of the last run (tests/run_tests.sh)
TEST_SLOW := test_viz test_figure_claims test_sweep test_hardening test_cli test_cubetoss \
             test_integrate test_solver_admm test_fclib test_mesh test_compliant test_dynamics \
             test_scenario test_contact_sparse
test-unit: $(CSIM_BIN) $(TEST_BIN)
	@mkdir -p out
	@CSIM=./$(CSIM_BIN) CK_EXCLUDE_TAGS=long JOBS=$(JOBS) TEST_SLOW="$(TEST_SLOW)" \
	  tests/run_tests.sh $(TEST_BIN)

test-san:
	@$(MAKE) --no-print-directory $(PAR) SANITIZE=1 test-unit

# Checks that take minutes, kept out of make test and run by CI (.ci/run) after it: the test
# cases tagged "long" (tcase_set_tags; today test_viz's csim replay in headless Chromium and the
# plots of 15 of the 18 shipped scenarios, docs/tests.md), plain and then under ASan+UBSan like
# make test.
TEST_LONG := $(addprefix $(BUILD)/tests/,$(notdir $(basename $(shell grep -l 'tcase_set_tags(.*"long")' tests/test_*.c 2>/dev/null))))
.PHONY: test-long test-long-unit
test-long:
	@$(MAKE) --no-print-directory $(PAR) test-long-unit
	@$(MAKE) --no-print-directory $(PAR) SANITIZE=1 test-long-unit

test-long-unit: $(CSIM_BIN) $(TEST_LONG)
	@mkdir -p out
	@CSIM=./$(CSIM_BIN) CK_INCLUDE_TAGS=long JOBS=$(JOBS) tests/run_tests.sh $(TEST_LONG)

# Install, build and run the showcase: Solo-12 standing under PD control on rigid NCP contact.
run: deps
	@$(MAKE) --no-print-directory all
	./csim run scenarios/solo12_stand.yaml
	@echo "open it with: /usr/bin/python3 -c \"import h5py; f = h5py.File('out/solo12_stand.h5'); print(list(f), f['/state/q'].shape)\""
	@echo "plot it:      ./csim plot out/solo12_stand.h5        (writes out/solo12_stand.png)"
	@echo "replay it:    ./csim replay out/solo12_stand.h5 && xdg-open out/solo12_stand.html"

# Every figure measured in this run (tools/bench/bench.sh): csim's speed table, the no-allocation
# check, csim vs MuJoCo (time and callgrind instructions) and vs Siconos, out/bench/*.csv and
# the README table. QUICK=1: a subset in a few minutes.
bench: $(CSIM_BIN)
	QUICK=$(or $(QUICK),0) CSIM=./$(CSIM_BIN) tools/bench/bench.sh

# A one-node SLURM cluster (slurm-wlm, munge) started and stopped by the test runs a 12-point
# sweep as a job array; the merge must equal the Make path's (tools/check/test_slurm.sh).
test-slurm: $(CSIM_BIN)
	@CSIM=./$(CSIM_BIN) tools/check/test_slurm.sh

# The seed papers' experiments (docs/figures.md): one script per id of tools/figures/figures.list,
# each writing out/figures/fig<id>.{png,json} from its own scratch directory (make -j2 safe), then the
# report. test-figures reruns them and fails when docs/figures.md drifts from a fresh generation.
FIG_IDS := $(shell sed -e 's/\#.*//' tools/figures/figures.list 2>/dev/null)
.PHONY: figures figures-run test-figures
fig-%: $(CSIM_BIN)
	/usr/bin/python3 tools/figures/fig$(subst -,_,$*).py

figures-run: $(addprefix fig-,$(FIG_IDS))

figures: figures-run
	/usr/bin/python3 tools/figures/figures_report.py

test-figures: figures-run
	/usr/bin/python3 tools/figures/figures_report.py --check

# libFuzzer targets (tests/fuzz/fuzz_*.c; clang + libclang-rt from Debian) under ASan+UBSan:
#   make fuzz FUZZ_SECONDS=N   runs each target N seconds on seeds read in place (tools/fuzz/fuzz.sh)
FUZZ_TARGETS := scenario urdf mjcf stl fclib cubetoss
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -D_DEFAULT_SOURCE -O1 -g $(WARN) $(FUZZ_SAN) $(PKG_CFLAGS) -Isrc
FUZZ_OBJ     := $(patsubst src/%.c,$(FUZZ_DIR)/obj/%.o,$(SRC_LIB))
FUZZ_BIN     := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))

# -MMD: a changed header (model.h's arrays) rebuilds the fuzz objects too, as it does the others
$(FUZZ_DIR)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BIN)

fuzz: fuzz-build
	tools/fuzz/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZ_TARGETS)

# the fuzz objects are kept between runs (not intermediates to delete)
.SECONDARY: $(FUZZ_OBJ)
-include $(wildcard $(FUZZ_OBJ:.o=.d))

clean:
	rm -rf build csim

# test helper objects are not intermediates to delete after the build
.SECONDARY: $(TEST_HOBJ)

-include $(OBJ_LIB:.o=.d) $(BUILD)/obj/cli/main.d $(TEST_HOBJ:.o=.d)

# the include graph of src/: no file includes a higher layer (core < io < out < run < cli), no
# circle between modules (tests/check_layers.py)
.PHONY: check-layers
check-layers:
	@/usr/bin/python3 tests/check_layers.py src

# every relative link and image path of README.md, docs/ and tools/README.md resolves, anchors
# included (tests/check_links.py; not part of make test)
.PHONY: check-links
check-links:
	@/usr/bin/python3 tests/check_links.py
