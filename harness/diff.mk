# Makefile fragment for the differ (harness/stickydiff); include it from the
# top Makefile with:   include harness/diff.mk
# Paths are relative to the top of the repository.

PYTHON ?= python3
STICKYDIFF_PYTHON ?= $(PYTHON)
STICKYDIFF_RESULTS ?= build/results
STICKYDIFF_EXPECTED ?= results/expected
STICKYDIFF_OUT ?= results
STICKYDIFF_RANGE_DIFF ?= build/range-diff
STICKYDIFF_COMMITTED_RANGE_DIFF ?= results/range-diff
STICKYDIFF = PYTHONPATH=harness $(STICKYDIFF_PYTHON) -m stickydiff
STICKYDIFF_SECTIONS ?= results/beyond.md results/race.md results/shapes.md
STICKYDIFF_ARGS = --results $(STICKYDIFF_RESULTS) \
	--expected $(STICKYDIFF_EXPECTED) --out $(STICKYDIFF_OUT) \
	--range-diff $(STICKYDIFF_RANGE_DIFF) \
	--committed-range-diff $(STICKYDIFF_COMMITTED_RANGE_DIFF) \
	$(foreach s,$(STICKYDIFF_SECTIONS),--section $(s))

.PHONY: diff-check report bless regress pytest-unit

# Model vs observations, for the flavors whose results exist.
diff-check:
	$(STICKYDIFF) check $(STICKYDIFF_ARGS)

# results/report.md and results/report.html, plus a terminal summary: from
# $(STICKYDIFF_RESULTS), or from $(STICKYDIFF_EXPECTED) when that holds no
# result file (a fresh clone). Exit status 1 when the verdict is FAIL.
report:
	$(STICKYDIFF) report $(STICKYDIFF_ARGS)

# Rewrite results/expected/<flavor>.json from the current results, and
# copy $(STICKYDIFF_RESULTS)/beyond.md over the committed section and
# $(STICKYDIFF_RANGE_DIFF)/*.txt into $(STICKYDIFF_COMMITTED_RANGE_DIFF)/.
bless:
	$(STICKYDIFF) bless $(STICKYDIFF_ARGS)
	@if [ -f build/results/v3-posted-build.txt ] && ! cmp -s \
		build/results/v3-posted-build.txt results/v3-posted-build.txt; then \
		cp build/results/v3-posted-build.txt results/v3-posted-build.txt; \
		echo "blessed results/v3-posted-build.txt"; fi

# Compare the current results with results/expected.
regress:
	$(STICKYDIFF) compare $(STICKYDIFF_ARGS)

# The differ's unit tests.
pytest-unit:
	$(STICKYDIFF_PYTHON) -m unittest discover -s harness/tests
