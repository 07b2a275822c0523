"""The posted initialiser (flavors.ini posted_fixture) must not build with
its option unset.

The posting wrote "int protected_sticky_symlinks =
CONFIG_PROTECTED_STICKY_SYMLINKS;", which only compiles when the bool option
is set. The series carries the IS_ENABLED() fix; this check applies the
series of the flavor with posted_fixture to build/<flavor>-posted/src, puts
the posted initialiser back (the fixture), configures it as that flavor
(option unset) and compiles fs/namei.o alone. It passes when that compile
fails with exactly the expected error, and when the series itself compiles
fs/namei.o in the same configuration. The verdict is written to
build/results/<flavor>-posted-build.txt (results/ holds its blessed
copy).
"""

import dataclasses
import os

from flavors import HARNESS
from kernel import kbuild
from kernel import kernels
from kernel import tree
from stages import log

EXPECTED = ("error: 'CONFIG_PROTECTED_STICKY_SYMLINKS' undeclared here "
            "(not in a function)")


def run(build, top, posting, stages):
    hunk = os.path.join(os.path.dirname(HARNESS), posting.posted_fixture)
    flavor = dataclasses.replace(posting, name=f'{posting.name}-posted')
    src = tree.worktree(build, flavor, top, stages)
    obj = tree.obj_dir(build, flavor.name)
    kernels.seed_objects(flavor, build, src, obj, stages)
    with stages.stage('configure', f'Configuring {flavor.name} (option '
                      f'unset)'):
        kbuild.configure(src, obj, flavor.config, build)
    with stages.stage('build', f'Compiling fs/namei.o of the '
                      f'{posting.series} series'):
        ported_rc, ported_out = kbuild.compile_object(src, obj, 'fs/namei.o',
                                                      build)
    tree.git(src, 'apply', hunk)
    try:
        with stages.stage('build', 'Compiling fs/namei.o with the posted '
                          'initialiser'):
            rc, out = kbuild.compile_object(src, obj, 'fs/namei.o', build)
    finally:
        tree.git(src, 'apply', '-R', hunk)
    errors = [line.split(': ', 1)[1] if line.startswith('fs/') or
              '/fs/namei.c:' in line else line
              for line in out.splitlines() if 'error:' in line]
    # gcc quotes with U+2018/U+2019 in a UTF-8 locale (kbuild unexports
    # LC_ALL, so the locale cannot be forced): compare in ASCII.
    errors = [e[e.index('error:'):].replace('\u2018', "'")
              .replace('\u2019', "'") for e in errors]
    ok = rc != 0 and EXPECTED in errors and ported_rc == 0
    verdict = [
        f'{posting.series} with the posted initialiser, '
        'CONFIG_PROTECTED_STICKY_SYMLINKS unset, make fs/namei.o',
        f'expected: build fails with: {EXPECTED}',
        f'observed: make exit status {"non-zero" if rc else "0"}',
    ] + [f'observed: {e}' for e in dict.fromkeys(errors)] + [
        'the series as ported (IS_ENABLED()): make exit status '
        f'{"non-zero" if ported_rc else "0"}',
        f'verdict: {"ok" if ok else "NOT OK"}',
    ]
    if ported_rc:
        log(ported_out[-2000:])
    path = os.path.join(build, 'results', f'{flavor.name}-build.txt')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = '\n'.join(verdict) + '\n'
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    log(('ok' if ok else 'not ok') + f' {flavor.name} build check -> {path}')
    blessed = os.path.join(top, 'results', f'{flavor.name}-build.txt')
    with open(blessed, encoding='utf-8') as f:
        if f.read() != text:
            log(f'not ok: {path} differs from {blessed}; if the change is '
                f'intended, copy it there (make bless)')
            return False
    return ok
