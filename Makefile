# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# fsp-bpf build. Out-of-tree objects in .output/, quiet unless V=1.
#
#   make                 build ./fsp-bpf
#   make demo            install missing Debian packages, build, profile the demo
#   make test            unit tests, sanitized unit tests, root integration tests
#   make bench           benchmarks (root), results in bench/results/
#   make soak            -a for 10 minutes while processes come and go (root)
#   make install PREFIX=/usr/local [DESTDIR=...]   (also the agent's systemd unit)
#   make format | format-check

VERSION := 0.1.0
PREFIX ?= /usr/local
OUTPUT := .output
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
# clang -target bpf does not search the multiarch include dir (asm/errno.h).
BPF_SYS_INCLUDES := -idirafter /usr/include/$(shell $(CC) -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)

PKGS := libbpf libelf libdw json-c libmicrohttpd gnutls $(shell pkg-config --exists libprotobuf-c 2>/dev/null && echo libprotobuf-c)
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
BASE_CFLAGS := -std=gnu11 $(WARN) -MMD -MP -D_GNU_SOURCE -DFSP_VERSION='"$(VERSION)"' $(CPPFLAGS)
# Sources live in folders by concern (docs/architecture.md); every folder is on
# the include path, so files include each other by name.
ANALYSIS_DIRS := $(sort $(dir $(shell find analysis -name '*.[ch]' -not -path 'analysis/proto/*')))
USER_DIRS := $(sort $(dir $(shell find userspace -name '*.[ch]')))
ANALYSIS_INC := $(patsubst %/,-I%,$(ANALYSIS_DIRS)) -I$(OUTPUT)/analysis/proto
INCLUDES := -I$(OUTPUT) -Ibpf $(patsubst %/,-I%,$(USER_DIRS)) $(ANALYSIS_INC) -Iusdt
LDLIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -lelf -ldw -ljson-c -lmicrohttpd -lgnutls -lprotobuf-c) -lz -pthread

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all clean test unit unit-asan integration demo bench soak install format format-check \
	deps deps-build deps-html deps-test deps-bench examples workloads man deb packaging \
	check-matrix

APP := fsp-bpf
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))

ANALYSIS_SRCS := $(shell find analysis -name '*.c')
ANALYSIS_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(ANALYSIS_SRCS))
ANALYSIS_ASAN_OBJS := $(patsubst %.c,$(OUTPUT)/asan/%.o,$(ANALYSIS_SRCS))
# pprof's profile.proto, compiled by protoc-c into both archives.
PROTO_GEN := $(OUTPUT)/analysis/proto/profile.pb-c.c $(OUTPUT)/analysis/proto/profile.pb-c.h
ANALYSIS_OBJS += $(OUTPUT)/analysis/proto/profile.pb-c.o
ANALYSIS_ASAN_OBJS += $(OUTPUT)/asan/analysis/proto/profile.pb-c.o
ANALYSIS_LIB := $(OUTPUT)/libfspanalysis.a
ANALYSIS_ASAN_LIB := $(OUTPUT)/asan/libfspanalysis.a

USER_SRCS := $(shell find userspace -name '*.c')
USER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(USER_SRCS))
# The CLI without main(), for unit tests of its pure parts (libbpf and all).
USER_LIB_SRCS := $(filter-out userspace/cmd/main.c,$(USER_SRCS))
USER_LIB := $(OUTPUT)/libfspcli.a
USER_ASAN_LIB := $(OUTPUT)/asan/libfspcli.a

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/unit/%,$(UNIT_SRCS))
UNIT_ASAN_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/asan/tests/unit/%,$(UNIT_SRCS))

