#!/bin/sh
# Installs the Debian packages the project needs, only those missing.
# Run as root on Debian 12. qemu-system-x86 without recommends: they pull
# in a desktop.
set -eu
PKGS="linux-source-6.1 qemu-system-x86 qemu-system-data busybox-static gcc make
flex bison libelf-dev libssl-dev bc ccache python3 git xz-utils sparse perl
e2fsprogs"
# Optional: headless Chromium for the report's screenshot tests
# (harness/tests/test_screenshot.py; they skip without it), an 81 MB
# download. STICKY_NO_BROWSER=1 leaves it out.
[ -n "${STICKY_NO_BROWSER:-}" ] || PKGS="$PKGS chromium"
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "error: missing packages:$missing; run as root:" >&2
	echo "  apt-get update && apt-get install --no-install-recommends$missing" >&2
	exit 2
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
