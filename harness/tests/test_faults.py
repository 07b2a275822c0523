"""Fault injection: bad input gets a clear error and nothing is lost.

Every test runs the real harness, harness/sticky.py, as a subprocess with
a temporary --build-dir (and, where needed, a temporary --top holding
fixture series and a fixture --flavors-file), and checks its message and
exit status. Patch tests use a tiny fake "pristine" git repository whose
Makefile stands in for kbuild, so they take a second. Boot tests need
build/base/bzImage (symlinked into the temporary build directory) and the
fixture guest programs of common/programs/stress.mk; they are skipped, with the
reason, when the image is absent.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(HARNESS)
STICKY = [sys.executable, os.path.join(HARNESS, 'sticky.py')]
BASE_IMAGE = os.path.join(TOP, 'build', 'base', 'bzImage')
NO_TARBALL = '/nonexistent/linux-source-6.1.tar.xz'

FAKE_MAKEFILE = """\
# Stands in for kbuild: enough for sticky.py build to run to its end.
O ?= .
tinyconfig:
\t@mkdir -p $(O) && : > $(O)/.config
syncconfig:
\t@true
bzImage:
\t@mkdir -p $(O)/arch/x86/boot
\t@cat $(CURDIR)/hello.c $(CURDIR)/fs/x.c > $(O)/arch/x86/boot/bzImage
"""

MERGE_CONFIG = """\
#!/bin/sh
# merge_config.sh -m -O OBJ CONFIG FRAGMENT
cat "$5" >> "$4"
"""

FLAVORS_INI = """\
[base]
series =
config =
describe = fixture: no series
boot_knobs =

[good]
series = good
config = CONFIG_FAKE=y
describe = fixture: a series that applies
boot_knobs =

[bad]
series = bad
config =
describe = fixture: patch 2 of 2 has a corrupted hunk
boot_knobs =

