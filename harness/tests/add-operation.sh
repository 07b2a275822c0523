#!/usr/bin/env bash
# A maintainer's everyday task, scripted in a scratch copy of the project:
# add an operation to the suite. The operation is openat2() with no
# RESOLVE_* flag (openat2_plain), whose semantics the model already knows
# (an open for reading), so the change is exactly two edits: its row in the
# case table (common/lib/cases.def) and its call in common/suite/ops.c.
#
# Passes when, with nothing else edited, the operation reaches the guest
# (every default flavor runs its cases in every setting and the suite's
# own verdict, judged against the model's expectations, passes), the
# expectations (none is "?"), the differ (`make diff-check`: 0
# unexplained) and the report (its cases are named). Needs the default
# flavors' kernels (`make` or make check's kernels step). The last line
# is "N passed, N failed"; the copy is removed when everything passed.
#
# ADD_OPERATION_MUTANT=1: the call disagrees with its row (it passes
# RESOLVE_NO_SYMLINKS, the row declares a plain open), in the first default
# flavor only: the guest's verdict must fail (make check requires it).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/harness/tests/scratch.sh"
mutant=${ADD_OPERATION_MUTANT:-}
scratch=$top/build/add-operation${mutant:+-mutant}
OP=openat2_plain
defaults=$(cd "$top" && python3 harness/sticky.py flavors default)
resolve=0
if [ -n "$mutant" ]; then
	defaults=${defaults%% *}
	resolve=RESOLVE_NO_SYMLINKS
fi
for need in "$top/build/pristine" \
	$(for f in $defaults; do echo "$top/build/$f/bzImage"; done); do
	[ -e "$need" ] || { echo "error: $need is missing: run make first"; \
		echo "0 passed, 1 failed"; exit 1; }
done
rm -rf "$scratch"
mkdir -p "$scratch/top/build/results"
copy_project "$scratch/top"
cd "$scratch/top"
ln -s "$top/build/pristine" build/pristine
for f in $defaults; do ln -s "$top/build/$f" "build/$f"; done
sums() {
	find . -path ./build -prune -o -type f -print0 | sort -z | xargs -0 sha256sum
}
sums >"$scratch/before"
t0=$SECONDS
stamp() { echo "=== add-operation: $1 ($((SECONDS - t0))s)"; }

# --- the two edits ---
sed -i "/^OP(OP_TMPFILE_LINKAT,/a OP(OP_OPENAT2_PLAIN, \"$OP\", T_FILE_A, LK_FOLLOWS, CTL_OPEN_READ, 0)" \
	common/lib/cases.def
sed -i "s|^\tcase OP_OPENAT2_CACHED: return openat2_rdonly(path, RESOLVE_CACHED, err);\$|&\n\tcase OP_OPENAT2_PLAIN: return openat2_rdonly(path, $resolve, err);|" \
	common/suite/ops.c
sums >"$scratch/after"
stamp "row and call added"

# --- guest, suite, diff, report, as make does them ---
make --no-print-directory guest >/dev/null
suite_ok=0
# shellcheck disable=SC2086
python3 harness/sticky.py suite $defaults && suite_ok=1
stamp "suite run in every default flavor"
diff_ok=0
make --no-print-directory diff-check && diff_ok=1
make --no-print-directory report >/dev/null || true
stamp "diff and report"

# --- the verdict ---
name="only cases.def and ops.c were edited"
check [ "$(diff "$scratch/before" "$scratch/after" | grep '^>' | awk '{print $3}' | sort | tr '\n' ' ')" \
	= "./common/lib/cases.def ./common/suite/ops.c " ]
name="the guest suite passed in every default flavor (its cases judged against the model)"
check [ "$suite_ok" = 1 ]
name="every default flavor ran $OP in every setting, as often as open_path"
check env PYTHONPATH=harness OP="$OP" FLAVORS="$defaults" python3 - <<'EOF'
import json, os, sys
bad = []
for flavor in os.environ["FLAVORS"].split():
    with open(f"build/results/{flavor}.json") as f:
        cases = json.load(f)["cases"]
    for setting in sorted({c["setting"] for c in cases}):
        def count(op):
            return sum(1 for c in cases if c["setting"] == setting
                       and c["id"].endswith("/" + op))
        new, ref = count(os.environ["OP"]), count("open_path")
        if not new or new != ref:
            bad.append(f"{flavor} {setting}: {new} cases, open_path {ref}")
print("\n".join(bad) or "every flavor and setting ran it")
sys.exit(1 if bad else 0)
EOF
name="the expectations predict every one of its cases (no '?')"
check env PYTHONPATH=harness OP="$OP" FLAVORS="$defaults" python3 - <<'EOF'
import os, sys
from suite import expect
ids = [c for c in expect.case_ids() if c.endswith("/" + os.environ["OP"])]
none = sum(pred is None for flavor in os.environ["FLAVORS"].split()
           for pred, _ in expect.predictions(flavor, ids).values())
print(f"{len(ids)} ids, {none} without a prediction")
sys.exit(1 if none or not ids else 0)
EOF
name="the differ explains every case (make diff-check)"
check [ "$diff_ok" = 1 ]
name="the report names its cases"
check grep -q "/$OP" results/report.md
echo "add-operation took $((SECONDS - t0))s"
cd "$top"
if [ "$fail" -eq 0 ] || [ -n "$mutant" ]; then
	rm -rf "$scratch"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
