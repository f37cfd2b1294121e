# SPDX-License-Identifier: GPL-2.0
#
# dwq: the user's entry points. The module itself is built by kbuild from
# ./Kbuild; see README.md.
#
#   make                 dwq.ko (against KDIR) and dwqctl; make tools builds
#                        the test programs too (see tools/testing/deps)
#   make run             demo in a QEMU guest on Debian's stock 6.12 kernel
#   make check           every test; ends with "N passed, N failed"
#   make bench           benchmarks in a stock guest, then again under icount:
#                        build/bench/report.md, a CSV per figure, plots
#   make bench-publish   that run's results into docs/bench/results.md
#   make profile MODE=dwq N=100000   instructions per operation by kernel
#                        function, counted by a QEMU plugin in a stock
#                        guest: build/prof/MODE-N/profile.txt
#   make shell           an interactive guest with dwq loaded
#   sudo make load       insmod module/dwq.ko on this host
#   sudo make unload     rmmod dwq on this host
#   sudo make install    module (extra/, depmod) and all of install-user;
#                        DESTDIR= stages
#   sudo make install-user  no module: dwqctl, uapi header, man page, udev
#                        rule, modprobe.d example, sysusers.d entry and
#                        group dwq. For a dwq.ko from DKMS or dwq-dkms:
#                        make install would add a second one in extra/
#   sudo make uninstall  removes what install or install-user installed
#                        (/etc/modprobe.d/dwq.conf only if unedited and
#                        no package's; install keeps one that exists)
#   sudo make dkms-install / dkms-remove   the module through DKMS
#                        (/usr/src/dwq-VERSION, dkms add, build, install);
#                        both can run again: dkms-install with dwq/VERSION
#                        added from the same sources only builds and
#                        installs what is missing, with other sources (an
#                        edit without a new version) it removes dwq/VERSION
#                        and adds it again so DKMS does not keep the old
#                        build. Both refuse to touch sources that a package
#                        (dwq-dkms) owns: use apt for those
#   make deb             dwq-dkms, dwq-dev and dwqctl .debs (debian/) in
#                        build/deb/

