# Sourced by harness/check.sh and harness/tests/sanitizer-check.sh.
# Runs a command that must fail on the defect planted for it: it passes
# when the command exits non-zero and its output matches the pattern.
must_fail_on() {
	local what=$1 pattern=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		echo "$out" | tail -5
		echo "error: $what passed"
		return 1
	fi
	if ! echo "$out" | grep -q -- "$pattern"; then
		echo "$out" | tail -20
		echo "error: $what failed, but not on its planted defect"
		return 1
	fi
	echo "ok: $what failed on its planted defect:"
	echo "$out" | grep -m2 -- "$pattern"
}
