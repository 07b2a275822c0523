#!/usr/bin/env bash
# The reviewer's path of docs/reviewing.md ("Add a revision"), done to the
# letter in a scratch copy of the project: a revision v2-review is added as
# data only, built, booted, judged and compared with v1. Its patches,
# harness/tests/fixtures/v2, stand for the reviewer's edited ones: v1
# without the redundant S_ISLNK() test, as the project's own v2 is.
#
# Passes when no Python file of the copy was touched, `make diff-check`
# explains every case (0 unexplained), and the report's "v1 vs v2-review" pair
# shows 0 outcome differences. Needs `make` (or the kernels and suite
# steps of `make check`) first: the copy borrows build/pristine, v1's
# kernel and the default flavors' results (a partial set fails the
# report's verdict). When everything passed the copy is removed
# but for v2-review's kernel tree and objects, which the next run's copy finds
# in place: `make kernel FLAVOR=v2-review` then rebuilds only when v2-review's series
# or config changed (its stamp), as it would in the reviewer's own tree,
# and a fresh clone builds it from nothing. The last line is
# "N passed, N failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/harness/tests/scratch.sh"
scratch=$top/build/reviewer-path
# the reviewer's tree has run `make`: every default flavor has results,
# or the report's verdict names them missing
defaults=$(cd "$top" && python3 harness/sticky.py flavors default)
for need in "$top/build/pristine" "$top/build/v1/bzImage" \
	$(for f in $defaults; do echo "$top/build/results/$f.json"; done); do
	[ -e "$need" ] || { echo "error: $need is missing: run make first"; \
		echo "0 passed, 1 failed"; exit 1; }
done
# everything but a kept build/v2-review goes
if [ -d "$scratch/top" ]; then
	find "$scratch/top" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	find "$scratch/top/build" -mindepth 1 -maxdepth 1 ! -name v2-review -exec rm -rf {} +
fi
mkdir -p "$scratch/top/build/results"
copy_project "$scratch/top"
cd "$scratch/top"
ln -s "$top/build/pristine" build/pristine
ln -s "$top/build/v1" build/v1
for f in $defaults; do cp "$top/build/results/$f.json" build/results/; done
python_before=$(find harness -name '*.py' -print0 | sort -z |
	xargs -0 sha256sum | sha256sum)
t0=$SECONDS
stamp() { echo "=== reviewer-path: $1 ($((SECONDS - t0))s)"; }

# --- docs/reviewing.md, section 1: the revision directory ---
cp -r v1 v2-review
cp "$top"/harness/tests/fixtures/v2/*.patch v2-review/
sed -i 's/^describe = .*/describe = v2-review (a reviewer edit): v1 without the redundant S_ISLNK() test/' \
	v2-review/revision.ini
echo 'revises = v1' >>v2-review/revision.ini
cat >>harness/flavors.ini <<'EOF'

[v2-review]
series = v2-review
config = CONFIG_SECURITY=y
pick_link_order = may_follow_link( security_inode_follow_link( LOOKUP_NO_SYMLINKS touch_atime(
describe = v2-review (a reviewer edit): v1 without the redundant S_ISLNK() test
boot_knobs = protected_symlinks=1 weak_sticky_symlinks=0 protected_sticky_symlinks=absent
EOF
cat >>harness/pairs.ini <<'EOF'

[v1 vs v2-review]
a = v1
b = v2-review
EOF
python3 harness/sticky.py cover-letters
stamp "revision added"

# --- section 2: build, run, diff ---
make --no-print-directory kernel FLAVOR=v2-review
make --no-print-directory guest
stamp "kernel built"
python3 harness/sticky.py smoke v2-review
python3 harness/sticky.py suite v2-review
stamp "suite run"
make --no-print-directory diff-check
make --no-print-directory report >/dev/null
stamp "diff and report"

# --- the verdict ---
python_after=$(find harness -name '*.py' -print0 | sort -z |
	xargs -0 sha256sum | sha256sum)
name="no Python file touched"
check [ "$python_before" = "$python_after" ]
name="v1 vs v2-review: 0 outcome differences, 0 unexplained"
check env PYTHONPATH=harness python3 - <<'EOF'
import sys
from differ.analysis import analyse
a = analyse("build/results")
pair = [d for d in a.diffs if (d.pair.a, d.pair.b) == ("v1", "v2-review")]
if len(pair) != 1:
    sys.exit("no v1 vs v2-review pair in the report")
d = pair[0]
differ = sum(g.count for g in d.differ.values())
print("v1 vs v2-review: %d joined, %d differ, %d unexplained"
      % (d.joined, differ, d.unexplained))
sys.exit(1 if differ or d.unexplained or not d.joined else 0)
EOF
name="the report has the v1 vs v2-review section"
check grep -q "v1 vs v2-review" results/report.md
echo "reviewer path took $((SECONDS - t0))s"
if [ "$fail" -eq 0 ]; then
	# the copy goes, v2-review's kernel tree and objects stay for the next run
	cd "$top"
	find "$scratch/top" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	find "$scratch/top/build" -mindepth 1 -maxdepth 1 ! -name v2-review -exec rm -rf {} +
	git -C build/pristine worktree prune
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
