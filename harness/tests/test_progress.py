"""Progress of long steps: the kernel build's progress lines (harness/
progress.py, kbuild.build) with a fake make, and harness/deps.sh's one
line per package group with fake dpkg-query, id and apt-get on PATH.
Nothing here runs the real make or apt-get."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)

from kernel import kbuild  # noqa: E402
from kernel import progress  # noqa: E402
from stages import HarnessError  # noqa: E402

# A make that plays a program of steps, a JSON file named by $FAKE_MAKE:
# ["out", text] / ["err", text] write (text may hold \udcxx for raw
# bytes), ["wait", path] waits for the file (at most 20 s, then exit 99),
# ["sleep", secs], ["argv", path] records its arguments, ["file", path,
# text] writes a file, ["pid", path] records its pid, ["noterm"] ignores
# SIGTERM, ["exit", status].
FAKE_MAKE = r'''
import json, os, signal, sys, time
with open(os.environ['FAKE_MAKE']) as f:
    program = json.load(f)
for step in program:
    op, args = step[0], step[1:]
    if op in ('out', 'err'):
        stream = sys.stdout if op == 'out' else sys.stderr
        stream.buffer.write(args[0].encode('utf-8', 'surrogateescape'))
        stream.buffer.flush()
    elif op == 'wait':
        t0 = time.monotonic()
        while not os.path.exists(args[0]):
            if time.monotonic() - t0 > 20:
                sys.exit(99)
            time.sleep(0.01)
    elif op == 'sleep':
        time.sleep(args[0])
    elif op == 'argv':
        with open(args[0], 'w') as f:
            json.dump(sys.argv[1:], f)
    elif op == 'file':
        os.makedirs(os.path.dirname(args[0]) or '.', exist_ok=True)
        with open(args[0], 'w') as f:
            f.write(args[1])
    elif op == 'pid':
        with open(args[0], 'w') as f:
            f.write(str(os.getpid()))
    elif op == 'noterm':
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif op == 'exit':
        sys.exit(args[0])
'''


def kbuild_lines(prefix, n):
    return ''.join(f'  CC      {prefix}/f{i}.o\n' for i in range(n))


class FakeMake(unittest.TestCase):
    """A temporary folder with the fake make as ./make."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='progress-test-')
        self.addCleanup(shutil.rmtree, self.tmp)
        self.make = os.path.join(self.tmp, 'bin', 'make')
        os.makedirs(os.path.dirname(self.make))
        with open(self.make, 'w', encoding='utf-8') as f:
            f.write(f'#!{sys.executable}\n{FAKE_MAKE}')
        os.chmod(self.make, 0o755)
        self.log = os.path.join(self.tmp, 'build.log')
        self.said = []

    def path(self, name):
        return os.path.join(self.tmp, name)

    def program(self, steps):
        """Writes the fake make's program; returns its file."""
        path = self.path('program.json')
        with open(path, 'w', encoding='utf-8') as f:
            json.dump(steps, f)
        return path

    def say(self, msg):
        self.said.append((time.monotonic(), msg))

    def lines(self):
        """What was said, with times (m:ss) as T."""
        return [re.sub(r'\b\d+:\d\d\b', 'T', msg) for _, msg in self.said]

    def run_fake(self, program, interval=0.1, say=None, **kw):
        env = dict(os.environ, FAKE_MAKE=self.program(program))
        return progress.run_logged([self.make], self.log, 'build t',
                                   interval=interval, say=say or self.say,
                                   env=env, **kw)

    def logged(self):
        with open(self.log, 'rb') as f:
            return f.read()


