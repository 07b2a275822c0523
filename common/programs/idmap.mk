# Guest program of the idmapped-mount cases (issue 11, included by
# common/Makefile): idmap, booted by `sticky.py idmap` with the host's
# plan and ext4 image in its own initramfs (harness/experiments/idmap_cmd.py).
IDMAP_CFLAGS := -static -O2 -Wall -Wextra -Werror -std=gnu11
EXTRA_PROGS += $(OUT)/idmap

$(OUT)/idmap: $(TOP)/common/programs/idmap.c $(TOP)/common/programs/idmap.mk
	@mkdir -p $(OUT)
	$(CC) $(IDMAP_CFLAGS) -o $@ $<
