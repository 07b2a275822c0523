# Guest programs of issue 6 ("beyond the patch"): the /tmp symlink attack
# and per-user /tmp (sticky-attack), the cost of the check (sticky-bench),
# followers contending for one link under -smp 2 (sticky-contend).
# Included by common/Makefile, which builds $(EXTRA_PROGS).

P := $(TOP)/common/programs
BEYOND_LIB := $(P)/beyond_util.c $(GUEST_LIB) $(PURE)
BEYOND_HDRS := $(TOP)/common/programs/beyond.h $(HDRS)

EXTRA_PROGS += $(OUT)/sticky-attack $(OUT)/sticky-bench $(OUT)/sticky-contend

$(OUT)/sticky-attack: $(P)/attack.c $(BEYOND_LIB) $(BEYOND_HDRS) $(P)/beyond.mk
	@mkdir -p $(OUT)
	$(CC) -static $(CFLAGS_COMMON) -o $@ $(P)/attack.c $(BEYOND_LIB)

$(OUT)/sticky-bench: $(P)/bench.c $(BEYOND_LIB) $(BEYOND_HDRS) $(P)/beyond.mk
	@mkdir -p $(OUT)
	$(CC) -static $(CFLAGS_COMMON) -o $@ $(P)/bench.c $(BEYOND_LIB)

$(OUT)/sticky-contend: $(P)/contend.c $(BEYOND_LIB) $(BEYOND_HDRS) $(P)/beyond.mk
	@mkdir -p $(OUT)
	$(CC) -static $(CFLAGS_COMMON) -o $@ $(P)/contend.c $(BEYOND_LIB)

clean: beyond-clean
beyond-clean:
	rm -f $(OUT)/sticky-attack $(OUT)/sticky-bench $(OUT)/sticky-contend
.PHONY: beyond-clean
