#!/usr/bin/env bash
# make check: every step runs even when an earlier one failed, and the
# last line counts the steps: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
pass=0
fail=0
failed=()
times=()
start=$SECONDS

step() {
	local name=$1
	shift
	echo "=== $name: $*"
	local t0=$SECONDS
	if "$@"; then
		pass=$((pass + 1))
		echo "=== ok $name ($((SECONDS - t0))s)"
	else
		fail=$((fail + 1))
		failed+=("$name")
		echo "=== not ok $name ($((SECONDS - t0))s)"
	fi
	times+=("\"$name\": $((SECONDS - t0))")
}

# The unit tests, two processes on the two cores: the fault tests (QEMU
# boots) beside every other test module.
unit_python() {
	local rest r=0
	rest=$(cd harness/tests && ls test_*.py | sed 's/\.py$//' | grep -vx test_faults)
	(cd harness/tests && $PY -m unittest test_faults) &
	local faults=$!
	(cd harness/tests && $PY -m unittest $rest) || r=1
	wait "$faults" || r=1
	return $r
}

# must_fail_on WHAT PATTERN CMD...
. harness/must-fail.sh

# A warning planted in a patch must fail the build (kbuild.refuse_warnings);
# gcc quotes the name as its locale says.
warning_gate() {
	must_fail_on "the build of warn-planted" \
		"sticky_planted_warning.* defined but not used" \
		$PY harness/sticky.py build warn-planted
}

# The race flavors as their data predicts, then race-v1 judged as if its
# hook judged the walk's directory: that must fail on the bypass. The
# same for the stress oracle, its guarded follows held in the window.
race_check() {
	$PY harness/sticky.py race || return 1
	must_fail_on "race-v1 judged as checking the walk's directory" \
		"renamed trial 0: followed, predicted EACCES" \
		$PY harness/sticky.py race --directory walk race-v1 || return 1
	$PY harness/sticky.py stress --seconds 5 --window-ms 20 race-v1 \
		race-v3y || return 1
	must_fail_on "race-v1's stress judged as checking the walk's directory" \
		"bypass(es) in .* guarded follows, where the checks judge" \
		$PY harness/sticky.py stress --seconds 5 --window-ms 20 \
		--directory walk race-v1
}

# sparse, W=1 and coccicheck on what every series touches; then the
# coccinelle finding planted in warn-planted must be named.
static_check() {
	$PY harness/sticky.py static-check || return 1
	must_fail_on "coccicheck of warn-planted" \
		"NEW fs/namei.c: ifnullfree: WARNING: NULL check before some freeing functions is not needed" \
		$PY harness/sticky.py static-check warn-planted
}

# The series' objects in the configurations that switch off what they
# depend on (harness/config/sweep.ini, check = yes); then the planted
# warning, which the sweep must find too.
sweep_check() {
	$PY harness/sticky.py config-sweep --check || return 1
	must_fail_on "the sweep of warn-planted" \
		"NEW fs/namei.c: warning: .*sticky_planted_warning.* defined but not used" \
		$PY harness/sticky.py config-sweep --only nosec-nosysctl \
		warn-planted
}

# Per-step seconds for `make bench` (build/results/check-timing.json),
# and what build/ holds on disk (hard links counted once).
write_times() {
	mkdir -p build/results
	local IFS=, mb
	mb=$(du -sm build 2>/dev/null | cut -f1)
	printf '{"total": %d, "build_mb": %d, "steps": {%s}}\n' \
		$((SECONDS - start)) "${mb:-0}" "${times[*]}" \
		>build/results/check-timing.json
	echo "build/ holds ${mb:-?} MB; $(df -Pm build | awk 'NR == 2 { print $4 }') MB free"
}

