# Sourced by the scripted tasks (reviewer-path.sh, add-operation.sh): a
# scratch copy of the project and the "ok - / not ok -" verdict lines.

# copy_project DEST: the tracked and untracked (not ignored) files of the
# project at $top into DEST.
copy_project() {
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null) |
		tar -xf - -C "$1"
}

pass=0
fail=0
# check CMD...: one verdict line named by $name
check() {
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