ITEST_SRCS := $(wildcard tests/integration/test_*.c)
ITEST_BINS := $(patsubst tests/integration/%.c,$(OUTPUT)/tests/integration/%,$(ITEST_SRCS))
# matrix_*.c: the consistency matrix's views and checks (test_matrix only).
MATRIX_SRCS := $(wildcard tests/integration/matrix_*.c)
MATRIX_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(MATRIX_SRCS))
ITEST_LIB_SRCS := $(filter-out $(ITEST_SRCS) $(MATRIX_SRCS),$(wildcard tests/integration/*.c))
ITEST_LIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(ITEST_LIB_SRCS))

EXAMPLE_C := $(filter-out examples/lib%.c,$(wildcard examples/*.c))
EXAMPLE_CXX := $(wildcard examples/*.cc)
EXAMPLE_BINS := $(patsubst examples/%.c,$(OUTPUT)/examples/%,$(EXAMPLE_C)) \
	$(patsubst examples/%.cc,$(OUTPUT)/examples/%,$(EXAMPLE_CXX))
EXAMPLE_LIBS := $(patsubst examples/lib%.c,$(OUTPUT)/examples/lib%.so,$(wildcard examples/lib*.c))

WORKLOAD_C := $(filter-out tests/workloads/lib%.c tests/workloads/part_%.c tests/workloads/wl_common.c,\
	$(wildcard tests/workloads/*.c))
WORKLOAD_CXX := $(wildcard tests/workloads/*.cc)
WORKLOAD_BINS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(WORKLOAD_C)) \
	$(patsubst tests/workloads/%.cc,$(OUTPUT)/workloads/%,$(WORKLOAD_CXX))
WORKLOAD_LIBS := $(patsubst tests/workloads/lib%.c,$(OUTPUT)/workloads/lib%.so,$(wildcard tests/workloads/lib*.c))
WORKLOAD_COMMON := $(wildcard tests/workloads/wl_common.c)
# The same workloads built with probe ABI v1 (-DFSP_ABI_V1): the integration
# tests run against both (FSP_ABI=v1 picks these).
# (wl_native has rules of its own, for native stacks: not an ABI v1 test)
WORKLOAD_V1_BINS := $(patsubst $(OUTPUT)/workloads/%,$(OUTPUT)/workloads-v1/%,$(filter-out %/wl_native %/wl_dsos,$(WORKLOAD_BINS)))
WORKLOAD_V1_LIBS := $(patsubst $(OUTPUT)/workloads/%,$(OUTPUT)/workloads-v1/%,$(WORKLOAD_LIBS))

BENCH_C := $(filter-out bench/gen_profile.c bench/native_views.c bench/calls_views.c,$(wildcard bench/*.c))
BENCH_BINS := $(patsubst bench/%.c,$(OUTPUT)/bench/%,$(BENCH_C)) \
	$(patsubst bench/%.cc,$(OUTPUT)/bench/%,$(wildcard bench/*.cc))
# The mark benchmarks built with probe ABI v1 too (a uprobe trap per mark).
BENCH_V1_BINS := $(patsubst %,$(OUTPUT)/bench/v1/%,probe_cost cpu_work tick_cost fsp_off \
	startup_target)

all: $(APP)

# ---- BPF side ---------------------------------------------------------------

$(OUTPUT)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

# The object depends on every header it includes (bpf/*.bpf.h, profiler.h):
# clang writes them to $(OUTPUT)/%.bpf.d (-MMD), read at the end of this file.
# bpftool gen object links the object alone, which drops its DWARF (the BTF
# stays): the skeleton embedded in fsp-bpf is smaller, and no llvm-strip
# (Debian's llvm, 48 MB) is needed.
$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -Ibpf $(BPF_SYS_INCLUDES) \
		-Wall -Werror -MMD -MP -MF $(@:.o=.d) -MT $@ -c $< -o $@.dbg
	$(Q)$(BPFTOOL) gen object $@ $@.dbg && rm -f $@.dbg

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# ---- analysis library (no libbpf) -------------------------------------------

# Where an installed fsp-bpf finds the shipped probe maps (also found next to
# the binary, in ./maps, when run from the source tree); the unit test of the
# search path checks it.
MAP_DIR_FLAG := -DFSP_MAP_DIR='"$(PREFIX)/share/fsp-bpf/maps"'
$(OUTPUT)/analysis/probemap/probemap_dir.o $(OUTPUT)/asan/analysis/probemap/probemap_dir.o: \
	BASE_CFLAGS += $(MAP_DIR_FLAG)
# What PREFIX was built in (the map folder above, the systemd unit): rewritten
# when another is given, so that `make install PREFIX=/opt` after `make`
# rebuilds what names it instead of installing /usr/local's.
PREFIX_STAMP := $(OUTPUT)/prefix
ifneq ($(shell cat $(PREFIX_STAMP) 2>/dev/null),$(PREFIX))
$(shell mkdir -p $(OUTPUT) && echo '$(PREFIX)' > $(PREFIX_STAMP))
endif
$(OUTPUT)/analysis/probemap/probemap_dir.o $(OUTPUT)/asan/analysis/probemap/probemap_dir.o \
	$(OUTPUT)/tests/unit/test_probemap $(OUTPUT)/asan/tests/unit/test_probemap: $(PREFIX_STAMP)
$(OUTPUT)/tests/unit/test_probemap $(OUTPUT)/asan/tests/unit/test_probemap: \
	BASE_CFLAGS += $(MAP_DIR_FLAG)

# Both generated files come from one protoc-c run (a grouped pattern rule).
$(OUTPUT)/analysis/proto/%.pb-c.c $(OUTPUT)/analysis/proto/%.pb-c.h: analysis/proto/%.proto
	$(call msg,PROTOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)protoc-c --proto_path=analysis/proto --c_out=$(@D) $<

# Analysis sources may include the generated header: it exists before they
# compile (order-only), and -MMD tracks it afterwards.
$(ANALYSIS_OBJS) $(ANALYSIS_ASAN_OBJS): | $(PROTO_GEN)

$(OUTPUT)/analysis/proto/%.o: $(OUTPUT)/analysis/proto/%.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -I$(OUTPUT)/analysis/proto -c $< -o $@

$(OUTPUT)/asan/analysis/proto/%.o: $(OUTPUT)/analysis/proto/%.c
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -I$(OUTPUT)/analysis/proto -c $< -o $@

$(OUTPUT)/analysis/%.o: analysis/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(ANALYSIS_INC) -c $< -o $@

$(ANALYSIS_LIB): $(ANALYSIS_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/asan/analysis/%.o: analysis/%.c
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) $(ANALYSIS_INC) -c $< -o $@

$(ANALYSIS_ASAN_LIB): $(ANALYSIS_ASAN_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- the HTML report's page (analysis/render/html, docs/output-formats.md) -------
# scripts/html-page.sh: npm ci installs the libraries the page bundles, pinned
# by the committed lock file, into .output/html; build.mjs bundles them with
# the page's script (esbuild) into one template, which html_assets.c puts into
# the binary. Without npm (or its registry) the template is empty and
# .output/html/page.missing says why: fsp-bpf is built without the page, and
# the next make tries again if npm runs by then.

NPM ?= npm
NODE ?= node
HTML_SRC := analysis/render/html
HTML_OUT := $(OUTPUT)/html
HTML_PAGE := $(HTML_OUT)/page.html
HTML_MISSING := $(HTML_OUT)/page.missing
HTML_PAGE_FLAG := -DFSP_HTML_PAGE='"$(abspath $(HTML_PAGE))"'
HTML_RETRY = $(if $(wildcard $(HTML_MISSING)),$(if $(shell $(NPM) --version 2>/dev/null),FORCE))

.PHONY: FORCE
$(HTML_PAGE): $(HTML_SRC)/package.json $(HTML_SRC)/package-lock.json $(HTML_SRC)/build.mjs \
		$(wildcard $(HTML_SRC)/*.js $(HTML_SRC)/*.css $(HTML_SRC)/*.html) $(HTML_RETRY)
	$(call msg,PAGE,$@)
	$(Q)NPM='$(NPM)' NODE='$(NODE)' scripts/html-page.sh $(HTML_SRC) $(HTML_OUT) $@

$(OUTPUT)/analysis/render/html/html_assets.o $(OUTPUT)/asan/analysis/render/html/html_assets.o: $(HTML_PAGE)
$(OUTPUT)/analysis/render/html/html_assets.o $(OUTPUT)/asan/analysis/render/html/html_assets.o: \
	BASE_CFLAGS += $(HTML_PAGE_FLAG)

# ---- the CLI ------------------------------------------------------------------


$(OUTPUT)/userspace/%.o: userspace/%.c $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(INCLUDES) -c $< -o $@

$(APP): $(USER_OBJS) $(ANALYSIS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(USER_LIB): $(patsubst %.c,$(OUTPUT)/%.o,$(USER_LIB_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/asan/userspace/%.o: userspace/%.c $(SKELS)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) $(INCLUDES) -c $< -o $@

$(USER_ASAN_LIB): $(patsubst %.c,$(OUTPUT)/asan/%.o,$(USER_LIB_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- unit tests ---------------------------------------------------------------

# Each test is one program, linked with the analysis library and the CLI's
# (a test of the analysis library pulls nothing from the latter).
$(OUTPUT)/tests/unit/%: tests/unit/%.c $(USER_LIB) $(ANALYSIS_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(INCLUDES) -Itests/unit $< \
		$(USER_LIB) $(ANALYSIS_LIB) -lcmocka $(LDLIBS) -o $@

$(OUTPUT)/asan/tests/unit/%: tests/unit/%.c $(USER_ASAN_LIB) $(ANALYSIS_ASAN_LIB)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) $(INCLUDES) -Itests/unit $< \
		$(USER_ASAN_LIB) $(ANALYSIS_ASAN_LIB) -lcmocka $(LDLIBS) -o $@

# The symbolizer's fixture binaries (tests/unit/fixtures/build.sh: -O2 -g, then
# stripped in several ways), shared by the plain and sanitized tests.
FIXTURE_OUT := $(OUTPUT)/tests/unit/fixtures
FIXTURE_STAMP := $(FIXTURE_OUT)/.stamp
FIXTURE_TESTS := test_buildid test_symbolize test_symbolize_bad test_kallsyms test_report_symbols \
	test_unwind
$(FIXTURE_STAMP): tests/unit/fixtures/build.sh $(wildcard tests/unit/fixtures/*.[ch])
	$(call msg,FIXTURES,$(FIXTURE_OUT))
	$(Q)tests/unit/fixtures/build.sh $(CC) tests/unit/fixtures $(FIXTURE_OUT)
$(foreach t,$(FIXTURE_TESTS),$(OUTPUT)/tests/unit/$(t) $(OUTPUT)/asan/tests/unit/$(t)): \
	$(FIXTURE_STAMP)
$(foreach t,$(FIXTURE_TESTS),$(OUTPUT)/tests/unit/$(t) $(OUTPUT)/asan/tests/unit/$(t)): \
	BASE_CFLAGS += -DFSP_FIXTURES='"$(abspath $(FIXTURE_OUT))"' \
		-DFSP_FIXTURE_SRC='"$(abspath tests/unit/fixtures)"'

# The layering of analysis/ is checked on the source tree itself.
$(OUTPUT)/tests/unit/test_layers $(OUTPUT)/asan/tests/unit/test_layers: \
	BASE_CFLAGS += -DFSP_SRC_DIR='"$(abspath .)"'

# ---- examples, workloads, benchmarks (carry fsp probes) ------------------------

# The probe header and the two ABI implementations it includes.
FSP_HEADERS := usdt/fsp.h usdt/fsp_abi_v1.h usdt/fsp_abi_v2.h
# The installed headers' layout, PREFIX/include/fsp/: programs include
# <fsp/fsp.h> and <fsp/fsp-plugin.h> with -I$(PREFIX)/include (pkg-config
# --cflags fsp-bpf); the examples are built against this copy of it.
INC_OUT := $(OUTPUT)/include
INC_HEADERS := $(patsubst usdt/%,$(INC_OUT)/fsp/%,$(FSP_HEADERS)) $(INC_OUT)/fsp/fsp-plugin.h
$(INC_OUT)/fsp/%.h: usdt/%.h
	$(Q)mkdir -p $(@D) && cp $< $@
$(INC_OUT)/fsp/fsp-plugin.h: analysis/plugin/fsp-plugin.h
	$(Q)mkdir -p $(@D) && cp $< $@
PROBE_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(INC_OUT) -Iusdt -pthread

# The plug-in test_charges loads, built from one source twice: against this
# <fsp/fsp-plugin.h> (the installed layout, as the examples), and against the
# first header of ABI version 1 (frozen in tests/unit/plugins/abi1/fsp/), as
# a plug-in built before host->charges.
TEST_PLUGIN_OUT := $(OUTPUT)/tests/unit/plugins
TEST_PLUGINS := $(TEST_PLUGIN_OUT)/libcharge_totals.so $(TEST_PLUGIN_OUT)/libcharge_totals_abi1.so
$(TEST_PLUGIN_OUT)/libcharge_totals.so: tests/unit/plugins/charge_totals.c $(INC_OUT)/fsp/fsp-plugin.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O2 -g $(WARN) -I$(INC_OUT) -fPIC -shared $< -o $@
$(TEST_PLUGIN_OUT)/libcharge_totals_abi1.so: tests/unit/plugins/charge_totals.c \
		tests/unit/plugins/abi1/fsp/fsp-plugin.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O2 -g $(WARN) -Itests/unit/plugins/abi1 -fPIC -shared $< -o $@
$(OUTPUT)/tests/unit/test_charges $(OUTPUT)/asan/tests/unit/test_charges: $(TEST_PLUGINS)
$(OUTPUT)/tests/unit/test_charges $(OUTPUT)/asan/tests/unit/test_charges: \
	BASE_CFLAGS += -DFSP_TEST_PLUGINS='"$(abspath $(TEST_PLUGIN_OUT))"'

# Example libraries (a plug-in among them: -Ianalysis/plugin for fsp-plugin.h).
$(OUTPUT)/examples/lib%.so: examples/lib%.c $(INC_HEADERS) $(wildcard examples/*.h)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) -Iexamples -fPIC -shared $< -o $@

# A program NAME_*.c links examples/libNAME.c's library when there is one.
example_lib = $(if $(wildcard examples/lib$(firstword $(subst _, ,$(1))).c),-l$(firstword $(subst _, ,$(1))))
$(OUTPUT)/examples/%: examples/%.c $(INC_HEADERS) $(EXAMPLE_LIBS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) -Iexamples $< -o $@ -L$(OUTPUT)/examples \
		-Wl,-rpath,'$$ORIGIN' $(if $(findstring _lib,$*),-l$(patsubst %_lib,%,$*),) \
		$(call example_lib,$*) -ldl -lm

$(OUTPUT)/examples/%: examples/%.cc $(INC_HEADERS)
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -std=gnu++17 -O2 -g -Wall -Wextra -Werror -I$(INC_OUT) -pthread $< -o $@

# $(1): the output folder, $(2): extra flags (the ABI).
# A workload wl_NAME.c drives examples/libNAME.c's library when there is one.
define workload_rules
$(OUTPUT)/$(1)/lib%.so: tests/workloads/lib%.c $(FSP_HEADERS) $(WORKLOAD_COMMON)
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) $(2) -Itests/workloads -Ianalysis/plugin -fPIC -shared $$< -o $$@

$(OUTPUT)/$(1)/%: tests/workloads/%.c $(FSP_HEADERS) $(WORKLOAD_COMMON) $(wildcard tests/workloads/*.h) $(patsubst $(OUTPUT)/workloads/%,$(OUTPUT)/$(1)/%,$(WORKLOAD_LIBS)) $(EXAMPLE_LIBS)
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) $(2) -Itests/workloads -Iexamples $$< $(WORKLOAD_COMMON) -o $$@ \
		-L$(OUTPUT)/examples -Wl,-rpath,'$$$$ORIGIN/../examples' \
		$$(call example_lib,$$(patsubst wl_%,%,$$*)) -ldl -lm

$(OUTPUT)/$(1)/%: tests/workloads/%.cc $(FSP_HEADERS) $(OUTPUT)/workloads/wl_common.o
	$$(call msg,CXX,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$(CXX) -std=gnu++17 -O2 -g -Wall -Wextra -Werror $(2) -Iusdt -Itests/workloads -pthread $$< \
		$(OUTPUT)/workloads/wl_common.o -o $$@ -lm
endef

# C++ workloads link wl_common compiled as C (it has no marks).
$(OUTPUT)/workloads/wl_common.o: $(WORKLOAD_COMMON) tests/workloads/wl_common.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) -Itests/workloads -c $< -o $@

$(eval $(call workload_rules,workloads,))
$(eval $(call workload_rules,workloads-v1,-DFSP_ABI_V1))

# wl_dsos links ten libraries with ABI v2 marks, libwl_dso0..9.so from one
# source: more files with marks than fsp-bpf reads of a process (ABI v2 only).
WL_DSO_LIBS := $(foreach i,0 1 2 3 4 5 6 7 8 9,$(OUTPUT)/workloads/libwl_dso$(i).so)
$(OUTPUT)/workloads/libwl_dso%.so: tests/workloads/libwl_dso.c $(FSP_HEADERS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) -DWL_DSO=$* -Itests/workloads -fPIC -shared \
		-Wl,-soname,libwl_dso$*.so $< -o $@
$(OUTPUT)/workloads/wl_dsos: tests/workloads/wl_dsos.c $(FSP_HEADERS) $(WORKLOAD_COMMON) $(WL_DSO_LIBS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROBE_CFLAGS) -Itests/workloads $< $(WORKLOAD_COMMON) -o $@ \
		-L$(OUTPUT)/workloads -Wl,-rpath,'$$ORIGIN' \
		$(foreach i,0 1 2 3 4 5 6 7 8 9,-lwl_dso$(i)) -lm

# wl_native.c twice (native stacks, test_native): with frame pointers, and
# without (as Debian builds most binaries); both link libwl_native.so.
WORKLOAD_BINS += $(OUTPUT)/workloads/wl_native_nofp
NATIVE_WL_DEPS := tests/workloads/wl_native.c $(FSP_HEADERS) $(WORKLOAD_COMMON) $(OUTPUT)/workloads/libwl_native.so
$(OUTPUT)/workloads/wl_native: $(NATIVE_WL_DEPS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROBE_CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Itests/workloads \
		$< $(WORKLOAD_COMMON) -o $@ -L$(OUTPUT)/workloads -Wl,-rpath,'$$ORIGIN' -lwl_native
$(OUTPUT)/workloads/wl_native_nofp: $(NATIVE_WL_DEPS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROBE_CFLAGS) -fomit-frame-pointer -Itests/workloads \
		$< $(WORKLOAD_COMMON) -o $@ -L$(OUTPUT)/workloads -Wl,-rpath,'$$ORIGIN' -lwl_native

# wl_funcfeat.c (function features, test_funcfeat) the same way, and with
# probe ABI v1 marks (frame pointers); each links its folder's libwl_native.so.
WORKLOAD_BINS += $(OUTPUT)/workloads/wl_funcfeat_nofp
FUNCFEAT_WL_DEPS := tests/workloads/wl_funcfeat.c $(FSP_HEADERS) $(WORKLOAD_COMMON)
$(OUTPUT)/workloads/wl_funcfeat: $(FUNCFEAT_WL_DEPS) $(OUTPUT)/workloads/libwl_native.so
$(OUTPUT)/workloads-v1/wl_funcfeat: $(FUNCFEAT_WL_DEPS) $(OUTPUT)/workloads-v1/libwl_native.so
$(OUTPUT)/workloads/wl_funcfeat $(OUTPUT)/workloads-v1/wl_funcfeat:
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROBE_CFLAGS) $(if $(findstring -v1/,$@),-DFSP_ABI_V1) -fno-omit-frame-pointer \
		-mno-omit-leaf-frame-pointer -Itests/workloads $< $(WORKLOAD_COMMON) -o $@ \
		-L$(@D) -Wl,-rpath,'$$ORIGIN' -lwl_native -lm
$(OUTPUT)/workloads/wl_funcfeat_nofp: $(FUNCFEAT_WL_DEPS) $(OUTPUT)/workloads/libwl_native.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROBE_CFLAGS) -fomit-frame-pointer -Itests/workloads \
		$< $(WORKLOAD_COMMON) -o $@ -L$(@D) -Wl,-rpath,'$$ORIGIN' -lwl_native -lm

# wl_abimix.c (the build's ABI) with part_abimix_v1.c (always ABI v1) in one
# executable, linked in both orders (wl_abimix_r: the ABI v1 unit first).
WORKLOAD_BINS += $(OUTPUT)/workloads/wl_abimix_r
WORKLOAD_V1_BINS += $(OUTPUT)/workloads-v1/wl_abimix_r
ABIMIX_DEPS := tests/workloads/wl_abimix.c tests/workloads/part_abimix_v1.c $(FSP_HEADERS) \
	$(WORKLOAD_COMMON) tests/workloads/wl_common.h
define abimix_rules
$(OUTPUT)/$(1)/wl_abimix: $(ABIMIX_DEPS)
	$$(call msg,CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) $(2) -Itests/workloads -c tests/workloads/wl_abimix.c -o $$@.main.o
	$(Q)$(CC) $(PROBE_CFLAGS) -DFSP_ABI_V1 -Itests/workloads -c tests/workloads/part_abimix_v1.c \
		-o $$@.v1.o
	$(Q)$(CC) $(PROBE_CFLAGS) $$@.main.o $$@.v1.o $(WORKLOAD_COMMON) -o $$@ -lm
$(OUTPUT)/$(1)/wl_abimix_r: $(OUTPUT)/$(1)/wl_abimix
	$$(call msg,CC,$$@)
	$(Q)$(CC) $(PROBE_CFLAGS) $$<.v1.o $$<.main.o $(WORKLOAD_COMMON) -o $$@ -lm
endef
$(eval $(call abimix_rules,workloads,))
$(eval $(call abimix_rules,workloads-v1,-DFSP_ABI_V1))


# Synthetic profile files and their load/attribute/write timing (bench/files.sh):
# an analysis-library program, not a probe one.
$(OUTPUT)/bench/gen_profile: bench/gen_profile.c $(ANALYSIS_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(ANALYSIS_INC) $< $(ANALYSIS_LIB) $(LDLIBS) -lm -o $@

# The slow-call view's report time for 1M samples (docs/benchmarks.md).
$(OUTPUT)/bench/calls_views: bench/calls_views.c $(ANALYSIS_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(ANALYSIS_INC) $< $(ANALYSIS_LIB) $(LDLIBS) -lm -o $@

# The views of a profile with native stacks, timed (docs/benchmarks.md).
$(OUTPUT)/bench/native_views: bench/native_views.c $(ANALYSIS_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(ANALYSIS_INC) $< $(ANALYSIS_LIB) $(LDLIBS) -lm -o $@

$(OUTPUT)/bench/%: bench/%.c $(FSP_HEADERS) bench/bench_attached.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) -Ibench $< -o $@ -lm

# The probe ABI v2 header as it was before call numbers (32-byte frames, no
# counter): binaries built with it must keep working (bench/v2.sh part A
# compares the pair cost, test_calls the profile of such a binary).
FRAME32_DIR := $(OUTPUT)/frame32
$(FRAME32_DIR)/fsp.h: $(FSP_HEADERS) scripts/frame32.sed
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)cp usdt/fsp.h usdt/fsp_abi_v1.h $(@D)/
	$(Q)sed -f scripts/frame32.sed usdt/fsp_abi_v2.h > $(@D)/fsp_abi_v2.h
	$(Q)! grep -qE 'calls?;|, 40, 64' $(@D)/fsp_abi_v2.h || { echo "frame32.sed left a call number" >&2; exit 1; }

$(OUTPUT)/bench/frame32/%: bench/%.c $(FRAME32_DIR)/fsp.h bench/bench_attached.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(subst -Iusdt,-I$(FRAME32_DIR),$(PROBE_CFLAGS)) -Ibench $< -o $@ -lm

$(OUTPUT)/bench/v1/%: bench/%.c $(FSP_HEADERS) bench/bench_attached.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROBE_CFLAGS) -DFSP_ABI_V1 -Ibench $< -o $@ -lm

$(OUTPUT)/bench/%: bench/%.cc $(FSP_HEADERS)
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -std=gnu++17 -O2 -g -Wall -Wextra -Werror -Iusdt -pthread $< -o $@ -ldl

# The probe-cost baseline: an empty BPF program on the same fsp sites (bench/run.sh).
BENCH_TOOLS := $(OUTPUT)/bench/tools/empty.bpf.o $(OUTPUT)/bench/tools/empty_attach

$(OUTPUT)/bench/tools/empty.bpf.o: bench/tools/empty.bpf.c $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) $(BPF_SYS_INCLUDES) \
		-Wall -Werror -c $< -o $@

$(OUTPUT)/bench/tools/empty_attach: bench/tools/empty_attach.c $(OUTPUT)/userspace/probes/usdt.o \
		$(OUTPUT)/userspace/probes/usdt_syms.o $(ANALYSIS_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(INCLUDES) $< $(OUTPUT)/userspace/probes/usdt.o \
		$(OUTPUT)/userspace/probes/usdt_syms.o $(ANALYSIS_LIB) $(LDLIBS) -o $@

# When a profiler is ready, and its tear-down (bench/startup.sh).
$(OUTPUT)/bench/tools/startwatch: bench/tools/startwatch.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $< -o $@
bench: $(OUTPUT)/bench/tools/startwatch

# The soak's watcher: occupancy of a process's BPF maps (bench/soak.sh).
$(OUTPUT)/bench/tools/bpfmaps: bench/tools/bpfmaps.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $< $(LDLIBS) -o $@

# The symbolizer's cost per address (bench/symbols.sh): an analysis-library program.
$(OUTPUT)/bench/tools/sym_bench: bench/tools/sym_bench.c $(ANALYSIS_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(ANALYSIS_INC) $< $(ANALYSIS_LIB) $(LDLIBS) -lm -o $@
bench: $(OUTPUT)/bench/tools/sym_bench

examples: $(EXAMPLE_LIBS) $(EXAMPLE_BINS)
# The JVM workload, when a JDK is installed (scripts/install-deps.sh installs
# openjdk-17-jdk-headless; without it tests/integration/test_jvm skips).
JAVAC ?= $(shell command -v javac 2>/dev/null)
JAVA_WORKLOADS := $(if $(JAVAC),$(patsubst tests/workloads/java/%.java,$(OUTPUT)/workloads/java/%.class,$(wildcard tests/workloads/java/*.java)))

$(OUTPUT)/workloads/java/%.class: tests/workloads/java/%.java
	$(call msg,JAVAC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(JAVAC) -d $(@D) $<

workloads: $(WORKLOAD_LIBS) $(WORKLOAD_BINS) $(WORKLOAD_V1_LIBS) $(WORKLOAD_V1_BINS) $(JAVA_WORKLOADS) \
	$(OUTPUT)/workloads-frame32/wl_threads

# wl_threads built with the ABI v2 header before call numbers (32-byte
# frames): test_calls frame32 profiles it (binaries built so keep working).
$(OUTPUT)/workloads-frame32/wl_threads: tests/workloads/wl_threads.c $(FRAME32_DIR)/fsp.h $(WORKLOAD_COMMON)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(subst -Iusdt,-I$(FRAME32_DIR),$(PROBE_CFLAGS)) -Itests/workloads $< \
		$(WORKLOAD_COMMON) -o $@ -lm

# ---- integration tests (root: load BPF, profile real processes) ----------------

$(OUTPUT)/tests/integration/%.o: tests/integration/%.c | $(PROTO_GEN)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/integration $(ANALYSIS_INC) -c $< -o $@

# Integration tests may read profiles through the analysis library too.
ITEST_LDLIBS := -lcmocka -ljson-c -lprotobuf-c -ldw -lelf -lz -lm
$(OUTPUT)/tests/integration/%: $(OUTPUT)/tests/integration/%.o $(ITEST_LIB_OBJS) $(ANALYSIS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(ITEST_LDLIBS) -o $@

$(OUTPUT)/tests/integration/test_matrix: $(OUTPUT)/tests/integration/test_matrix.o $(MATRIX_OBJS) \
		$(ITEST_LIB_OBJS) $(ANALYSIS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(ITEST_LDLIBS) -o $@

# ---- entry points ---------------------------------------------------------------

# The Debian packages of one purpose (scripts/install-deps.sh; sizes in
# docs/install.md): building and the demo, the HTML page, the tests, the
# benchmarks.
deps deps-build:
	$(Q)scripts/install-deps.sh build
deps-html deps-test deps-bench: deps-%:
	$(Q)scripts/install-deps.sh $*

# Under sudo, builds run as the invoking user (scripts/as-user.sh) and what
# root wrote in the tree is handed back: a plain make works afterwards.
AS_USER := scripts/as-user.sh

unit: $(UNIT_BINS)
	$(Q)scripts/run-tests.sh unit $(UNIT_BINS)

unit-asan: $(UNIT_ASAN_BINS)
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		scripts/run-tests.sh unit-asan $(UNIT_ASAN_BINS)

# Every test against the default (probe ABI v2) workloads, then those that
# profile the marks themselves again against the ABI v1 builds (test_funcfeat_global:
# wl_sampled's variables read under its mark "work", ABI v1 there).
# test_html makes a 1M-sample profile with gen_profile.
ITEST_V1_BINS := $(filter $(patsubst %,$(OUTPUT)/tests/integration/%,test_accuracy test_attach \
	test_calljoin test_calls test_clean test_dynamic test_events test_funcfeat test_funcfeat_global \
	test_samplelabels test_system test_v2),$(ITEST_BINS))
integration: $(APP) examples workloads $(ITEST_BINS) $(OUTPUT)/bench/gen_profile
	$(Q)FSP_BPF=$(abspath $(APP)) FSP_OUT=$(abspath $(OUTPUT)) FSP_ABI=v2 \
		scripts/run-tests.sh integration $(ITEST_BINS); v2=$$?; \
	FSP_BPF=$(abspath $(APP)) FSP_OUT=$(abspath $(OUTPUT)) FSP_ABI=v1 \
		scripts/run-tests.sh integration-v1 $(ITEST_V1_BINS); v1=$$?; \
	[ $$v2 -eq 0 ] && [ $$v1 -eq 0 ]

# Shell-level tests (tests/packaging/): man pages against --help, bash
# completion, the installed headers, the build without npm and under sudo, the
# Debian package (root: installs it and removes it again).
PACKAGING_TESTS := $(wildcard tests/packaging/test_*.sh)
packaging: $(APP) examples man
	$(Q)FSP_BPF=$(abspath $(APP)) scripts/run-tests.sh packaging $(PACKAGING_TESTS)

# The whole consistency matrix (tests/integration/test_matrix.c; make test runs
# a subset of it): every workload x record options x mode x live output, each
# saved profile in every view. Root; 10 to 11 minutes (docs/architecture.md, "Tests").
check-matrix: $(APP) examples workloads $(OUTPUT)/tests/integration/test_matrix
	$(Q)FSP_BPF=$(abspath $(APP)) FSP_OUT=$(abspath $(OUTPUT)) FSP_ABI=v2 FSP_MATRIX=full \
		scripts/run-tests.sh matrix $(OUTPUT)/tests/integration/test_matrix

test: deps-test
	$(Q)$(AS_USER) $(MAKE) --no-print-directory all
	$(Q)scripts/run-tests.sh all-begin
	$(Q)$(MAKE) --no-print-directory unit; \
	 $(MAKE) --no-print-directory unit-asan; \
	 $(MAKE) --no-print-directory integration; \
	 $(MAKE) --no-print-directory packaging; \
	 scripts/run-tests.sh all-end; rc=$$?; $(AS_USER) --handback; exit $$rc

demo: deps-build
	$(Q)$(AS_USER) $(MAKE) --no-print-directory all examples
	./$(APP) -- $(OUTPUT)/examples/demo 3000
	./$(APP) -- $(OUTPUT)/examples/demo_mt 4 1500

bench: deps-bench
bench: $(APP) $(BENCH_BINS) $(BENCH_V1_BINS) $(OUTPUT)/bench/frame32/probe_cost $(BENCH_TOOLS) examples workloads
bench: $(OUTPUT)/bench/gen_profile $(OUTPUT)/bench/native_views $(OUTPUT)/bench/calls_views
	$(Q)bench/run.sh
	$(Q)bench/v2.sh
	$(Q)bench/calls.sh
	$(Q)bench/sample_labels.sh
	$(Q)bench/events.sh
	$(Q)bench/ffevents.sh
	$(Q)bench/unwind.sh
	$(Q)bench/stacks.sh
	$(Q)bench/files.sh
	$(Q)bench/symbols.sh
	$(Q)bench/html.sh
	$(Q)$(OUTPUT)/bench/native_views
	$(Q)bench/pg.sh
	$(Q)bench/agent.sh
	$(Q)bench/startup.sh

# -a for SOAK_S seconds (600) while thousands of short processes come and go,
# the agent scraped every second; not part of make test (root; hold the
# integration lock, it is system-wide).
soak: $(APP) workloads $(OUTPUT)/bench/tools/bpfmaps
	$(Q)bench/soak.sh

# The man pages: one reStructuredText source each in docs/man (NAME.SECTION.rst),
# rendered by docutils' rst2man (python3-docutils).
RST2MAN ?= rst2man
MAN_PAGES := $(patsubst docs/man/%.rst,$(OUTPUT)/man/%,$(wildcard docs/man/*.rst))
$(OUTPUT)/man/%: docs/man/%.rst
	$(call msg,MAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sed 's/@VERSION@/$(VERSION)/g' $< | $(RST2MAN) --halt=warning > $@
man: $(MAN_PAGES)

BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
# The pkg-config file (-I$(PREFIX)/include, for #include <fsp/fsp.h>) is made
# for the PREFIX of this install; header-only, so under share/.
PKGCONFIG_DIR ?= $(PREFIX)/share/pkgconfig
# The agent's systemd unit (docs/fleet.md): ExecStart names the installed binary.
UNIT_DIR ?= $(PREFIX)/lib/systemd/system
fsp-bpf.service: scripts/fsp-bpf.service.in $(PREFIX_STAMP)
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' scripts/fsp-bpf.service.in > $@

install: $(APP) $(MAN_PAGES) fsp-bpf.service
	install -D -m 0755 $(APP) $(DESTDIR)$(PREFIX)/bin/$(APP)
	install -D -m 0644 fsp-bpf.service $(DESTDIR)$(UNIT_DIR)/fsp-bpf.service
	install -D -m 0644 docs/fleet.md $(DESTDIR)$(PREFIX)/share/doc/fsp-bpf/fleet.md
	install -D -m 0644 -t $(DESTDIR)$(PREFIX)/include/fsp $(FSP_HEADERS)
	install -D -m 0644 analysis/plugin/fsp-plugin.h $(DESTDIR)$(PREFIX)/include/fsp/fsp-plugin.h
	install -d $(DESTDIR)$(PKGCONFIG_DIR)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' scripts/fsp-bpf.pc.in \
		> $(DESTDIR)$(PKGCONFIG_DIR)/fsp-bpf.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIG_DIR)/fsp-bpf.pc
	install -d $(DESTDIR)$(PREFIX)/share/fsp-bpf/maps
	install -m 0644 maps/*.map $(DESTDIR)$(PREFIX)/share/fsp-bpf/maps/
	for m in $(MAN_PAGES); do \
		install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man$${m##*.}/$${m##*/} || exit 1; \
	done
	install -D -m 0644 scripts/fsp-bpf.bash-completion $(DESTDIR)$(BASH_COMPLETION_DIR)/fsp-bpf

# ---- the Debian package (scripts/make-deb.sh, scripts/debian/) -----------------
deb:
	$(Q)scripts/make-deb.sh $(VERSION) $(OUTPUT)/deb

# ---- fuzzing the profile-file reader (clang, libFuzzer) --------------------------
# The analysis sources are compiled by clang with the sanitizers and coverage
# into the fuzzer; seeds in bench/fuzz/corpus, new inputs and crashes in
# $(OUTPUT)/fuzz/. Crashing inputs go to tests/unit/fuzz_crashes/ (a unit test).

FUZZ_SECS ?= 600
FUZZ_BIN := $(OUTPUT)/fuzz/fuzz_profile
FUZZ_SRCS := bench/fuzz/fuzz_profile.c $(ANALYSIS_SRCS) $(filter %.c,$(PROTO_GEN))
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE \
	-DFSP_VERSION='"$(VERSION)"' -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fsanitize-recover=pointer-overflow \
	$(ANALYSIS_INC) $(HTML_PAGE_FLAG)

.PHONY: fuzz
$(FUZZ_BIN): $(FUZZ_SRCS) $(shell find analysis -name '*.h') $(HTML_PAGE) | $(PROTO_GEN)
	$(call msg,CLANG,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SRCS) $(LDLIBS) -lm -o $@

fuzz: $(FUZZ_BIN)
	$(Q)mkdir -p $(OUTPUT)/fuzz/corpus
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=bench/fuzz/ubsan.supp \
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECS) -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -dict=bench/fuzz/profile.dict -print_final_stats=1 \
		-artifact_prefix=$(OUTPUT)/fuzz/ $(OUTPUT)/fuzz/corpus bench/fuzz/corpus

