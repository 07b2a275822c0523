# sticky-symlinks: v1 and v3 of the 2010 sticky-symlink patch, ported to
# Debian's linux-source-6.1, built, booted in QEMU and diffed.
#
#   make                 deps, kernels, the suite in every flavor, the report
#   make check           the tests (called by .ci/run)
#   make report          the report; from results/expected when build/ has no
#                        results (a fresh clone): no kernel needed
#   make kernels         build all flavors; make kernel FLAVOR=v1 for one
#   make suite           run the suite in every flavor (FLAVOR=v3 for one)
#   make bench           the benchmarks, and the rename race counted on the
#                        unmodified kernels (RACE_TRIES opens per shape)
#   make bless           accept the current results as results/expected
#   make lava            every default flavor as a LAVA job, run here with
#                        lava-run and compared with the project's verdicts
#   make stress          every check the kernel's bots run, in one target:
#                        static checks with coccicheck, lockdep/KASAN/UBSAN
#                        and KCSAN under load, the config sweep; each with
#                        its planted defect
#
# Everything built goes to build/ (gitignored).

# Debian's own interpreter, the one its python3-* packages (LAVA's) are
# for, when it is there: a python3 found first on PATH may be another
# build (here a version manager's shim, 0.3 s a start, and an interpreter
# built without optimisation: `make report` took 4.9 s against 4.5 s).
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
export PYTHON
STICKY = $(PYTHON) harness/sticky.py
FLAVOR ?=
# opens per link position and fs.protected_symlinks value in the
# free-running rename race of `make bench`
RACE_TRIES ?= 20000

.PHONY: all deps kernels kernel guest smoke suite posted-check unit check \
	attack bench lava reviewer-path add-operation static-check stress clean

all:
	@PYTHON=$(PYTHON) FLAVOR=$(FLAVOR) bash harness/make-all.sh

deps:
	@sh harness/deps.sh

kernels: deps
	$(STICKY) build

kernel: deps
	@test -n "$(FLAVOR)" || { echo "usage: make kernel FLAVOR=<name>;" \
		"flavors: $$($(PYTHON) harness/flavors.py)"; exit 2; }
	$(STICKY) build $(FLAVOR)

guest:
	@$(MAKE) --no-print-directory -C common

smoke: kernels guest
	$(STICKY) smoke $(FLAVOR)

suite: kernels guest
	$(STICKY) suite $(FLAVOR)

posted-check: deps
	$(STICKY) posted-check

unit: guest
	@$(MAKE) --no-print-directory -C common test
	$(PYTHON) -m unittest discover -s harness/tests

check: deps
	@bash harness/check.sh

reviewer-path: deps guest
	bash harness/tests/reviewer-path.sh

# every built default flavor as a LAVA job, run with lava-run (LAVA's own
# dispatcher) and compared with the project's own verdicts
lava:
	@sh harness/deps.sh lava
	$(STICKY) lava $$($(STICKY) flavors default)

# an operation added as one row of common/lib/cases.def and its call
add-operation: deps guest
	bash harness/tests/add-operation.sh

static-check: deps
	$(STICKY) static-check

# Every check the kernel's bots would run, from one target: sparse, W=1,
# kernel-doc and coccicheck (and the planted coccinelle finding); the
# lock-debugging, KASAN and UBSAN flavors under the stress load (and their
# planted defects); the KCSAN flavors against base-kcsan's races (and the
# planted race); every configuration of the sweep, randconfigs included.
stress: deps guest
	$(STICKY) build warn-planted || true
	$(STICKY) static-check
	. harness/must-fail.sh && PY=$(PYTHON) must_fail_on "coccicheck of warn-planted" \
		"NEW fs/namei.c: ifnullfree" $(STICKY) static-check warn-planted
	$(STICKY) build $$($(STICKY) flavors sanitizers) \
		$$($(STICKY) flavors kcsan) kcsan-planted
	$(STICKY) stress
	$(STICKY) stress $$($(STICKY) flavors kcsan)
	bash harness/tests/sanitizer-check.sh control kasan ubsan kcsan
	$(STICKY) config-sweep

attack: kernels guest
	$(STICKY) attack $(FLAVOR)

bench: kernels guest
	$(STICKY) bench
	$(STICKY) beyond-bench $(FLAVOR)
	$(STICKY) race --free $(RACE_TRIES)
	$(STICKY) build v3y-dlock
	$(STICKY) contend-bench base v3y v3y-dlock

clean:
	rm -rf build/results build/logs build/initramfs.cpio.gz

include harness/diff.mk
