# Builds a BPF application (a BPF object, its skeleton, and its loader) the
# way one outside the kernel tree is built: with Debian's clang, bpftool and
# libbpf-dev (libbpf 1.1), nothing from the kernel tree but two inputs.
#   SRC       directory with $(BPF_SRC) and $(USER_SRC)
#   SKEL      skeleton name (the loader includes $(SKEL).skel.h)
#   BIN       output binary name
#   VMLINUX   the built vmlinux (for vmlinux.h)
#   HEADER    bpf_exceptions.h, exported from the series
#   OUT       output directory
#   CLANG     clang-14 (Debian 12's default), clang-16 or clang-19
#   BPF_CPU   -mcpu of the BPF object (default v3)
#   BPF_INCLUDES  more -I flags for the BPF object (optional)
#   BPF_DEFINES   -D flags for the BPF object (optional)
#   LIBBPF_CFLAGS, LIBBPF_LIBS  another libbpf for the loader (default:
#                 Debian's, -lbpf)
#   BPF_ARCH      the kernel's name of the target architecture, for
#                 bpf_tracing.h (default x86)
#   BPF_TARGET    clang's target of the BPF object: bpf, the host's byte
#                 order (default), or bpfeb for a big-endian guest (s390x)
#   BPFTOOL       the bpftool that dumps vmlinux.h and makes the skeleton
#                 (default: Debian's)
#   CC, LDFLAGS   the loader's compiler and link flags (a cross compiler
#                 and -static for another architecture)

CLANG ?= clang-14
BPFTOOL ?= bpftool
# -mcpu=v3: 32-bit jumps and ALU (Linux 5.1+), as the kernel's selftests
# use; with clang's default (v1) every u32 that meets an asm barrier, as
# in the assertion macros, is zero-extended with two shifts.
BPF_CPU ?= v3
BPF_ARCH ?= x86
BPF_TARGET ?= bpf
BPF_CFLAGS := -g -O2 -target $(BPF_TARGET) -mcpu=$(BPF_CPU) -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror
# Objects are rebuilt when this file (their flags) changes.
THIS_MK := $(lastword $(MAKEFILE_LIST))

all: $(OUT)/$(BIN)

$(OUT)/vmlinux.h: $(VMLINUX)
	$(BPFTOOL) btf dump file $< format c > $@.tmp && mv $@.tmp $@

# where Debian's package of it puts it: beside libbpf's bpf_helpers.h
$(OUT)/bpf/bpf_exceptions.h: $(HEADER)
	mkdir -p $(@D) && cp $< $@

$(OUT)/$(SKEL).bpf.o: $(SRC)/$(BPF_SRC) $(wildcard $(SRC)/*.h) $(OUT)/vmlinux.h $(OUT)/bpf/bpf_exceptions.h $(THIS_MK)
	$(CLANG) $(BPF_CFLAGS) -I$(OUT) -I$(SRC) $(BPF_INCLUDES) $(BPF_DEFINES) -c $< -o $@

$(OUT)/$(SKEL).skel.h: $(OUT)/$(SKEL).bpf.o
	$(BPFTOOL) gen skeleton $< name $(SKEL) > $@.tmp && mv $@.tmp $@

LIBBPF_LIBS ?= -lbpf

$(OUT)/$(BIN): $(SRC)/$(USER_SRC) $(wildcard $(SRC)/*.h) $(OUT)/$(SKEL).skel.h
	$(CC) -g -O2 -Wall -Werror -I$(OUT) -I$(SRC) $(LIBBPF_CFLAGS) $(LDFLAGS) $< $(LIBBPF_LIBS) -o $@

.PHONY: all
.DELETE_ON_ERROR:
