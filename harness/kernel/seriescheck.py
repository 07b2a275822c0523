"""checkpatch.pl --strict over every patch of every revision directory."""

import os
import re
import subprocess

from flavors import series_patches
from stages import HarnessError, log


def revisions(top):
    return sorted(e for e in os.listdir(top)
                  if os.path.isfile(os.path.join(top, e, 'series')))


def checkpatch(src, patch):
    """Returns (errors, warnings, checks, lines of findings)."""
    script = os.path.join(src, 'scripts', 'checkpatch.pl')
    if not os.path.isfile(script):
        raise HarnessError(f'{script} not found: build the pristine tree '
                           f'first (`make kernels`)')
    res = subprocess.run(['perl', script, '--no-tree', '--strict',
                          '--terse', patch], capture_output=True, text=True)
    out = res.stdout + res.stderr
    m = re.search(r'total: (\d+) errors, (\d+) warnings, (\d+) checks', out)
    if not m and res.returncode == 0 and not out.strip():
        return 0, 0, 0, []      # --terse prints nothing for a clean patch
    if not m:
        raise HarnessError(f'checkpatch gave no totals for {patch}:\n{out}')
    findings = [line for line in out.splitlines()
                if re.search(r': (ERROR|WARNING|CHECK):', line)]
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), findings


def run(top, src):
    bad = 0
    for rev in revisions(top):
        for patch in series_patches(rev, top):
            e, w, c, findings = checkpatch(src, patch)
            name = os.path.relpath(patch, top)
            log(f'{"ok" if e == 0 else "not ok"} {name}: {e} errors, '
                f'{w} warnings, {c} checks')
            for line in findings:
                print(f'    {line.split(":", 1)[-1].strip()}')
            bad += e > 0
    return bad == 0
