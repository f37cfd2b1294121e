# SPDX-License-Identifier: GPL-2.0
# Shared by tools/testing/stress and tools/testing/security: each *.c of
# the including directory is one static program, build/bin/dwq-<name>,
# for the busybox guest (vm-run puts build/bin into it).
CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -pthread
CPPFLAGS += -I../../../include/uapi
LDFLAGS += -static -pthread
OUT ?= ../../../build/bin
HDRS := $(wildcard ../../../include/uapi/linux/*.h)
PROGS := $(patsubst %.c,$(OUT)/dwq-%,$(wildcard *.c))

all: $(PROGS)

$(OUT)/dwq-%: %.c $(HDRS)
	@mkdir -p $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

clean:
	rm -f $(PROGS)

.PHONY: all clean
