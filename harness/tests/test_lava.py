"""harness/lava: the jobs as LAVA validates them, the monitor's pattern on
the console as LAVA sees it, lava-run's log read back, and the comparison
with the project's own verdicts failing on each kind of difference."""

import os
import re
import subprocess
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
from lava import job, results
from lava.cli import LAVA_PYTHON, VALIDATE

KTAP = '''KTAP version 1
1..2
ok 1 - sysctl
  KTAP version 1
  # Subtest: boot/matrix
  1..3
  ok 1 - m/d1777-root/lroot/tfile-root/froot/trail/open_rdonly
  ok 2 - p/d1777-root/lA/tdir/froot/inter/open_rdonly # XFAIL porting artifact: atime
  not ok 3 - m/d1777-root/lroot/tfile-root/fA/trail/open_rdonly
# boot/matrix: pass:2 fail:1 xfail:1 skip:0 error:0
not ok 2 - boot/matrix
# Totals: pass:2 fail:1 xfail:1 xpass:0 skip:0 error:0
'''


def lava_log(verdicts, job_result='pass'):
    """lava-run's log lines for these verdicts, as its YAMLLogger writes
    them."""
    lines = ['- {"dt": "2026-12-06T18:00:00", "lvl": "info", '
             '"msg": "start: 1 tmpfs-deploy"}']
    for v in verdicts:
        tcid = v.name + (f' # {v.directive} why' if v.directive else '')
        lines.append('- {"dt": "2026-12-06T18:00:01", "lvl": "results", '
                     '"msg": {"definition": "sticky-suite", "case": "x", '
                     f'"level": "3.1", "result": "{v.result}", "extra": '
                     f'{{"test_case_id": "{tcid}"}}}}}}')
    status = 'passed' if job_result == 'pass' else 'failed'
    lines.append('{"dt": "2026-12-06T18:00:02", "lvl": "results", "msg": '
                 '{"case": "lava-test-monitor", "definition": "lava", '
                 f'"extra": {{"status": "{status}"}}, "level": "3.1"}}}}')
    lines.append('- {"dt": "2026-12-06T18:00:02", "lvl": "results", "msg": '
                 '{"definition": "lava", "case": "job", '
                 f'"result": "{job_result}"}}}}')
    return '\n'.join(lines) + '\n'


class PatternTest(unittest.TestCase):
    def test_console_lines_as_lava_sees_them(self):
        console = KTAP.replace('\n', '\r\r\n')
        got = [(m.group('result'), m.group('test_case_id'))
               for m in re.finditer(job.PATTERN, console)]
        self.assertEqual(len(got), 5)
        self.assertEqual(got[2], (
            'ok', 'p/d1777-root/lA/tdir/froot/inter/open_rdonly # XFAIL '
            'porting artifact: atime'))
        self.assertFalse(any('\r' in name for _, name in got))

    def test_a_line_matches_only_when_it_has_ended(self):
        """LAVA (pexpect) searches the console read so far: a name must
        not be taken before its line's end has arrived."""
        line = '  ok 2 - m/d1777-root/lroot/tfile-root/fA/trail/open_rdonly'
        for cut in (12, 20, len(line)):
            self.assertIsNone(re.search(job.PATTERN, line[:cut]))
        m = re.search(job.PATTERN, line + '\r\r\n')
        self.assertEqual(m.group('test_case_id'), line[9:])

    def test_ktap_reference(self):
        v = results.parse_ktap(KTAP)
        self.assertEqual([x.result for x in v],
                         ['pass', 'pass', 'pass', 'fail', 'fail'])
        self.assertEqual(results.count(v),
                         {'pass': 3, 'fail': 2, 'xfail': 1})
        self.assertEqual(v[2].directive, 'XFAIL')


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.ref = results.parse_ktap(KTAP)

    def run_of(self, verdicts, job_result='pass'):
        return results.parse_log(lava_log(verdicts, job_result))

    def test_the_same_results_compare_equal(self):
        run = self.run_of(self.ref)
        self.assertEqual(run.job_result, 'pass')
        self.assertEqual(results.compare(run, self.ref), [])

    def test_a_flipped_result_is_named(self):
        flipped = list(self.ref)
        flipped[1] = results.Verdict('fail', flipped[1].name)
        problems = results.compare(self.run_of(flipped), self.ref)
        self.assertTrue(any('result 2: LAVA fail' in p for p in problems))

    def test_a_guest_that_died_fails(self):
        problems = results.compare(self.run_of(self.ref[:2], 'fail'),
                                   self.ref)
        self.assertTrue(any('did not complete' in p for p in problems))
        self.assertTrue(any('recorded 2 results' in p for p in problems))
        self.assertTrue(any('did not see the end line' in p
                            for p in problems))

    def test_a_lost_xfail_is_named(self):
        lost = list(self.ref)
        lost[2] = results.Verdict('pass', lost[2].name)
        problems = results.compare(self.run_of(lost), self.ref)
        self.assertTrue(any('xfail' in p for p in problems), problems)


class YamlTest(unittest.TestCase):
    def definition(self):
        return job.definition('v1', 'file:///b/v1/bzImage',
                              'file:///b/v1/initramfs.cpio.gz',
                              {'flavor': 'v1', 'commit': 'abc'})

    def test_yaml_reads_back(self):
        try:
            import yaml
        except ImportError:
            self.skipTest('no PyYAML in this Python')
        d = self.definition()
        self.assertEqual(yaml.safe_load(job.to_yaml(d)), d)

    def test_urls_for_a_lab(self):
        self.assertEqual(job.url('', '/w/build/v1/bzImage', '/w/build'),
                         'file:///w/build/v1/bzImage')
        self.assertEqual(job.url('https://lab/a/', '/w/build/v1/bzImage',
                                 '/w/build'), 'https://lab/a/v1/bzImage')

    def validate(self, d):
        if not os.path.isfile(LAVA_PYTHON) or subprocess.run(
                [LAVA_PYTHON, '-c', 'import lava_common'],
                capture_output=True).returncode:
            self.skipTest('lava_common is not installed (sh harness/'
                          'deps.sh lava); make check\'s lava step runs it')
        with tempfile.NamedTemporaryFile('w', suffix='.yaml') as f:
            f.write(job.to_yaml(d) + '\n')
            f.flush()
            return subprocess.run([LAVA_PYTHON, '-c', VALIDATE, f.name],
                                  capture_output=True, text=True)

    def test_lava_validates_the_job_strictly(self):
        res = self.validate(self.definition())
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_and_refuses_a_broken_one(self):
        d = self.definition()
        d['actions'][2]['test']['monitors'][0].pop('end')
        del d['device_type']
        res = self.validate(d)
        self.assertNotEqual(res.returncode, 0)


if __name__ == '__main__':
    unittest.main()
