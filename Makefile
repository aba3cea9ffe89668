# BPF exceptions for Linux 6.1: entry points.  Everything runs through the
# scripts in harness/; big outputs live in $(BPFEXC_CACHE), see README.md.

.PHONY: run check bench stress fuzz regress build shell cross-build deb debian-vm help

help:
	@echo "make run      build, boot the patched kernel in QEMU and run the demo"
	@echo "make check    build, boot and run the tests (T=pattern selects tests)"
	@echo "make bench    build, boot and run the benchmarks (one boot)"
	@echo "make stress   throw from both vCPUs while programs come and go"
	@echo "make fuzz     load thousands of generated programs that throw"
	@echo "              (MODE=embed: check at run time what the verifier claimed)"
	@echo "              (FLAVOUR=debug VM_MEM=2G: on the KASAN/lockdep kernel)"
	@echo "make regress  the tree's BPF tests on the baseline and patched kernels"
	@echo "make shell    boot the guest with an interactive shell"
	@echo "make build    build kernel, test runner and initramfs only"
	@echo "make cross-build  build the series for s390x and ppc64el (no boot)"
	@echo "make deb      Debian packages of the kernel with Debian's config"
	@echo "make debian-vm  boot a Debian 12 system with them and use it"
	@echo "FLAVOUR=debian, debian-rt  (with check, build, deb, debian-vm) Debian's config"
	@echo "ARCH=arm64    (with run, check, bench, regress, build, shell) the arm64 guest"
	@echo "ARCH=s390x, ppc64el  (with check, bench, regress, build, shell) their guests"

run:
	harness/run-demo.sh

check:
	harness/check.sh $(T)

bench:
	harness/bench.sh

stress: build
	harness/vm.sh -t 3000 exceptions-stress $(THROWS)

fuzz: build
	harness/vm.sh -t 3000 exceptions-fuzz $(MODE) $(COUNT) $(SEED)

regress:
	harness/regress.sh

build:
	harness/build.sh

shell: build
	harness/vm.sh -s

cross-build:
	harness/cross-build.sh

deb:
	harness/deb.sh

debian-vm:
	harness/debian-vm.sh