class RunLogged(FakeMake):

    def test_progress_lines_count_objects_while_make_runs(self):
        go1, go2 = self.path('go1'), self.path('go2')

        def say(msg):
            # make goes on only once a progress line has shown its count
            self.say(msg)
            if msg.startswith('  build t: 3 objects compiled, '):
                open(go1, 'w').close()
            if msg.startswith('  build t: 5 objects compiled, '):
                open(go2, 'w').close()
        program = [
            ['out', kbuild_lines('fs', 3)],
            ['out', '  GEN     include/generated/x.h\n'],
            ['wait', go1],
            ['out', '  AS      arch/x86/entry/entry_64.o\n'],
            ['err', 'fs/x.c:1:2: warning: unused\n'],
            ['out', '  CC [M]  fs/m.o\n  CALL    scripts/checksyscalls.sh\n'],
            ['wait', go2],
            ['exit', 0]]
        res = self.run_fake(program, say=say)
        self.assertEqual((res.returncode, res.objects), (0, 5))
        lines = self.lines()
        counts = [int(re.fullmatch(r'  build t: (\d+) objects? compiled, '
                                   r'T elapsed', x).group(1))
                  for x in lines[:-1]]
        self.assertIn(3, counts)
        self.assertIn(5, counts)
        self.assertEqual(counts, sorted(counts))
        self.assertEqual(lines[-1], 'build t: 5 objects in T')
        self.assertRegex(self.said[-1][1], r'^build t: 5 objects in 0:0\d$')
        # at least one line per interval while make runs
        times = [t for t, _ in self.said]
        self.assertLess(max(b - a for a, b in zip(times, times[1:])), 1.0)

    def test_short_build_says_only_the_summary(self):
        res = self.run_fake([['out', kbuild_lines('init', 12)],
                             ['out', 'Kernel: arch/x86/boot/bzImage is '
                                     'ready  (#1)\n']], interval=30)
        self.assertEqual(self.lines(), ['build t: 12 objects in T'])
        self.assertEqual(res, (0, 12, res.elapsed))

    def test_noop_build(self):
        self.run_fake([['out', '  CALL    scripts/checksyscalls.sh\n']],
                      interval=30)
        self.assertEqual(self.lines(), ['build t: 0 objects in T'])

    def test_progress_even_when_make_prints_nothing(self):
        self.run_fake([['out', kbuild_lines('mm', 1)], ['sleep', 0.5]],
                      interval=0.1)
        lines = self.lines()
        self.assertGreaterEqual(len(lines), 3, lines)
        self.assertEqual(lines[-2], '  build t: 1 object compiled, '
                                    'T elapsed')

    def test_failing_make_keeps_status_and_log(self):
        out = kbuild_lines('kernel', 4) + 'kernel/x.c:9: error: boom\n'
        res = self.run_fake([['out', out],
                             ['err', 'make[2]: *** [x] Error 1\n'],
                             ['exit', 2]], interval=30)
        self.assertEqual((res.returncode, res.objects), (2, 4))
        self.assertEqual(self.lines(),
                         ['build t: exit status 2 after 4 objects in T'])
        self.assertEqual(self.logged(),
                         out.encode() + b'make[2]: *** [x] Error 1\n')
        self.assertEqual(progress.log_tail(self.log),
                         'kernel/x.c:9: error: boom\n'
                         'make[2]: *** [x] Error 1\n')

    def test_log_receives_every_byte(self):
        # many chunks, lines longer than a pipe read, a raw byte, stderr,
        # and a last line without its newline
        body = ''.join(f'  CC      drivers/d{i}.o\n'
                       f'warning {i}: {"x" * (i % 300)}\n'
                       for i in range(3000))
        program = [['out', body], ['out', 'y' * 200000 + '\n'],
                   ['err', 'bad byte \udcff\n'], ['out', '  LD      vmlinux']]
        res = self.run_fake(program, interval=30)
        want = (body + 'y' * 200000 + '\n').encode() + b'bad byte \xff\n' \
            + b'  LD      vmlinux'
        self.assertEqual(self.logged(), want)
        self.assertEqual(res.objects, 3001)

    def test_interrupt_stops_make(self):
        pidfile = self.path('pid')

        def say(msg):
            if os.path.exists(pidfile):
                raise KeyboardInterrupt
        t0 = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            self.run_fake([['pid', pidfile], ['out', kbuild_lines('a', 2)],
                           ['sleep', 60]], say=say)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertGone(pidfile)
        self.assertEqual(self.logged(), kbuild_lines('a', 2).encode())

    def test_interrupt_kills_make_that_ignores_sigterm(self):
        pidfile, ready = self.path('pid'), self.path('ready')

        def say(msg):
            if os.path.exists(ready):
                raise KeyboardInterrupt
        t0 = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            self.run_fake([['noterm'], ['pid', pidfile],
                           ['file', ready, ''], ['sleep', 60]],
                          say=say, grace=0.2)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertGone(pidfile)

    def assertGone(self, pidfile):
        with open(pidfile, encoding='utf-8') as f:
            pid = int(f.read())
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)


