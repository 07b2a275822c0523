"""The sanitizers' reports on a guest console, judged (issue 30).

KASAN, UBSAN and lockdep reports, and every other splat qemu.SPLATS
knows, fail a run, each quoted. KCSAN also reports the races of 6.1's
own code, so a KCSAN flavor's data races are compared with those the
reference flavor (the KCSAN flavor with no series: mainline alone) showed
under the same load, and only new ones fail.
"""

import re

from boot import qemu

# "[   12.345678] " and the like, before the report's text
STAMP = re.compile(r'^\[\s*\d+\.\d+\]\s*')
KCSAN = re.compile(r'BUG: KCSAN: (?P<title>data-race in .*?)\s*$')


def reports(console_text):
    """[(kind, line)]: each line of the console that a splat pattern
    matches, once, in order; a KCSAN report is of kind 'kcsan' only."""
    out = []
    for raw in console_text.splitlines():
        line = STAMP.sub('', raw.replace('\r', '')).strip()
        if KCSAN.search(line):
            item = ('kcsan', line)
        else:
            kinds = [name for name, rx in qemu.SPLATS if rx.search(line)]
            if not kinds:
                continue
            item = (kinds[0], line)
        if item not in out:
            out.append(item)
    return out


def kcsan_races(found):
    """The data races' titles ("data-race in a / b") of reports()."""
    return sorted({KCSAN.search(line).group('title')
                   for kind, line in found if kind == 'kcsan'})


def problems(found, known_races=None):
    """Each report that fails the run, quoted. known_races: the
    reference's data races (None: the flavor runs no KCSAN, so a KCSAN
    report fails like any other)."""
    bad = [f'{kind} report on the console: "{line}"'
           for kind, line in found if kind != 'kcsan' or known_races is None]
    if known_races is not None:
        bad += [f'KCSAN: a data race the reference did not show under the '
                f'same load: "{title}"'
                for title in kcsan_races(found) if title not in known_races]
    return bad
