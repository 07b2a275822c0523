#!/bin/sh
# Installs the Debian packages the project needs, only those missing.
# Run as root on Debian 12. qemu-system-x86 without recommends: they pull
# in a desktop.
# Says one line per group of packages; apt's own output goes to
# build/deps.log (or $STICKY_DEPS_LOG), and on a failure the command and
# the tail of that log are shown.
set -eu
# One group a line, "name: packages". The groups only decide what is said;
# the packages are the project's whole list.
PKG_GROUPS="kernel source: linux-source-6.1 xz-utils
kernel build tools: gcc make flex bison libelf-dev libssl-dev bc ccache perl lz4
static checks: sparse coccinelle
qemu: qemu-system-x86 qemu-system-data
guest tools: busybox-static e2fsprogs
harness: python3 git"
# Opt-in: `sh harness/deps.sh lava` (make lava and make check's lava step
# do so) adds LAVA's dispatcher, lava-run, and its Python (lava_common,
# PyYAML, jinja2): about 150 packages, 1 min 44 s here (2026-12-06).
for want in "$@"; do
	case "$want" in
	lava) PKG_GROUPS="$PKG_GROUPS
lava dispatcher: lava-dispatcher" ;;
	*) echo "error: deps.sh: unknown group '$want' (known: lava)" >&2
	   exit 2 ;;
	esac
done
# Optional: headless Chromium for the report's screenshot tests
# (harness/tests/test_screenshot.py; they skip without it), an 81 MB
# download. STICKY_NO_BROWSER=1 leaves it out.
[ -n "${STICKY_NO_BROWSER:-}" ] || PKG_GROUPS="$PKG_GROUPS
report screenshots: chromium"

# Sets $missing to those of the packages in $1 that are not installed.
missing_of() {
	missing=""
	for p in $1; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		case "$st" in
		*" installed") ;;
		*) missing="$missing $p" ;;
		esac
	done
}

# Runs a command with its output appended to $LOG; on failure ends the
# line begun on stdout, says the command and the log's tail, and exits
# with the command's status.
run() {
	echo "\$ $*" >>"$LOG"
	"$@" </dev/null >>"$LOG" 2>&1 && return 0
	rc=$?
	echo "FAILED"
	{
		echo "error: command failed (exit $rc): $*"
		echo "last lines of $LOG:"
		tail -n 20 "$LOG" | sed 's/^/  /'
	} >&2
	exit "$rc"
}

all=""
while IFS= read -r line <&3; do
	missing_of "${line#*:}"
	all="$all$missing"
done 3<<EOF
$PKG_GROUPS
EOF
if [ -z "$all" ]; then
	echo "deps: all packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "error: missing packages:$all; run as root:" >&2
	echo "  apt-get update && apt-get install --no-install-recommends$all" >&2
	exit 2
fi

top=$(cd "$(dirname "$0")/.." && pwd)
LOG=${STICKY_DEPS_LOG:-$top/build/deps.log}
mkdir -p "$(dirname "$LOG")"
: >"$LOG"
export DEBIAN_FRONTEND=noninteractive
printf 'deps: package lists: updating... '
run apt-get update -qq
echo "updated"
while IFS= read -r line <&3; do
	name=${line%%:*}
	missing_of "${line#*:}"
	if [ -z "$missing" ]; then
		echo "deps: $name: already present"
		continue
	fi
	printf 'deps: %s: installing%s... ' "$name" "$missing"
	# shellcheck disable=SC2086
	run apt-get install -y -qq --no-install-recommends $missing
	echo "installed"
done 3<<EOF
$PKG_GROUPS
EOF
