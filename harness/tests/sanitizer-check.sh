#!/usr/bin/env bash
# The defects planted for the sanitizers (harness/fixtures/sanitizer-planted)
# each make the stress run fail on its report, quoted:
#   sanitizer-check.sh [control] [kasan] [ubsan] [kcsan]
# control runs san-planted without a plant (it must pass); kasan and ubsan
# boot san-planted with theirs; kcsan boots kcsan-planted, after
# base-kcsan's stress run has recorded the races 6.1 shows by itself.
set -u
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
. harness/must-fail.sh
STRESS="$PY harness/sticky.py stress --seconds 2"
r=0
for what in "$@"; do
	case $what in
	control)
		# the planted flavor without a plant: it must pass
		$STRESS san-planted || r=1 ;;
	kasan)
		must_fail_on "the planted use-after-free" \
			'kasan report on the console: "BUG: KASAN: use-after-free in sticky_planted_' \
			$STRESS --plant 1 san-planted || r=1 ;;
	ubsan)
		must_fail_on "the planted shift" \
			'ubsan report on the console: "UBSAN: shift-out-of-bounds in .*fs/sticky_planted.c' \
			$STRESS --plant 2 san-planted || r=1 ;;
	kcsan)
		must_fail_on "the planted data race" \
			'KCSAN: a data race the reference did not show under the same load: "data-race in sticky_planted_' \
			$STRESS --plant 3 kcsan-planted || r=1 ;;
	*)
		echo "sanitizer-check.sh: unknown check '$what' (control, kasan, ubsan, kcsan)"
		exit 2 ;;
	esac
done
exit $r
