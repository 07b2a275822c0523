# Guest programs of issue 6 ("beyond the patch"): the /tmp symlink attack
# and per-user /tmp (sticky-attack), the cost of the check (sticky-bench),
# followers contending for one link under -smp 2 (sticky-contend).
# Included by common/Makefile, which builds $(EXTRA_PROGS).

BEYOND_LIB := beyond_util.c knobs.c out.c $(PURE)
BEYOND_HDRS := beyond.h guest.h suite.h

EXTRA_PROGS += $(OUT)/sticky-attack $(OUT)/sticky-bench $(OUT)/sticky-contend

$(OUT)/sticky-attack: sticky-attack.c $(BEYOND_LIB) $(BEYOND_HDRS) beyond.mk
	@mkdir -p $(OUT)
	$(CC) -static $(CFLAGS_COMMON) -o $@ sticky-attack.c $(BEYOND_LIB)

$(OUT)/sticky-bench: sticky-bench.c $(BEYOND_LIB) $(BEYOND_HDRS) beyond.mk
	@mkdir -p $(OUT)
	$(CC) -static $(CFLAGS_COMMON) -o $@ sticky-bench.c $(BEYOND_LIB)

$(OUT)/sticky-contend: sticky-contend.c $(BEYOND_LIB) $(BEYOND_HDRS) beyond.mk
	@mkdir -p $(OUT)
	$(CC) -static $(CFLAGS_COMMON) -o $@ sticky-contend.c $(BEYOND_LIB)

clean: beyond-clean
beyond-clean:
	rm -f $(OUT)/sticky-attack $(OUT)/sticky-bench $(OUT)/sticky-contend
.PHONY: beyond-clean