KDIR ?= /lib/modules/$(shell uname -r)/build
# The release KDIR was configured for: where modules_install puts dwq.ko.
KVER ?= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || uname -r)
TESTING := tools/testing

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
UDEVDIR ?= /etc/udev/rules.d
MODPROBEDIR ?= /etc/modprobe.d
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
# The version DKMS knows the sources by.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC ?= /usr/src/dwq-$(VERSION)
# What DKMS needs to build dwq.ko: kbuild files and sources, nothing built.
# Not the KUnit suites: DKMS installs dwq.ko alone, and a kernel with
# CONFIG_KUNIT would otherwise build dwq_kunit.ko too, for nothing.
DKMS_FILES := dkms.conf Kbuild include/dwq.h include/uapi/linux/dwq.h \
	module/Kbuild module/compat.mk $(filter-out %.mod.c,$(wildcard module/*.[ch]))

all: modules tool-tools/dwqctl

modules:
	@test -e $(KDIR)/Makefile || { \
		echo "no kernel build tree at $(KDIR): install the headers" \
		     "(apt-get install linux-headers-$$(uname -r)) or set KDIR"; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# The programs the tests run, each directory a make of its own; they build
# side by side, one per CPU, also under a plain `make check`.
TOOL_DIRS := tools/dwqctl tools/testing/selftests/dwq tools/testing/stress \
	tools/testing/security tools/bench/user tools/prof examples
tools:
	$(MAKE) -j$$(nproc) $(TOOL_DIRS:%=tool-%)

$(TOOL_DIRS:%=tool-%):
	$(MAKE) -C $(@:tool-%=%)

# Targets that run the test programs build them in their recipe, after
# deps: as two prerequisites, make -j would build them while deps is still
# installing their compilers and libraries.
deps:
	$(TESTING)/deps

# check installs the dependencies and builds the test programs itself,
# each a case of its own, so that a failure there still ends in its summary.
check:
	@command -v python3 >/dev/null || $(TESTING)/deps
	$(TESTING)/check

# The stress, mode-switch and fuzz programs of make check, for longer:
# make soak DURATION=<seconds of stress> (the fuzzer makes 1M calls) on the
# debug kernel, then the same programs for KCSAN_DURATION seconds of stress
# (50k fuzz calls) on the KCSAN kernel, where any data race fails the run.
# soak-debug (with soak-lifecycle) and soak-kcsan run one half alone.
DURATION ?= 3600
KCSAN_DURATION ?= 60
soak: soak-debug
	$(MAKE) soak-kcsan

soak-debug: deps
	$(MAKE) tools
	$(TESTING)/vm-run --kernel debug --modparam workers=4 \
		--timeout $$(( $(DURATION) * 3 / 2 + 1800 )) \
		--add $(TESTING)/stress/guest.sh -- \
		sh $(CURDIR)/$(TESTING)/stress/guest.sh $(DURATION) 1000000 1000
	$(MAKE) soak-lifecycle

soak-kcsan: deps
	$(MAKE) tools
	$(TESTING)/vm-run --kernel kcsan --modparam workers=4 \
		--timeout $$(( $(KCSAN_DURATION) * 3 + 1200 )) \
		--add $(TESTING)/stress/guest.sh --add $(TESTING)/stress/kcsan.sh -- \
		sh $(CURDIR)/$(TESTING)/stress/kcsan.sh $(KCSAN_DURATION) 50000 30

# The lifecycle and fault-injection tests of make check, longer: 200
# insmod/rmmod cycles, a process holding 100k tasks killed, and DURATION
# seconds of dwq-stress with 10% of dwq's allocations failing.
soak-lifecycle: deps
	$(MAKE) tools
	$(TESTING)/vm-run --kernel debug --no-load \
		--timeout $$(( $(DURATION) * 3 / 2 + 3600 )) \
		--add $(TESTING)/stress/lifecycle.sh -- \
		sh $(CURDIR)/$(TESTING)/stress/lifecycle.sh 200 $(DURATION) 100000
.PHONY: soak-lifecycle

# Every figure of the performance plan in one stock 6.12 guest (no debug
# options), again in one under icount, then the report; see tools/bench/run.
bench: deps
	$(MAKE) tools
	tools/bench/run

# After a make bench worth keeping: the report again from the run's raw
# data (build/bench/raw, and raw-icount if it ran), writing the generated
# docs/bench/results.md and copying the plots beside it. Commit them.
BENCH_OUT ?= $(or $(DWQ_BUILD),build)/bench
bench-publish:
	@test -d $(BENCH_OUT)/raw || { echo "no $(BENCH_OUT)/raw: run make bench first"; exit 1; }
	tools/bench/report $(if $(wildcard $(BENCH_OUT)/raw-icount),--icount $(BENCH_OUT)/raw-icount) \
		--publish docs/bench $(BENCH_OUT)/raw $(BENCH_OUT)

# One kind of operation (MODE: dwq, timerfd, noop, readempty, burst, late,
# latetfd, lategap or latetfdgap, see tools/prof/dwqprof.c) N times in a stock 6.12 guest under
# icount, its instructions counted by a QEMU plugin and attributed to the
# kernel's functions: build/prof/MODE-N/profile.txt; WINDOW=1 counts only
# each event's path from its timer's interrupt (build/prof/MODE-N-window/).
# See tools/prof/profile.
MODE ?= dwq
N ?= 100000
profile: deps
	$(MAKE) tools
	tools/prof/profile $(if $(WINDOW),--window) $(MODE) $(N)

run: deps
	$(MAKE) tools
	$(TESTING)/vm-run --kernel stock --no-leakcheck --modparam workers=4 -- dwqctl demo

shell: deps
	$(MAKE) tools
	$(TESTING)/vm-run --kernel stock --shell

load:
	insmod module/dwq.ko

unload:
	rmmod dwq

# Installed files, relative to DESTDIR; uninstall removes exactly these.
INSTALLED := $(BINDIR)/dwqctl $(INCLUDEDIR)/linux/dwq.h \
	$(MANDIR)/man8/dwqctl.8 $(UDEVDIR)/60-dwq.rules $(MODPROBEDIR)/dwq.conf \
	$(SYSUSERSDIR)/dwq.conf

install: modules install-user
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra DEPMOD=true modules_install
	test -n "$(DESTDIR)" || depmod -a $(KVER)

install-user:
	$(MAKE) -C tools/dwqctl
	install -D -m 0755 build/bin/dwqctl $(DESTDIR)$(BINDIR)/dwqctl
	install -D -m 0644 include/uapi/linux/dwq.h $(DESTDIR)$(INCLUDEDIR)/linux/dwq.h
	install -D -m 0644 tools/dwqctl/dwqctl.8 $(DESTDIR)$(MANDIR)/man8/dwqctl.8
	install -D -m 0644 packaging/60-dwq.rules $(DESTDIR)$(UDEVDIR)/60-dwq.rules
	@# The admin's own: an existing one (edited, or a package's) is kept.
	test -e $(DESTDIR)$(MODPROBEDIR)/dwq.conf || \
		install -D -m 0644 packaging/dwq.modprobe.conf $(DESTDIR)$(MODPROBEDIR)/dwq.conf
	install -D -m 0644 packaging/dwq.sysusers $(DESTDIR)$(SYSUSERSDIR)/dwq.conf
	@# Staged (DESTDIR) installs leave the group and udev to the package's
	@# scripts.
	test -n "$(DESTDIR)" || getent group dwq >/dev/null || groupadd --system dwq
	@# A /dev/dwq that exists already takes the rule now, not at the next load.
	test -n "$(DESTDIR)" || ! command -v udevadm >/dev/null || \
		{ udevadm control --reload && \
		  udevadm trigger --action=add --subsystem-match=misc --sysname-match=dwq; }

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/module/dwq.ko* \
		$(DESTDIR)/lib/modules/$(KVER)/extra/kunit/dwq_kunit.ko* \
		$(addprefix $(DESTDIR),$(filter-out $(MODPROBEDIR)/dwq.conf,$(INSTALLED)))
	@# The modprobe.d file only as installed: not edited, not a package's.
	! cmp -s packaging/dwq.modprobe.conf $(DESTDIR)$(MODPROBEDIR)/dwq.conf || \
		{ test -z "$(DESTDIR)" && dpkg-query -S $(MODPROBEDIR)/dwq.conf >/dev/null 2>&1; } || \
		rm -f $(DESTDIR)$(MODPROBEDIR)/dwq.conf
	test -n "$(DESTDIR)" || depmod -a $(KVER)
	@# In a staging tree, also the directories install made (rmdir -p
	@# stops at DESTDIR because the paths are relative to it).
	test -z "$(DESTDIR)" || { cd $(DESTDIR) && \
		for d in lib/modules/$(KVER)/extra/module lib/modules/$(KVER)/extra/kunit \
			$(patsubst /%,%,$(dir $(INSTALLED))); do \
			[ ! -d $$d ] || rmdir -p --ignore-fail-on-non-empty $$d || exit; \
		done; }

# The sources DKMS builds from, in $(DESTDIR)$(DKMS_SRC).
dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	for f in $(DKMS_FILES); do install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRC)/$$f || exit; done

# DKMS_FLAGS: more dkms options for every command, e.g. scratch trees
# (--sourcetree, --dkmstree, --installtree) as make check uses; DKMS_KERNEL:
# for build and install, e.g. -k RELEASE --kernelsourcedir DIR (default:
# the running kernel).
DKMS_ADDED = dkms status dwq/$(VERSION) $(DKMS_FLAGS) | grep -q .
# Sources under /usr/src that dpkg knows are a package's (dwq-dkms): apt
# installs and removes those, make must not.
DKMS_NOT_PACKAGED = test -n "$(DESTDIR)" || \
	! owner=$$(dpkg-query -S $(DKMS_SRC) 2>/dev/null) || \
	{ echo "$(DKMS_SRC) belongs to $${owner%%:*}: use apt, not make" >&2; exit 1; }

# dkms add, unless dwq/$(VERSION) is added from what dkms-src would copy:
# the same files, no others. Added from other sources, it is removed first.
dkms-add:
	@$(DKMS_NOT_PACKAGED)
	@src=$(DESTDIR)$(DKMS_SRC); \
	if $(DKMS_ADDED); then \
		same=y; \
		for f in $(DKMS_FILES); do cmp -s $$f $$src/$$f || same=; done; \
		[ "$$(find $$src -type f 2>/dev/null | wc -l)" = $(words $(DKMS_FILES)) ] || same=; \
		if [ -n "$$same" ]; then \
			echo "dwq/$(VERSION) is already added from these sources"; exit 0; \
		fi; \
		echo "dwq/$(VERSION) is added from other sources: removing it first"; \
		echo dkms remove dwq/$(VERSION) --all $(DKMS_FLAGS); \
		dkms remove dwq/$(VERSION) --all $(DKMS_FLAGS) || exit; \
	fi; \
	$(MAKE) --no-print-directory dkms-src && \
	echo dkms add dwq/$(VERSION) $(DKMS_FLAGS) && \
	dkms add dwq/$(VERSION) $(DKMS_FLAGS)

# dkms skips by itself what is already built and installed.
dkms-build: dkms-add
	dkms build dwq/$(VERSION) $(DKMS_FLAGS) $(DKMS_KERNEL)

dkms-install: dkms-build
	dkms install dwq/$(VERSION) $(DKMS_FLAGS) $(DKMS_KERNEL)

dkms-remove:
	@$(DKMS_NOT_PACKAGED)
	! $(DKMS_ADDED) || dkms remove dwq/$(VERSION) --all $(DKMS_FLAGS)
	rm -rf $(DESTDIR)$(DKMS_SRC)

# The Debian packages, built from a copy of the tree (the build writes
# into debian/); dpkg-buildpackage's other output lands beside them.
DEB_OUT ?= build/deb
DEB_TOOLS := dpkg-buildpackage dh dh_dkms rsync
deb:
	@for c in $(DEB_TOOLS); do command -v $$c >/dev/null || { \
		echo "make deb needs $$c: apt-get install dpkg-dev debhelper dh-dkms rsync" >&2; \
		exit 1; }; done
	rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src
	rsync -a --exclude /build --exclude /.git --exclude '*.o' --exclude '*.ko' \
		--exclude '.*.cmd' --exclude '*.mod' --exclude '*.mod.c' \
		--exclude modules.order --exclude Module.symvers ./ $(DEB_OUT)/src/
	cd $(DEB_OUT)/src && dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_OUT)/src
	@ls $(DEB_OUT)/*.deb

clean:
	@test ! -e $(KDIR)/Makefile || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/dwqctl clean
	$(MAKE) -C tools/testing/selftests/dwq clean
	$(MAKE) -C tools/testing/stress clean
	$(MAKE) -C tools/testing/security clean
	$(MAKE) -C tools/bench/user clean
	$(MAKE) -C tools/prof clean
	$(MAKE) -C examples clean
	rm -rf build

.PHONY: all modules tools $(TOOL_DIRS:%=tool-%) deps check soak soak-debug soak-kcsan bench bench-publish profile run shell \
	load unload clean install install-user uninstall dkms-src dkms-add \
	dkms-build dkms-install dkms-remove deb
