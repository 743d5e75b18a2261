# haltstat - KVM halt-polling analysis
VERSION   := 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share
DESTDIR   ?=

CC        ?= cc
PKGS      := libtracefs libtraceevent libtracecmd jansson libzstd zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP \
             -DHS_VERSION='"$(VERSION)"' $(PKG_CFLAGS)
LDLIBS    += $(PKG_LIBS) -lpthread -lm

# make check SANITIZE=1: the whole suite under ASan + UBSan, in its own tree.
ifeq ($(SANITIZE),1)
BUILD     ?= build/san
CFLAGS    += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=address,undefined
else
BUILD     ?= build/rel
endif

LIB_SRCS  := $(sort $(wildcard lib/*.c formats/*.c))
CMD_SRCS  := $(sort $(wildcard cmd/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
# Man pages made from doc/*.1.in: the kernel-era names come from the binary.
MAN_INS   := $(sort $(wildcard doc/*.1.in))
MAN_GEN   := $(MAN_INS:doc/%.1.in=$(BUILD)/doc/%.1)

# What a fresh Debian 12 machine needs to build, test and benchmark.
DEB_BUILD := build-essential pkg-config libtraceevent-dev libtracefs-dev \
             libtracecmd-dev libjansson-dev libzstd-dev zlib1g-dev
DEB_TEST  := trace-cmd librsvg2-bin util-linux procps time clang libclang-rt-14-dev python3 \
             python3-jsonschema python3-prometheus-client zsh fish groff-base man-db \
             tmux valgrind libxml2-utils linux-perf prometheus cmark-gfm

.PHONY: all deps check bench clean install uninstall tools man fuzz fuzz-smoke fuzz-build
all: haltstat tools man

haltstat: $(BUILD)/haltstat
	ln -sf $< $@

$(BUILD)/haltstat: $(CMD_OBJS) $(BUILD)/libhaltstat.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libhaltstat.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

# make V=1 shows the full command lines
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libhaltstat.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(BUILD)/libhaltstat.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS)

tools: $(TOOL_BINS) $(UNIT_BINS)

# The @KERNEL_ERAS@ line becomes ".BR 4.4 ", " 5.x ", " 6.1 " or " 6.11"; the
# template's first line (a comment about it) is left out.
$(BUILD)/doc/%.1: doc/%.1.in $(BUILD)/haltstat
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MAN     $@")
	$(Q)$(BUILD)/haltstat help kernel-eras >$@.eras
	$(Q)awk -F '\t' 'NR == FNR { era[++n] = $$1; next } FNR == 1 { next } \
		$$0 == "@KERNEL_ERAS@" { s = ".BR"; for (i = 1; i <= n; i++) \
			s = s " " era[i] (i < n - 1 ? " \", \"" : i == n - 1 ? " \" or \"" : ""); \
			$$0 = s } { print }' $@.eras $< >$@.tmp
	$(Q)rm -f $@.eras && mv $@.tmp $@

man: $(MAN_GEN)

deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEB_BUILD) $(DEB_TEST)

check: haltstat tools man
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) tests/run.sh

bench: haltstat tools
	@BUILD=$(BUILD) tests/bench/run.sh

# libFuzzer harnesses (tests/fuzz/*.c), with the lib/ and formats/ objects
# built again by clang with coverage, ASan and UBSan in their own tree.
# make fuzz: FUZZ_RUNS executions per harness over tests/fuzz/corpus/NAME
# (new inputs go to $(FUZZ_DIR)/corpus/NAME), after the regression inputs.
# Long runs go 2.4x faster without ASan: make fuzz FUZZ_DIR=build/fuzzfast
# FUZZ_SAN=-fsanitize=undefined; then replay the corpus under the default
# build (build/libfuzzer/fuzz_NAME -runs=0 DIR).
FUZZ_CC    ?= clang
FUZZ_DIR   ?= build/libfuzzer
FUZZ_RUNS  ?= 2000000
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SMOKE_SECONDS ?= 8
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP \
               -DHS_VERSION='"$(VERSION)"' $(PKG_CFLAGS) $(FUZZ_SAN)
FUZZ_OBJS  := $(LIB_SRCS:%.c=$(FUZZ_DIR)/%.o)
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/*.c))
FUZZ_BINS  := $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_DIR)/%)

$(FUZZ_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libhaltstat.a: $(FUZZ_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libhaltstat.a
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c %.a,$^) $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@FUZZ_DIR=$(FUZZ_DIR) FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh

fuzz-smoke: fuzz-build
	@FUZZ_DIR=$(FUZZ_DIR) FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_SMOKE=1 tests/fuzz/run.sh

install: haltstat man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d \
		$(DESTDIR)$(DATADIR)/haltstat
	install -m 755 $(BUILD)/haltstat $(DESTDIR)$(BINDIR)/haltstat
	install -m 644 formats/report.schema.json formats/diff.schema.json \
		formats/top.schema.json $(DESTDIR)$(DATADIR)/haltstat/
	install -m 644 contrib/grafana/haltstat.json $(DESTDIR)$(DATADIR)/haltstat/grafana-dashboard.json
	for f in doc/*.1 $(MAN_GEN); do [ -e "$$f" ] && install -m 644 $$f $(DESTDIR)$(MANDIR)/man1/; done; true
	[ ! -e completions/haltstat.bash ] || install -m 644 completions/haltstat.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/haltstat
	[ ! -e completions/_haltstat ] || install -m 644 completions/_haltstat $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_haltstat
	[ ! -e completions/haltstat.fish ] || install -m 644 completions/haltstat.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/haltstat.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/haltstat $(DESTDIR)$(MANDIR)/man1/haltstat*.1 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/haltstat \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_haltstat \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/haltstat.fish
	rm -rf $(DESTDIR)$(DATADIR)/haltstat

clean:
	rm -rf build haltstat

-include $(shell find build -name '*.d' 2>/dev/null)