class Units(unittest.TestCase):

    def test_object_lines(self):
        yes = ['  CC      init/main.o', '  CC [M]  fs/m.o',
               '  AS      arch/x86/kernel/head_64.o', '  LD      vmlinux.o',
               '  AR      lib/lib.a', '  HOSTCC  scripts/kallsyms',
               '  HOSTLD  scripts/kconfig/conf', '  LD [M]  fs/m.ko']
        no = ['  GEN     Makefile', '  CALL    scripts/checksyscalls.sh',
              '  DESCEND objtool', 'CC init/main.o', '  CCX     a.o',
              'fs/x.c:1: warning: CC      x', '  CC',
              'Kernel: arch/x86/boot/bzImage is ready  (#1)']
        self.assertEqual([x for x in yes if progress.is_object_line(x)], yes)
        self.assertEqual([x for x in no if progress.is_object_line(x)], [])

    def test_clock_text(self):
        self.assertEqual([progress.clock_text(s) for s in
                          (0, 6.9, 42, 600, 3599, 3723)],
                         ['0:00', '0:06', '0:42', '10:00', '59:59',
                          '1:02:03'])


class KbuildBuild(FakeMake):
    """kbuild.build with the fake make first on PATH."""

    def setUp(self):
        super().setUp()
        path = os.path.dirname(self.make) + os.pathsep + os.environ['PATH']
        for patcher in (mock.patch.dict(os.environ, {'PATH': path}),
                        mock.patch.object(kbuild, 'log')):
            patcher.start()
            self.addCleanup(patcher.stop)
        self.obj = self.path('obj')
        os.makedirs(self.obj)
        self.image = self.path('v9/bzImage')
        os.makedirs(os.path.dirname(self.image))

    def build(self, program):
        os.environ['FAKE_MAKE'] = self.program(program)
        return kbuild.build(self.path('src'), self.obj, self.image, self.tmp,
                            self.log, interval=30, say=self.say)

    def test_build_counts_and_copies_the_image(self):
        out = kbuild_lines('fs', 7) + '  LD      vmlinux\n'
        argv = self.path('argv')
        self.assertTrue(self.build([
            ['argv', argv], ['out', out],
            ['file', 'arch/x86/boot/bzImage', 'image1'], ['exit', 0]]))
        with open(self.image, encoding='utf-8') as f:
            self.assertEqual(f.read(), 'image1')
        self.assertEqual(self.lines(), ['build v9: 8 objects in T'])
        self.assertEqual(self.logged(), out.encode())
        with open(argv, encoding='utf-8') as f:
            args = json.load(f)
        # -s would silence the very lines the progress counts
        self.assertNotIn('-s', args)
        self.assertEqual(args[-1], 'bzImage')
        self.assertIn(f'O={self.obj}', args)

    def test_failed_build_raises_with_the_errors(self):
        out = kbuild_lines('fs', 30) + 'fs/namei.c:1: error: nope\n'
        with self.assertRaises(HarnessError) as cm:
            self.build([['out', out], ['exit', 2]])
        msg = str(cm.exception)
        self.assertIn(self.log, msg)
        self.assertIn('fs/namei.c:1: error: nope', msg)
        self.assertNotIn('  CC      fs/f29.o', msg)
        self.assertFalse(os.path.exists(self.image))
        self.assertEqual(self.lines(),
                         ['build v9: exit status 2 after 30 objects in T'])
        self.assertEqual(self.logged(), out.encode())


DEPS = os.path.join(HARNESS, 'deps.sh')
# The package set before the output was condensed; it must not change.
PACKAGES = set('''linux-source-6.1 qemu-system-x86 qemu-system-data
busybox-static gcc make flex bison libelf-dev libssl-dev bc ccache python3
git xz-utils sparse coccinelle perl e2fsprogs lz4'''.split())

FAKE_TOOLS = {
    'dpkg-query': '''#!/bin/sh
eval "p=\\${$#}"
for i in $FAKE_INSTALLED; do
    [ "$i" = "$p" ] && { printf 'install ok installed'; exit 0; }
done
echo "dpkg-query: no packages found matching $p" >&2
exit 1
''',
    'id': '''#!/bin/sh
echo "${FAKE_UID:-0}"
''',
    'apt-get': '''#!/bin/sh
echo "$DEBIAN_FRONTEND $*" >>"$FAKE_APT_CALLS"
echo "Reading package lists..."
echo "Selecting previously unselected package $*"
case " $* " in
*" $FAKE_APT_FAIL "*)
    echo "E: Unable to locate package $FAKE_APT_FAIL" >&2
    exit 100 ;;
esac
''',
}


