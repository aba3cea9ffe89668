# Lean build of the tree's BPF selftest runner (test_progs).
#
# The tree's tools/testing/selftests/bpf/Makefile builds all ~500 BPF
# objects and ~240 test files, which needs a kernel configured with nearly
# every BPF-related subsystem (their types must be in vmlinux.h).  We build
# the same test_progs.c framework with only the tests named in TESTS and the
# BPF objects those tests use, found by scanning each test for
# "<name>.skel.h", "<name>.lskel.h" and "<name>.bpf.o".
#
# Inputs: KSRC (patched tree), KBUILD (its build dir, for vmlinux),
#         OUT (output dir), TESTS (prog_tests/<name>.c names),
#         CONV (optional: a directory of progs/ and prog_tests/ sources
#         beside the tree's, the converted programs of harness/convert.sh).
#         XARCH, XCROSS (optional: the kernel's name of the target
#         architecture, default x86, and the cross compiler's prefix).  A
#         cross-built runner is linked statically: the guest has no
#         libraries of that architecture.  Named so that the tools'
#         makefiles (which read ARCH and CROSS_COMPILE) build bpftool for
#         the host.
#         XLIBS (optional: a directory with the target's libelf and zlib,
#         include/ and lib/, where they are not installed as multiarch
#         packages; harness/deps.sh).
# Targets: all (test_progs and the BPF objects), test_verifier.

ST      := $(KSRC)/tools/testing/selftests/bpf
XARCH   ?= x86
ifneq ($(XCROSS),)
CC      := $(XCROSS)gcc
LDFLAGS := -static
# the target's <asm/...> for BPF programs that include system headers
XMULTIARCH := $(shell $(CC) -print-multiarch)
ifneq ($(XLIBS),)
XLIBS_CFLAGS := -I$(XLIBS)/include
LDFLAGS += -L$(XLIBS)/lib
endif
endif
# The target's byte order, found as the tree's Makefile finds it: the BPF
# objects are built for it (-mbig-endian makes clang's -target bpf bpfeb).
IS_LITTLE_ENDIAN := $(shell $(CC) -dM -E - </dev/null | \
		      grep 'define __BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__')
MENDIAN := $(if $(IS_LITTLE_ENDIAN),-mlittle-endian,-mbig-endian)
CLANG   ?= clang
LLVM_STRIP ?= llvm-strip
LIBBPF  := $(OUT)/libbpf/libbpf.a
INC     := $(OUT)/usr/include
BPFTOOL := $(OUT)/bpftool/bootstrap/bpftool
# 6.1's libbpf opens, links and makes skeletons of BPF objects of the
# host's byte order only ("endianness mismatch"): for a big-endian target
# bpftool is built for the target, linked statically, and run under
# QEMU's user-mode emulation, as it would run on the target itself.
ifeq ($(IS_LITTLE_ENDIAN),)
BPFTOOL_VARS := HOSTCC=$(CC) HOSTLD=$(XCROSS)ld HOSTAR=$(XCROSS)ar \
		EXTRA_CFLAGS='$(XLIBS_CFLAGS)' EXTRA_LDFLAGS='$(LDFLAGS)'
BPFTOOL_RUN := qemu-$(firstword $(subst -, ,$(XMULTIARCH)))-static $(BPFTOOL)
else
BPFTOOL_RUN := $(BPFTOOL)
endif
VMLINUX_H := $(OUT)/vmlinux.h

# A test or program found in the tree, else in CONV
src = $(firstword $(wildcard $(ST)/$(1) $(if $(CONV),$(CONV)/$(1))) $(ST)/$(1))
TEST_SRCS := $(foreach t,$(TESTS),$(call src,prog_tests/$(t).c))
$(foreach s,$(TEST_SRCS),$(if $(wildcard $(s)),,$(error no such test: $(s))))
# BPF objects named by the tests, as <name> stems, and the skeletons they
# include (some objects, freplace ones for instance, have none).
names    = $(sort $(shell grep -hoE '[A-Za-z0-9_]+\.$(1)' $(TEST_SRCS) | \
		sed -E 's/\.$(1)$$//'))
SKEL_USED  := $(call names,skel\.h)
LSKEL_USED := $(call names,lskel\.h)
# Only names of sources in progs/: a test may build a file name at run
# time ("%s.bpf.o"), which the scan sees as "s".
USED     := $(foreach u,$(sort $(SKEL_USED) $(LSKEL_USED) $(call names,bpf\.o)),\
		$(if $(wildcard $(call src,progs/$(u).c)),$(u)))
BPF_OBJS := $(patsubst %,$(OUT)/%.bpf.o,$(USED))
SKELS    := $(patsubst %,$(OUT)/%.skel.h,$(SKEL_USED)) \
	    $(patsubst %,$(OUT)/%.lskel.h,$(LSKEL_USED))

EXTRA_SRCS := test_progs.c cgroup_helpers.c trace_helpers.c network_helpers.c \
	      testing_helpers.c btf_helpers.c cap_helpers.c test_loader.c
EXTRA_OBJS := $(patsubst %.c,$(OUT)/%.o,$(EXTRA_SRCS))
TEST_OBJS  := $(patsubst %,$(OUT)/%.test.o,$(TESTS))

