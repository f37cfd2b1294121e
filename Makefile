# SPDX-License-Identifier: GPL-2.0
#
# dwq: the user's entry points. The module itself is built by kbuild from
# ./Kbuild; see README.md.
#
#   make                 dwq.ko (against KDIR) and the tools
#   make run             demo in a QEMU guest on Debian's stock 6.12 kernel
#   make check           every test; ends with "N passed, N failed"
#   make shell           an interactive guest with dwq loaded
#   sudo make load       insmod module/dwq.ko on this host
#   sudo make unload     rmmod dwq on this host

KDIR ?= /lib/modules/$(shell uname -r)/build
TESTING := tools/testing

all: modules tools

modules:
	@test -e $(KDIR)/Makefile || { \
		echo "no kernel build tree at $(KDIR): install the headers" \
		     "(apt-get install linux-headers-$$(uname -r)) or set KDIR"; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools/dwqctl
	$(MAKE) -C tools/testing/integration
	$(MAKE) -C examples

deps:
	$(TESTING)/deps

check: tools
	$(TESTING)/check

run: deps tools
	$(TESTING)/vm-run --kernel stock --no-leakcheck --modparam workers=4 -- dwqctl demo

shell: deps tools
	$(TESTING)/vm-run --kernel stock --shell

load:
	insmod module/dwq.ko

unload:
	rmmod dwq

clean:
	@test ! -e $(KDIR)/Makefile || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/dwqctl clean
	$(MAKE) -C tools/testing/integration clean
	$(MAKE) -C examples clean
	rm -rf build

.PHONY: all modules tools deps check run shell load unload clean
