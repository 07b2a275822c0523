"""v3 as posted must not build with CONFIG_PROTECTED_STICKY_SYMLINKS unset.

Applies only patch 1 of v3/series to build/v3-posted/src, configures it as
the v3 flavor (option unset) and compiles fs/namei.o alone. The check
passes when that compile fails with exactly the expected error, and the
verdict is written to results/v3-posted-build.txt.
"""

import dataclasses
import os

import kbuild
import tree
from stages import log

EXPECTED = ("error: 'CONFIG_PROTECTED_STICKY_SYMLINKS' undeclared here "
            "(not in a function)")


def run(build, top, v3, stages):
    flavor = dataclasses.replace(v3, name='v3-posted')
    src = tree.worktree(build, flavor, top, stages, first=1)
    obj = os.path.join(build, flavor.name, 'obj')
    with stages.stage('configure', 'Configuring v3-posted (option unset)'):
        kbuild.configure(src, obj, flavor.config, build)
    with stages.stage('build', 'Compiling fs/namei.o of v3 patch 1 alone'):
        rc, out = kbuild.compile_object(src, obj, 'fs/namei.o', build)
    errors = [line.split(': ', 1)[1] if line.startswith('fs/') or
              '/fs/namei.c:' in line else line
              for line in out.splitlines() if 'error:' in line]
    # gcc quotes with U+2018/U+2019 in a UTF-8 locale (kbuild unexports
    # LC_ALL, so the locale cannot be forced): compare in ASCII.
    errors = [e[e.index('error:'):].replace('\u2018', "'")
              .replace('\u2019', "'") for e in errors]
    ok = rc != 0 and EXPECTED in errors
    verdict = [
        'v3 patch 1 (as posted), CONFIG_PROTECTED_STICKY_SYMLINKS unset, '
        'make fs/namei.o',
        f'expected: build fails with: {EXPECTED}',
        f'observed: make exit status {"non-zero" if rc else "0"}',
    ] + [f'observed: {e}' for e in dict.fromkeys(errors)] + [
        f'verdict: {"ok" if ok else "NOT OK"}',
    ]
    path = os.path.join(top, 'results', 'v3-posted-build.txt')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(verdict) + '\n')
    log(('ok' if ok else 'not ok') + f' v3-posted build check -> {path}')
    return ok
