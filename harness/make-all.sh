#!/usr/bin/env bash
# `make`: packages, kernels, the suite in every flavor, the attack, the
# range-diff and the report, each step timed; the split is printed at the
# end (and kept in build/results/make-timing.json), so that `make` on a
# fresh machine measures itself, package installs included.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
FLAVOR=${FLAVOR:-}
start=$SECONDS
times=()

step() {
	local name=$1 t0=$SECONDS
	shift
	"$@"
	times+=("$name $((SECONDS - t0))")
}

step packages sh harness/deps.sh
step kernels $PY harness/sticky.py build $FLAVOR
step guest make --no-print-directory -C common
step suite $PY harness/sticky.py suite $FLAVOR
step attack $PY harness/sticky.py attack $FLAVOR
step range-diff $PY harness/sticky.py range-diff
step report make --no-print-directory report

total=$((SECONDS - start))
mkdir -p build/results
{
	printf '{"total": %d, "steps": {' "$total"
	sep=
	for t in "${times[@]}"; do
		printf '%s"%s": %s' "$sep" "${t% *}" "${t##* }"
		sep=', '
	done
	printf '}}\n'
} >build/results/make-timing.json
echo
echo "make took ${total}s: $(printf '%s, ' "${times[@]}" | sed 's/ \([0-9]*\), /: \1s, /g; s/, $//')"