CFLAGS := -g -O0 -Wall -Werror -I$(OUT) -I$(ST) -I$(INC) \
	  -I$(KSRC)/tools/include -I$(KSRC)/tools/include/uapi -I$(KSRC)/tools/lib \
	  $(XLIBS_CFLAGS)
LDLIBS := -lelf -lz -lrt -lpthread

# (the target's multiarch headers in place of the host's: those of its
# libc6-dev, or where only the cross compiler's libc is installed, those)
XSYS_INCLUDE = $(firstword $(wildcard /usr/include/$(XMULTIARCH) /usr/$(XMULTIARCH)/include))
CLANG_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }' \
	$(if $(XMULTIARCH),| sed 's|/usr/include/$(shell $(CLANG) -print-multiarch)$$|$(XSYS_INCLUDE)|'))
BPF_CFLAGS := -g -O2 -Werror -D__TARGET_ARCH_$(XARCH) $(MENDIAN) \
	      -I$(OUT) -I$(INC) -I$(ST) -I$(KSRC)/tools/include/uapi \
	      $(CLANG_SYS_INCLUDES) -Wno-compare-distinct-pointer-types

all: $(OUT)/test_progs $(BPF_OBJS)

$(LIBBPF) &:
	mkdir -p $(OUT)/libbpf
	$(MAKE) -s -C $(KSRC)/tools/lib/bpf OUTPUT=$(OUT)/libbpf/ \
		$(if $(XCROSS),ARCH=$(XARCH) CROSS_COMPILE=$(XCROSS)) \
		DESTDIR=$(OUT)/usr prefix= EXTRA_CFLAGS='-g -O2 $(XLIBS_CFLAGS)' \
		$(LIBBPF) install_headers

$(BPFTOOL):
	mkdir -p $(OUT)/bpftool
	$(MAKE) -s -C $(KSRC)/tools/bpf/bpftool OUTPUT=$(OUT)/bpftool/ $(BPFTOOL_VARS) bootstrap

$(VMLINUX_H): $(KBUILD)/vmlinux | $(BPFTOOL)
	$(BPFTOOL_RUN) btf dump file $< format c > $@.tmp && mv $@.tmp $@

$(OUT)/%.bpf.o: $(ST)/progs/%.c $(wildcard $(ST)/progs/*.h) $(VMLINUX_H) | $(LIBBPF)
	$(CLANG) $(BPF_CFLAGS) -target bpf -mcpu=v3 -c $< -o $@

ifneq ($(CONV),)
$(OUT)/%.bpf.o: $(CONV)/progs/%.c $(wildcard $(ST)/progs/*.h) $(VMLINUX_H) | $(LIBBPF)
	$(CLANG) $(BPF_CFLAGS) -I$(ST)/progs -target bpf -mcpu=v3 -c $< -o $@

$(OUT)/%.test.o: $(CONV)/prog_tests/%.c $(SKELS) | $(LIBBPF)
	$(CC) $(CFLAGS) -I$(ST)/prog_tests -c $< -o $@
endif

# Like the tree's Makefile: link the object through bpftool (static
# linking normalises it) and generate the skeleton.
$(OUT)/%.linked.o: $(OUT)/%.bpf.o | $(BPFTOOL)
	$(BPFTOOL_RUN) gen object $@ $<

$(OUT)/%.skel.h: $(OUT)/%.linked.o
	$(BPFTOOL_RUN) gen skeleton $< name $* > $@

$(OUT)/%.lskel.h: $(OUT)/%.linked.o
	$(BPFTOOL_RUN) gen skeleton -L $< name $*_lskel > $@

# tests.h follows the list of tests, not only their sources
TESTS_STAMP := $(OUT)/prog_tests/tests.list
$(shell mkdir -p $(OUT)/prog_tests; echo '$(TESTS)' | cmp -s - $(TESTS_STAMP) || \
	echo '$(TESTS)' > $(TESTS_STAMP))

$(OUT)/prog_tests/tests.h: $(TEST_SRCS) $(TESTS_STAMP)
	sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/DEFINE_TEST(\2)/p' \
		$(TEST_SRCS) | sort > $@

$(OUT)/%.test.o: $(ST)/prog_tests/%.c $(SKELS) | $(LIBBPF)
	$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/test_progs.o: $(OUT)/prog_tests/tests.h
$(OUT)/%.o: $(ST)/%.c | $(LIBBPF)
	$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/test_progs: $(TEST_OBJS) $(EXTRA_OBJS) $(LIBBPF)
	$(CC) $(CFLAGS) $(LDFLAGS) -rdynamic $^ $(LDLIBS) -o $@

# The tree's test_verifier, all of it (for harness/regress.sh)
$(OUT)/verifier/tests.h: $(wildcard $(ST)/verifier/*.c)
	mkdir -p $(@D)
	(echo '#ifdef FILL_ARRAY'; for f in $(sort $^); do echo "#include \"$$f\""; done; \
	 echo '#endif') > $@

$(OUT)/test_verifier: $(ST)/test_verifier.c $(OUT)/verifier/tests.h $(OUT)/testing_helpers.o \
		      $(OUT)/cap_helpers.o $(LIBBPF)
	$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.c %.o %.a,$^) $(LDLIBS) -o $@

.PHONY: all
.DELETE_ON_ERROR:
# Keep generated skeletons and objects: they are inputs of later builds.
.SECONDARY:
