# The rename race's guest program (sticky.py race, included by
# common/Makefile).
RACE_CFLAGS := -static -O2 -Wall -Wextra -Werror -std=gnu11
EXTRA_PROGS += $(OUT)/sticky-race

$(OUT)/sticky-race: $(TOP)/common/programs/race.c $(TOP)/common/programs/race.mk
	@mkdir -p $(OUT)
	$(CC) $(RACE_CFLAGS) -o $@ $<