[typo]
series = v9
config =
describe = fixture: a revision directory that does not exist
boot_knobs =
"""


def git(repo, *args):
    return subprocess.run(['git', '-C', repo, '-c', 'user.name=t', '-c',
                           'user.email=t@localhost', *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    os.chmod(path, mode)


def qemu_of(tmp):
    """pids of QEMU processes booting from tmp (a query, not a kill)."""
    res = subprocess.run(['pgrep', '-f', f'qemu-system.*{tmp}'],
                         capture_output=True, text=True)
    return res.stdout.split()


class Harness(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='sticky-faults-')
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.build = os.path.join(self.tmp, 'build')
        os.makedirs(self.build)

    def sticky(self, *args, top=None, flavors=None, env=None, timeout=120):
        cmd = [*STICKY, '--build-dir', self.build]
        if top:
            cmd += ['--top', top]
        if flavors:
            cmd += ['--flavors-file', flavors]
        full_env = dict(os.environ, **(env or {}))
        return subprocess.run(cmd + list(args), capture_output=True,
                              text=True, timeout=timeout, env=full_env)


class TestPatchFaults(Harness):
    """Patch application in a fake pristine repository."""

    def setUp(self):
        super().setUp()
        src = os.path.join(self.build, 'pristine')
        write(os.path.join(src, 'Makefile'), FAKE_MAKEFILE)
        write(os.path.join(src, 'scripts', 'kconfig', 'merge_config.sh'),
              MERGE_CONFIG, 0o755)
        write(os.path.join(src, 'hello.c'), 'int hello;\n')
        write(os.path.join(src, 'fs', 'x.c'),
              ''.join(f'int x{i};\n' for i in range(10)))
        subprocess.run(['git', 'init', '-q', '-b', 'pristine', src],
                       check=True)
        git(src, 'add', '-A')
        git(src, 'commit', '-q', '-m', 'fake pristine')
        self.pristine = git(src, 'rev-parse', 'pristine')
        # Two patches made with git itself, on a scratch clone.
        scratch = os.path.join(self.tmp, 'scratch')
        subprocess.run(['git', 'clone', '-q', src, scratch], check=True)
        write(os.path.join(scratch, 'hello.c'), 'int hello = 1;\n')
        git(scratch, 'commit', '-q', '-am', 'hello: one')
        write(os.path.join(scratch, 'fs', 'x.c'),
              ''.join(f'int x{i};\n' for i in range(10)).replace(
                  'int x5;', 'int x5 = 5;'))
        git(scratch, 'commit', '-q', '-am', 'fs: x5 is five')
        self.top = os.path.join(self.tmp, 'top')
        out = os.path.join(self.tmp, 'patches')
        git(scratch, 'format-patch', '-q', '-2', '-o', out)
        self.patches = sorted(os.listdir(out))
        for rev in ('good', 'bad'):
            os.makedirs(os.path.join(self.top, rev))
            for p in self.patches:
                shutil.copy(os.path.join(out, p),
                            os.path.join(self.top, rev, p))
            write(os.path.join(self.top, rev, 'series'),
                  '\n'.join(self.patches) + '\n')
        # Corrupt the hunk of bad's patch 2: a context line that is not
        # in fs/x.c.
        bad2 = os.path.join(self.top, 'bad', self.patches[1])
        with open(bad2, encoding='utf-8') as f:
            text = f.read()
        with open(bad2, 'w', encoding='utf-8') as f:
            f.write(text.replace(' int x4;', ' int x4_corrupted;'))
        self.ini = os.path.join(self.tmp, 'flavors.ini')
        write(self.ini, FLAVORS_INI)

    def build_flavor(self, name):
        return self.sticky('build', name, top=self.top, flavors=self.ini,
                           env={'STICKY_LINUX_TARBALL': NO_TARBALL})

    def test_patch_that_does_not_apply(self):
        res = self.build_flavor('bad')
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn('error: patch does not apply', res.stderr)
        self.assertIn(self.patches[1], res.stderr)
        self.assertIn('fs/x.c', res.stderr)
        self.assertIn('reset to pristine', res.stderr)
        # No half-patched tree: patch 1 applied, then undone.
        wt = os.path.join(self.build, 'bad', 'src')
        self.assertEqual(git(wt, 'rev-parse', 'HEAD'), self.pristine)
        self.assertEqual(git(wt, 'status', '--porcelain'), '')
        self.assertFalse(os.path.exists(wt + '.applied'))
        self.assertFalse(os.path.exists(
            os.path.join(self.build, 'bad', 'bzImage')))
        with open(os.path.join(wt, 'hello.c'), encoding='utf-8') as f:
            self.assertEqual(f.read(), 'int hello;\n')
        # Fixed: the next run applies the whole series on pristine.
        shutil.copy(os.path.join(self.top, 'good', self.patches[1]),
                    os.path.join(self.top, 'bad', self.patches[1]))
        res = self.build_flavor('bad')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn('Applying bad (2 patches)', res.stdout)
        self.assertEqual(git(wt, 'rev-parse', 'HEAD~2'), self.pristine)
        self.assertEqual(git(wt, 'status', '--porcelain'), '')
        self.assertTrue(os.path.isfile(wt + '.applied'))
        with open(os.path.join(self.build, 'bad', 'bzImage'),
                  encoding='utf-8') as f:
            image = f.read()
        self.assertIn('int hello = 1;', image)
        self.assertIn('int x5 = 5;', image)

    def test_good_series_builds(self):
        res = self.build_flavor('good')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn('New image:', res.stdout)

    def test_a_file_the_edit_leaves_alone_keeps_its_mtime(self):
        """An edited series is applied on pristine again: the file whose
        bytes come out as before keeps its mtime (make leaves its object
        alone), the file the edit changed gets a new one."""
        self.assertEqual(self.build_flavor('good').returncode, 0)
        wt = os.path.join(self.build, 'good', 'src')
        past = 1_000_000_000 * 10**9
        for name in ('hello.c', 'fs/x.c'):
            os.utime(os.path.join(wt, name), ns=(past, past))
        first = os.path.join(self.top, 'good', self.patches[0])
        second = os.path.join(self.top, 'good', self.patches[1])
        for path, old, new in ((first, '\n---\n', '\nEdited.\n---\n'),
                               (second, 'int x5 = 5;', 'int x5 = 6;')):
            with open(path, encoding='utf-8') as f:
                text = f.read()
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text.replace(old, new, 1))
        res = self.build_flavor('good')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn('Applying good (2 patches)', res.stdout)
        self.assertIn('1 file(s) the series leaves as they were keep their'
                      ' mtime', res.stdout + res.stderr)
        self.assertEqual(os.stat(os.path.join(wt, 'hello.c')).st_mtime_ns,
                         past)
        self.assertGreater(os.stat(os.path.join(wt, 'fs/x.c')).st_mtime_ns,
                           past)
        self.assertEqual(git(wt, 'status', '--porcelain'), '')
        with open(os.path.join(self.build, 'good', 'bzImage'),
                  encoding='utf-8') as f:
            self.assertIn('int x5 = 6;', f.read())

    def test_unknown_revision_directory(self):
        res = self.build_flavor('typo')
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("revision directory 'v9' has no series file",
                      res.stderr)
        self.assertIn('valid revisions: bad, good', res.stderr)

    def test_unknown_revision_before_extracting(self):
        # No pristine tree and no tarball: the series is named first.
        shutil.rmtree(os.path.join(self.build, 'pristine'))
        res = self.build_flavor('typo')
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("revision directory 'v9'", res.stderr)
        self.assertNotIn('tar.xz', res.stderr)


class TestInputFaults(Harness):
    def test_missing_tarball(self):
        res = self.sticky('build', 'base',
                          env={'STICKY_LINUX_TARBALL': NO_TARBALL})
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f'{NO_TARBALL} not found', res.stderr)
        self.assertIn('apt-get install linux-source-6.1', res.stderr)
        self.assertEqual(os.listdir(self.build), ['.lock'])

    def test_unknown_flavor(self):
        sys.path.insert(0, HARNESS)
        import flavors
        names = list(flavors.load())
        for args in (['build', 'nosuch'], ['run', 'nosuch'],
                     ['smoke', 'base', 'nosuch'], ['stress', 'nosuch'],
                     ['static-check', 'nosuch']):
            with self.subTest(args=args):
                res = self.sticky(*args)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn('unknown flavor nosuch; valid flavors: '
                              + ', '.join(names), res.stderr)


@unittest.skipUnless(os.path.isfile(BASE_IMAGE),
                     f'{BASE_IMAGE} is absent: build it with `make kernel '
                     f'FLAVOR=base`')
class TestBootFaults(Harness):
    guest = None

    @classmethod
    def setUpClass(cls):
        cls.progs = tempfile.mkdtemp(prefix='sticky-fault-progs-')
        res = subprocess.run(
            ['make', '--no-print-directory', '-C',
             os.path.join(TOP, 'common'), f'OUT={cls.progs}',
             *(os.path.join(cls.progs, p)
               for p in ('fault_killinit', 'fault_stream'))],
            capture_output=True, text=True)
        if res.returncode:
            raise RuntimeError(f'building the fixtures failed:\n'
                               f'{res.stdout}{res.stderr}')

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.progs, ignore_errors=True)

    def setUp(self):
        super().setUp()
        os.makedirs(os.path.join(self.build, 'base'))
        os.symlink(BASE_IMAGE, os.path.join(self.build, 'base', 'bzImage'))
        guest = os.path.join(self.build, 'guest')
        os.makedirs(guest)
        shutil.copy(os.path.join(self.progs, 'fault_killinit'), guest)
        # The suite's job is /bin/sticky-suite: here it is the fixture.
        shutil.copy(os.path.join(self.progs, 'fault_stream'),
                    os.path.join(guest, 'sticky-suite'))
        self.addCleanup(self.assert_no_qemu)

    def assert_no_qemu(self):
        self.assertEqual(qemu_of(self.tmp), [], 'QEMU left running')

    def results_file(self):
        return os.path.join(self.build, 'results', 'base.json')

    def test_job_word_the_kernel_cannot_carry(self):
        res = self.sticky('run', 'base', '--', '/bin/sh', '-c', 'echo "x"')
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn('cannot pass through the kernel command line',
                      res.stderr)

    def test_kernel_panic(self):
        t0 = time.monotonic()
        res = self.sticky('run', 'base', '--timeout', '40', '--',
                          '/bin/fault_killinit')
        self.assertLess(time.monotonic() - t0, 40)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn('base: panic (panic)', res.stdout)
        self.assertIn('--- console excerpt', res.stdout)
        self.assertIn('Kernel panic - not syncing: Attempted to kill init',
                      res.stdout)
        self.assertEqual(qemu_of(self.tmp), [])

    def test_hang(self):
        t0 = time.monotonic()
        res = self.sticky('run', 'base', '--timeout', '8', '--',
                          '/bin/busybox', 'sleep', '1000')
        self.assertLess(time.monotonic() - t0, 8 + 10)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn('base: hang (no end within the 8s timeout)',
                      res.stdout)
        self.assertIn('--- console excerpt', res.stdout)
        self.assertIn('Run /init as init process', res.stdout)
        self.assertEqual(qemu_of(self.tmp), [])

    def test_garbled_stream(self):
        res = self.sticky('suite', 'base', '--timeout', '40',
                          '--suite-args', 'garbled')
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertIn('error: garbled result stream', res.stderr)
        self.assertIn('line 3', res.stderr)
        self.assertFalse(os.path.exists(self.results_file()))

    def test_truncated_stream(self):
        res = self.sticky('suite', 'base', '--timeout', '40',
                          '--suite-args', 'truncated')
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertIn('error: truncated result stream', res.stderr)
        self.assertFalse(os.path.exists(self.results_file()))

    def test_qemu_killed_from_outside(self):
        """SIGKILL to QEMU mid-suite: the boot is named as killed, the
        previous result file stays as it was, and the next run works."""
        os.makedirs(os.path.dirname(self.results_file()))
        with open(self.results_file(), 'w', encoding='utf-8') as f:
            f.write('{"previous": true}\n')
        run = self.start('suite', 'base', '--timeout', '60',
                         '--suite-args', 'sleep')
        self.wait_for(lambda: qemu_of(self.tmp))
        time.sleep(3)
        for pid in qemu_of(self.tmp):
            os.kill(int(pid), signal.SIGKILL)
        out, err = run.communicate(timeout=60)
        self.assertNotEqual(run.returncode, 0, out + err)
        self.assertIn('QEMU was killed by SIGKILL from outside the harness',
                      out + err)
        with open(self.results_file(), encoding='utf-8') as f:
            self.assertEqual(f.read(), '{"previous": true}\n')
        self.assertEqual(qemu_of(self.tmp), [])
        res = self.sticky('run', 'base', '--timeout', '40', '--',
                          '/bin/busybox', 'true')
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def start(self, *args):
        return subprocess.Popen([*STICKY, '--build-dir', self.build, *args],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def wait_for(self, what, timeout=30):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if what():
                return
            time.sleep(0.1)
        self.fail('timed out waiting')

    def lock_holder(self):
        try:
            with open(os.path.join(self.build, '.lock'),
                      encoding='utf-8') as f:
                return f.read().strip()
        except FileNotFoundError:
            return ''

    def test_two_runs_at_once(self):
        first = self.start('run', 'base', '--timeout', '40', '--',
                           '/bin/busybox', 'sleep', '4')
        self.addCleanup(first.kill)
        self.wait_for(lambda: self.lock_holder() == str(first.pid))
        # --no-wait refuses, naming the holder; the first run goes on.
        res = self.sticky('--no-wait', 'run', 'base', '--', '/bin/busybox',
                          'true')
        self.assertEqual(res.returncode, 3, res.stderr)
        self.assertIn(f'another run (pid {first.pid}) holds', res.stderr)
        # Without it the second run waits, then boots on its own.
        second = self.start('run', 'base', '--timeout', '40', '--',
                            '/bin/busybox', 'true')
        self.addCleanup(second.kill)
        out2, err2 = second.communicate(timeout=60)
        out1, err1 = first.communicate(timeout=60)
        self.assertEqual(first.returncode, 0, out1 + err1)
        self.assertIn('base: passed', out1)
        self.assertEqual(second.returncode, 0, out2 + err2)
        self.assertIn(f'Waiting for another run (pid {first.pid})', out2)
        self.assertIn('base: passed', out2)
        with open(os.path.join(self.build, 'logs', 'base-run', 'qemu.cmd'),
                  encoding='utf-8') as f:
            self.assertIn('/bin/busybox true', f.read())

    def interrupt(self, sig):
        proc = self.start('suite', 'base', '--timeout', '60', '--console',
                          '--suite-args', 'sleep')
        self.addCleanup(proc.kill)
        console = os.path.join(self.build, 'logs', 'base-suite',
                               'console.log')

        def sleeping():
            try:
                with open(console, encoding='utf-8',
                          errors='replace') as f:
                    return 'fault_stream: sleeping' in f.read()
            except FileNotFoundError:
                return False
        self.wait_for(sleeping)
        self.assertNotEqual(qemu_of(self.tmp), [])
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
        self.assertLess(time.monotonic() - t0, 4)
        self.assertEqual(proc.returncode, 130, out + err)
        self.assertIn('error: interrupted; QEMU stopped, no results were '
                      'kept', err)
        self.assertEqual(qemu_of(self.tmp), [])
        self.assertEqual(os.listdir(os.path.join(self.build, 'results'))
                         if os.path.isdir(os.path.join(self.build,
                                                       'results')) else [],
                         [])

    def test_sigint_with_two_boots_at_once(self):
        """suite --jobs 2: Ctrl-C stops both QEMUs, keeps no results."""
        ini = os.path.join(self.tmp, 'flavors.ini')
        with open(ini, 'w', encoding='utf-8') as f:
            f.write('[base]\nseries =\nconfig =\ndescribe = fixture\n'
                    'boot_knobs =\n\n[twin]\nseries =\nconfig =\n'
                    'describe = fixture: base again\nboot_knobs =\n')
        os.makedirs(os.path.join(self.build, 'twin'))
        os.symlink(BASE_IMAGE, os.path.join(self.build, 'twin', 'bzImage'))
        proc = self.start('--flavors-file', ini, 'suite', 'base', 'twin',
                          '--jobs', '2', '--expect-flavor', 'base',
                          '--timeout', '60', '--console', '--suite-args',
                          'sleep')
        self.addCleanup(proc.kill)

        def sleeping(name):
            path = os.path.join(self.build, 'logs',
                                f'{name}-suite', 'console.log')
            try:
                with open(path, encoding='utf-8', errors='replace') as f:
                    return 'fault_stream: sleeping' in f.read()
            except FileNotFoundError:
                return False
        self.wait_for(lambda: sleeping('base') and sleeping('twin'), 60)
        self.assertEqual(len(qemu_of(self.tmp)), 2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, out + err)
        self.assertIn('QEMU stopped, no results were kept', err)
        self.assertEqual(qemu_of(self.tmp), [])
        self.assertFalse(os.path.isdir(os.path.join(self.build, 'results')))

    def test_sigint_during_boot(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm_during_boot(self):
        self.interrupt(signal.SIGTERM)



@unittest.skipUnless(os.path.isfile(BASE_IMAGE),
                     f'{BASE_IMAGE} is absent: build it with `make kernel '
                     f'FLAVOR=base`')
class TestKnobMoved(Harness):
    """A knob written while the suite runs: the suite reads the knobs
    around each block of cases, so the cases after the write are errors,
    never verdicts taken under the wrong setting."""

    def test_knob_written_mid_group(self):
        guest = os.path.join(self.build, 'guest')
        res = subprocess.run(
            ['make', '--no-print-directory', '-C',
             os.path.join(TOP, 'common'), f'OUT={guest}',
             *(os.path.join(guest, p)
               for p in ('sticky-suite', 'fault_knobflip'))],
            capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        os.makedirs(os.path.join(self.build, 'base'))
        os.symlink(BASE_IMAGE, os.path.join(self.build, 'base', 'bzImage'))
        self.addCleanup(lambda: self.assertEqual(qemu_of(self.tmp), []))
        res = self.sticky('run', 'base', '--timeout', '90', '--',
                          '/bin/fault_knobflip')
        logdir = os.path.join(self.build, 'logs', 'base-run')
        with open(os.path.join(logdir, 'console.log'), encoding='utf-8',
                  errors='replace') as f:
            lines = f.read().splitlines()
        # the per-case lines: the guest's KTAP channel, not the console
        with open(os.path.join(logdir, 'ktap.txt'), encoding='utf-8') as f:
            document = f.read().splitlines()
        self.assertNotEqual(res.returncode, 0, res.stdout)
        flipped = [i for i, line in enumerate(lines)
                   if line.startswith('# fault_knobflip: wrote')]
        self.assertEqual(len(flipped), 1, '\n'.join(lines[-40:]))
        self.assertFalse([line for line in lines if ' - m/' in line],
                         'case lines on the console')
        cases = [line.strip() for line in document
                 if line.lstrip().startswith(('ok ', 'not ok '))
                 and ' - m/' in line]
        errors = [i for i, line in enumerate(cases)
                  if 'ERROR self-check failed' in line]
        self.assertTrue(errors, 'no case became an error')
        self.assertGreater(errors[0], 0, 'the cases before the write ran')
        self.assertEqual(errors, list(range(errors[0], len(cases))),
                         'every case from the write on is an error')
        self.assertTrue(any('after its block: knob' in line
                            and 'protected_symlinks reads' in line
                            for line in lines), '\n'.join(lines[-40:]))


if __name__ == '__main__':
    unittest.main()