# The probe-map parser (analysis/probemap/, files root reads with --map FILE):
# seeds are the shipped maps and bench/fuzz/probemap_corpus; findings go to
# $(OUTPUT)/fuzz-probemap/ and, fixed, become tests in tests/unit/test_probemap.c
# (docs/probe-maps.md "Testing the parser").
FUZZ_PM_BIN := $(OUTPUT)/fuzz/fuzz_probemap
FUZZ_PM_SRCS := bench/fuzz/fuzz_probemap.c $(wildcard analysis/probemap/*.c) analysis/common/utf8.c \
	analysis/common/escape.c analysis/common/funcfeat.c

.PHONY: fuzz-probemap
$(FUZZ_PM_BIN): $(FUZZ_PM_SRCS) $(wildcard analysis/probemap/*.h analysis/common/*.h)
	$(call msg,CLANG,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_PM_SRCS) -o $@

fuzz-probemap: $(FUZZ_PM_BIN)
	$(Q)mkdir -p $(OUTPUT)/fuzz-probemap/corpus
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=bench/fuzz/ubsan.supp \
	$(FUZZ_PM_BIN) -max_total_time=$(FUZZ_SECS) -timeout=10 -rss_limit_mb=2048 \
		-max_len=8192 -dict=bench/fuzz/probemap.dict -print_final_stats=1 \
		-artifact_prefix=$(OUTPUT)/fuzz-probemap/ $(OUTPUT)/fuzz-probemap/corpus \
		bench/fuzz/probemap_corpus maps

# Tracked sources that exist: one deleted but not yet committed is skipped.
FORMAT_FILES = $(wildcard $(shell git ls-files '*.c' '*.h' '*.cc' 2>/dev/null))
format:
	$(Q)clang-format -i $(FORMAT_FILES)
format-check:
	$(Q)clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) $(APP) fsp-bpf.service

# Userspace objects depend on the skeletons; headers (C and BPF) via -MMD.
-include $(shell find $(OUTPUT) -name '*.d' 2>/dev/null)