class Deps(unittest.TestCase):
    """harness/deps.sh with fake dpkg-query, id and apt-get."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='deps-test-')
        self.addCleanup(shutil.rmtree, self.tmp)
        fake = os.path.join(self.tmp, 'bin')
        os.mkdir(fake)
        for name, text in FAKE_TOOLS.items():
            with open(os.path.join(fake, name), 'w', encoding='utf-8') as f:
                f.write(text)
            os.chmod(os.path.join(fake, name), 0o755)
        self.calls = os.path.join(self.tmp, 'apt-calls')
        self.deps_log = os.path.join(self.tmp, 'deps.log')
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ('STICKY_NO_BROWSER', 'DEBIAN_FRONTEND')}
        self.env.update(PATH=fake + os.pathsep + os.environ['PATH'],
                        FAKE_APT_CALLS=self.calls, FAKE_APT_FAIL='-none-',
                        STICKY_DEPS_LOG=self.deps_log)
        # never the real apt-get
        self.assertEqual(shutil.which('apt-get', path=self.env['PATH']),
                         os.path.join(fake, 'apt-get'))

    def deps(self, installed, **env):
        env = dict(self.env, FAKE_INSTALLED=' '.join(installed), **env)
        return subprocess.run(['sh', DEPS], env=env, capture_output=True,
                              text=True, timeout=60)

    def apt_calls(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls, encoding='utf-8') as f:
            return f.read().splitlines()

    def test_syntax(self):
        res = subprocess.run(['sh', '-n', DEPS], capture_output=True,
                             text=True)
        self.assertEqual((res.returncode, res.stderr), (0, ''))

    def test_package_set_unchanged(self):
        for env, want in (({}, PACKAGES | {'chromium'}),
                          ({'STICKY_NO_BROWSER': '1'}, PACKAGES)):
            res = self.deps([], FAKE_UID='1000', **env)
            self.assertEqual(res.returncode, 2)
            named = re.search(r'missing packages: (.*); run as root',
                              res.stderr).group(1).split()
            self.assertEqual(sorted(named), sorted(want))
            self.assertEqual(self.apt_calls(), [])

    def test_all_present(self):
        res = self.deps(PACKAGES | {'chromium'})
        self.assertEqual((res.returncode, res.stdout, res.stderr),
                         (0, 'deps: all packages present\n', ''))
        self.assertEqual(self.apt_calls(), [])

    def test_one_line_per_group(self):
        have = PACKAGES - {'gcc', 'bison', 'sparse'}
        res = self.deps(have, STICKY_NO_BROWSER='1')
        self.assertEqual((res.returncode, res.stderr), (0, ''))
        self.assertEqual(res.stdout.splitlines(), [
            'deps: package lists: updating... updated',
            'deps: kernel source: already present',
            'deps: kernel build tools: installing gcc bison... installed',
            'deps: static checks: installing sparse... installed',
            'deps: qemu: already present',
            'deps: guest tools: already present',
            'deps: harness: already present'])
        q = 'noninteractive '
        self.assertEqual(self.apt_calls(), [
            q + 'update -qq',
            q + 'install -y -qq --no-install-recommends gcc bison',
            q + 'install -y -qq --no-install-recommends sparse'])
        with open(self.deps_log, encoding='utf-8') as f:
            self.assertIn('Selecting previously unselected package', f.read())

    def test_failure_says_command_and_log_tail(self):
        have = PACKAGES - {'gcc', 'sparse', 'e2fsprogs'}
        res = self.deps(have, STICKY_NO_BROWSER='1', FAKE_APT_FAIL='sparse')
        # coccinelle is present: the group installs sparse alone
        self.assertEqual(res.returncode, 100)
        self.assertEqual(res.stdout.splitlines()[-1],
                         'deps: static checks: installing sparse... FAILED')
        self.assertIn('command failed (exit 100): apt-get install -y -qq '
                      '--no-install-recommends sparse', res.stderr)
        self.assertIn('  E: Unable to locate package sparse', res.stderr)
        # it stops at the failure
        self.assertEqual(len(self.apt_calls()), 3)

    def test_update_failure(self):
        res = self.deps(PACKAGES - {'gcc'}, STICKY_NO_BROWSER='1',
                        FAKE_APT_FAIL='-qq')
        self.assertEqual(res.returncode, 100)
        self.assertEqual(res.stdout,
                         'deps: package lists: updating... FAILED\n')
        self.assertIn('apt-get update -qq', res.stderr)


if __name__ == '__main__':
    unittest.main()