step series-checkpatch $PY harness/sticky.py checkpatch
step cover-letters $PY harness/sticky.py cover-letters --check
step unit-c make --no-print-directory -C common test
step kernels $PY harness/sticky.py build
# v1 without its preparatory patch: the porting artifacts, blessed too.
step kernel-v1-hook61 $PY harness/sticky.py build v1-hook61
step warning-gate warning_gate
step guest make --no-print-directory -C common
# After the kernels: the harness fault tests boot build/base/bzImage.
step unit-python unit_python
# the flavor sets of harness/flavors.ini (`sets`)
flavors() { $PY harness/sticky.py flavors "$1"; }
step placement $PY harness/sticky.py placement-check $(flavors placement)
step series-build $PY harness/sticky.py series-build
step mbox-import bash harness/tests/mbox-check.sh
step static-check static_check
step config-sweep sweep_check
step v3-posted-build $PY harness/sticky.py posted-check
step smoke $PY harness/sticky.py smoke
# the default flavors and v1-hook61, two QEMUs at a time
step suite $PY harness/sticky.py suite $(flavors suite)
step ktap-vs-differ $PY harness/sticky.py ktap-check $(flavors suite)
step idmap $PY harness/sticky.py idmap
# Every case reproduces from literal commands (docs/repro.md): the
# scripts of a selection of cases (model/repro.py check_selection) run in
# v3 and v1 and print what each flavor's results say; with one recorded
# outcome inverted the step must name that case as not reproduced.
repro_check() {
	$PY harness/sticky.py repro --check v3 v1 || return 1
	must_fail_on "repro with one recorded outcome inverted" \
		"not reproduced: m/d1777-root/lA/tfile-root/froot/trail/open_rdonly (ps0-own1)" \
		$PY harness/sticky.py repro --check --flip \
		m/d1777-root/lA/tfile-root/froot/trail/open_rdonly v3
}
step repro repro_check
# The rename race in the window flavors (docs/porting.md, "Where the
# placements differ by construction").
step race-kernels $PY harness/sticky.py build $(flavors race)
step race race_check
step mutants $PY harness/sticky.py mutants
step model-vs-observed make --no-print-directory diff-check
step regression make --no-print-directory regress
step attack $PY harness/sticky.py attack --tries 500 \
	--md build/results/beyond-check.md
# docs/reviewing.md done literally: v2 added as data, built, run, diffed.
step reviewer-path bash harness/tests/reviewer-path.sh
# An operation added as a row of common/lib/cases.def and its call in
# ops.c, nothing else; the same with a call that disagrees with its row
# must fail in the guest.
add_operation() {
	bash harness/tests/add-operation.sh || return 1
	must_fail_on "add-operation with a call its row does not declare" \
		"not ok - the guest suite passed" \
		env ADD_OPERATION_MUTANT=1 bash harness/tests/add-operation.sh
}
step add-operation add_operation
# The kernels as LAVA jobs (docs/lava.md): every suite flavor's job
# validated by LAVA's schema, v1 and v3 run with lava-run and compared
# with the project's own verdicts; v1 judged with v3's expectations and a
# guest that dies mid-run must fail.
lava_check() {
	sh harness/deps.sh lava || return 1
	$PY harness/sticky.py lava --validate-only $(flavors suite) || return 1
	$PY harness/sticky.py lava v1 v3 || return 1
	must_fail_on "LAVA: v1 judged with v3's expectations" \
		"XFAIL), [1-9][0-9]* fail" \
		$PY harness/sticky.py lava --expect-flavor v3 v1 || return 1
	must_fail_on "LAVA: a guest that dies mid-run" \
		"the LAVA job did not complete" \
		$PY harness/sticky.py lava --die-after 5 v3
}
step lava lava_check
step lockdep-kernels $PY harness/sticky.py build $(flavors sanitizers)
step stress $PY harness/sticky.py stress
# KASAN and UBSAN on their planted defects (KCSAN's is in make stress).
step sanitizers bash harness/tests/sanitizer-check.sh control kasan ubsan

write_times
echo "make check took $((SECONDS - start))s"
echo
if [ "$fail" -gt 0 ]; then
	echo "failed steps: ${failed[*]}"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
