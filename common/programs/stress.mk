# Guest programs of the reliability checks (included by common/Makefile):
# stress, the concurrent follow/rename/chmod/chown/knob stress run, and the
# fault_* fixtures of harness/tests/test_faults.py. The fixtures are not in
# EXTRA_PROGS, so they stay out of build/guest (and every initramfs): the
# test builds them by name into its own directory (make OUT=dir dir/fault_x).
STRESS_CFLAGS := -static -O2 -Wall -Wextra -Werror -std=gnu11
EXTRA_PROGS += $(OUT)/stress

$(OUT)/stress: $(TOP)/common/programs/stress.c $(TOP)/common/programs/stress.mk
	@mkdir -p $(OUT)
	$(CC) $(STRESS_CFLAGS) -o $@ $<

$(OUT)/fault_%: $(TOP)/harness/tests/c/fault_%.c $(TOP)/common/programs/stress.mk
	@mkdir -p $(OUT)
	$(CC) $(STRESS_CFLAGS) -o $@ $<
