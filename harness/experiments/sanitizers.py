"""The sanitizers' reports on a guest console, judged (issue 30).

KASAN, UBSAN and lockdep reports, and every other splat qemu.SPLATS
knows, fail a run, each quoted. KCSAN also reports the races of 6.1's
own code, so a KCSAN flavor's data races are compared with those the
reference flavor (the KCSAN flavor with no series: mainline alone) showed
under the same load, accumulated over its runs. A new race fails when one
of its two functions is one the flavor's patches change; a new race
between two functions of 6.1 that no patch touches is listed, not
failed: KCSAN samples, and one run of the reference does not meet every
race of 6.1's tmpfs and scheduler.
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


def race_functions(title):
    """The two functions of "data-race in a / b"."""
    return {name.strip() for name in title[len('data-race in '):].split('/')}


HUNK = re.compile(r'^@@ [^@]* @@.*?\b(\w+)\(', re.M)
DEFINED = re.compile(r'^\+(?:static |inline |__\w+ )*[\w \t*]+?\b(\w+)\('
                     r'[^;\n]*$', re.M)


def touched_functions(patches):
    """The functions whose code the patches change: each hunk's function
    (git's hunk header) and each function an added line defines."""
    out = set()
    for path in patches:
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        out |= set(HUNK.findall(text)) | set(DEFINED.findall(text))
    return out


def problems(found, known_races=None, touched=None):
    """(failures, notes): each report that fails the run, quoted, and the
    new races that fail nothing. known_races: the reference's data races
    (None: the flavor runs no KCSAN, so a KCSAN report fails like any
    other); touched: the functions the flavor's patches change (None:
    every new race fails)."""
    bad = [f'{kind} report on the console: "{line}"'
           for kind, line in found if kind != 'kcsan' or known_races is None]
    notes = []
    if known_races is not None:
        for title in kcsan_races(found):
            if title in known_races:
                continue
            if touched is None or race_functions(title) & touched:
                bad.append(f'KCSAN: a data race the reference did not show '
                           f'under the same load: "{title}"')
            else:
                notes.append(f'a race between functions no patch touches, '
                             f'which the reference has not shown yet: '
                             f'"{title}"')
    return bad, notes
