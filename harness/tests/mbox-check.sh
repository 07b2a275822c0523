#!/usr/bin/env bash
# `sticky.py import-mbox` against the real pristine tree: v1 and v3's
# patches, sent as one mbox each (as `git format-patch --stdout` would), must
# come back as the same patches; an mbox that does not apply must be refused
# with its patch and file named, leaving nothing behind. Needs build/pristine.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=build/mbox-check
rm -rf "$out"
mkdir -p "$out"
pass=0
fail=0
result() { if [ "$1" -eq 0 ]; then pass=$((pass + 1)); echo "ok - $2";
	else fail=$((fail + 1)); echo "not ok - $2"; fi; }
strip() { sed '1{/^From [0-9a-f]\{40\} /d}' "$1"; }

for rev in v1 v3; do
	mbox=$out/$rev.mbox
	grep -v '^#' "$rev/series" | grep . | sed "s|^|$rev/|" | xargs cat >"$mbox"
	python3 harness/sticky.py import-mbox "$mbox" "$out/$rev"
	same=0
	for p in $(grep -v '^#' "$rev/series" | grep .); do
		got=$out/$rev/$(basename "$p")
		[ -f "$got" ] && diff <(strip "$rev/$p") <(strip "$got") >/dev/null || same=1
	done
	result $same "$rev: the imported patches equal the series'"
done

bad=harness/fixtures/mbox/does-not-apply.mbox
msg=$(python3 harness/sticky.py import-mbox "$bad" "$out/bad" 2>&1)
rc=$?
echo "$msg" | tail -1
ok=1
[ $rc -eq 2 ] && [ ! -e "$out/bad" ] && echo "$msg" | grep -q "does not apply" && ok=0
result $ok "an mbox that does not apply is refused, nothing left"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
