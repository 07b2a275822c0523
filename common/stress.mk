# Guest programs of the reliability checks (included by common/Makefile):
# stress, the concurrent follow/rename/chmod/chown/knob stress run, and the
# fault_* fixtures of harness/tests/test_faults.py.
STRESS_CFLAGS := -static -O2 -Wall -Wextra -Werror -std=gnu11
EXTRA_PROGS += $(OUT)/stress $(OUT)/fault_killinit $(OUT)/fault_stream

$(OUT)/stress: $(TOP)/common/stress.c $(TOP)/common/stress.mk
	@mkdir -p $(OUT)
	$(CC) $(STRESS_CFLAGS) -o $@ $<

$(OUT)/fault_%: $(TOP)/common/fault_%.c $(TOP)/common/stress.mk
	@mkdir -p $(OUT)
	$(CC) $(STRESS_CFLAGS) -o $@ $<
