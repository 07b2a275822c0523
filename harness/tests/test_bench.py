"""make bench's figures: ratios to references measured in the same run."""

import json
import os
import tempfile
import unittest
from unittest import mock

import support  # noqa: F401  (puts harness/ on sys.path)
from experiments import bench
from experiments import bench_table
from stages import HarnessError


class FigureTest(unittest.TestCase):
    def test_ratio_against_the_reference(self):
        f = bench.Figure('suite', 33.0, 'bare boot', 3.0, 3.0)
        self.assertAlmostEqual(f.ratio, 11.0)
        self.assertFalse(f.met)
        self.assertTrue(bench.Figure('x', 5.9, 'y', 2.0, 3.0).met)

    def test_unmeasured_is_neither_met_nor_over(self):
        for f in (bench.Figure('cold', None, 'base', None, 2.0),
                  bench.Figure('cold', 10.0, 'base', None, 2.0)):
            self.assertIsNone(f.ratio)
            self.assertIsNone(f.met)

    def test_rows_show_both_sides_and_the_verdict(self):
        out = bench.rows([bench.Figure('edit a v1 patch -> report', 75.0,
                                       'target', 60.0, 1.0, 'two flavors'),
                          bench.Figure('cold', None, 'base', None, 2.0)])
        self.assertIn('75.0s  vs target 60.0s: ratio 1.25 (target <= 1.0) '
                      'over; two flavors', out[0])
        self.assertIn('not run  vs base not run: ratio - (target <= 2.0) '
                      'not measured', out[1])

    def test_a_figure_in_its_own_unit(self):
        out = bench.rows([bench.Figure('report.html size (MB)', 2.25,
                                       'target (MB)', 1.5, 1.0, unit='MB')])
        self.assertIn('2.2MB  vs target (MB) 1.5MB: ratio 1.50 (target <= '
                      '1.0) over', out[0])

    def test_check_seconds_from_check_sh(self):
        with tempfile.TemporaryDirectory() as build:
            self.assertIsNone(bench.check_seconds(build)[0])
            os.makedirs(os.path.join(build, 'results'))
            with open(os.path.join(build, 'results', 'check-timing.json'),
                      'w') as f:
                json.dump({'total': 1500, 'build_mb': 5120,
                           'steps': {'suite': 400, 'kernels': 300,
                                     'unit': 90, 'a': 1}}, f)
            total, note = bench.check_seconds(build)
        self.assertEqual(total, 1500)
        self.assertEqual(note, 'slowest steps: suite 400s, kernels 300s, '
                         'unit 90s; build/ 5120 MB')

    def test_idle_note_from_the_suite_console(self):
        with tempfile.TemporaryDirectory() as build:
            self.assertEqual(bench._idle_note(build, 'v1'), '')
            logs = os.path.join(build, 'logs', 'v1-suite')
            os.makedirs(logs)
            with open(os.path.join(logs, 'console.log'), 'w') as f:
                f.write('# timing setting boot: 1258 ms, 5928\n'
                        '# timing log interval left idle: 2182 ms, 1\n')
            self.assertEqual(bench._idle_note(build, 'v1'),
                             "2.2s of it waiting out printk_ratelimited()'s "
                             'interval')


TWO_FILES = """\
Subject: [PATCH] two files

---
diff --git a/fs/a.c b/fs/a.c
--- a/fs/a.c
+++ b/fs/a.c
@@ -10,3 +10,4 @@ int a(void)
 {
+\tcall();
 \treturn 0;
 }
diff --git a/fs/b.c b/fs/b.c
--- a/fs/b.c
+++ b/fs/b.c
@@ -1,2 +1,2 @@
-int b;
+int b = 1;
 int c;
@@ -40,3 +40,3 @@ static int d(void)
 {
-\treturn 0;
+\treturn 1;
 }
diff --git a/include/x.h b/include/x.h
--- a/include/x.h
+++ b/include/x.h
@@ -1 +1 @@
-#define X 1
+#define X 2
--
2.39.5
"""


class EditSplitTest(unittest.TestCase):
    """The edit figure's note says where its seconds went: the build, the
    suite and the report, each timed apart, and the untimed restore after
    them counts in none."""

    def test_each_step_timed_apart(self):
        ticks = iter([100.0, 103.0, 110.0, 111.5])
        steps = []

        def build(users, build_dir, top, stages=None):
            steps.append('build ' + ('edited' if top == 'edited' else 'real'))
            return 0.0

        def run(cmd, top):
            steps.append(cmd[-1] if cmd[-1] == 'report' else 'suite')
            return 0

        clock = mock.Mock(monotonic=lambda: next(ticks))
        with mock.patch.multiple(bench, _timed_build=build, _run=run,
                                 _touched_top=lambda top, series: 'edited',
                                 time=clock):
            seconds, bad, split = bench.edit_to_report('/b', '/top', 'v1',
                                                       [])
        self.assertEqual(seconds, 11.5)
        self.assertEqual(bad, 0)
        self.assertEqual(split, 'patch and build 3.0 s, suite 7.0 s, '
                         'report 1.5 s')
        self.assertEqual(steps, ['build edited', 'suite', 'report',
                                 'build real', 'suite'])

    def test_split_note(self):
        self.assertEqual(bench.split_note([('configure', 12.34),
                                           ('build', 5)]),
                         'configure 12.3 s, build 5.0 s')


class EditPatchTest(unittest.TestCase):
    """make bench's edit: one line of C in the last hunk of the last .c
    file of a patch, its hunk header counted again."""

    def test_the_last_hunk_of_the_last_c_file_gains_a_line(self):
        edited = bench.edit_patch(TWO_FILES)
        self.assertIn('@@ -40,3 +40,4 @@ static int d(void)\n+'
                      + bench.EDITED_LINE + '\n {\n', edited)
        self.assertEqual(edited.replace('+' + bench.EDITED_LINE + '\n', '')
                         .replace('+40,4 @@', '+40,3 @@'), TWO_FILES)

    def test_a_hunk_of_one_line_and_a_new_file(self):
        one = TWO_FILES.replace('@@ -40,3 +40,3 @@', '@@ -40 +40 @@')
        self.assertIn('@@ -40 +40,2 @@', bench.edit_patch(one))
        new = TWO_FILES.replace('@@ -40,3 +40,3 @@', '@@ -0,0 +1,121 @@')
        self.assertIn('@@ -0,0 +1,122 @@', bench.edit_patch(new))

    def test_a_patch_without_c_is_refused(self):
        with self.assertRaises(ValueError):
            bench.edit_patch(TWO_FILES.split('diff --git a/fs/a.c')[0])


RUN = {'measured': '2026-12-07 08:00 UTC', 'commit': 'abc1234', 'cold': True,
       'figures': [
           {'name': 'edit a v1 patch -> report', 'seconds': 31.0,
            'reference': 'target', 'reference_seconds': 20.0,
            'target': 1.0, 'ratio': 1.55, 'unit': 's',
            'note': '2 flavor(s) rebuilt and run'},
           {'name': 'cold build, default flavors', 'seconds': 1200.0,
            'reference': 'cold base', 'reference_seconds': 600.0,
            'target': 2.0, 'ratio': 2.0, 'unit': 's', 'note': ''},
           {'name': 'lava-run in v1', 'seconds': None,
            'reference': 'own suite boot', 'reference_seconds': None,
            'target': 1.5, 'ratio': None, 'unit': 's', 'note': ''}]}


class BenchTableTest(unittest.TestCase):
    """The README's timing table comes from one bench run, dated."""

    def test_each_figure_a_row_with_its_verdict(self):
        lines = bench_table.markdown(RUN)
        self.assertIn('2026-12-07 08:00 UTC at abc1234', lines[0])
        self.assertIn('bench --cold', lines[0])
        rows = [x for x in lines if x.startswith('| ')
                and not x.startswith(('| figure', '| ---'))]
        self.assertEqual(len(rows), 3)
        self.assertIn('| 31.0 s | target 20.0 s | 1.55 | <= 1.0 | over |',
                      rows[0])
        self.assertIn('20.0 min (1,200 s)', rows[1])
        self.assertTrue(rows[1].endswith('| 2.00 | <= 2.0 | met |'))
        self.assertTrue(rows[2].endswith('| - | <= 1.5 | not measured |'))

    def test_the_readme_gets_it_between_its_markers(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'README.md')
            with open(path, 'w') as f:
                f.write('# x\n\n%s\nold table\n%s\nafter\n'
                        % (bench_table.BEGIN, bench_table.END))
            self.assertTrue(bench_table.replace_in(path, ['new', 'table']))
            with open(path) as f:
                text = f.read()
            self.assertEqual(text, '# x\n\n%s\nnew\ntable\n%s\nafter\n'
                             % (bench_table.BEGIN, bench_table.END))
            self.assertFalse(bench_table.replace_in(path, ['new', 'table']))

    def test_no_markers_no_change(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'README.md')
            for text in ('no markers\n', '%s\n%s\n' % (bench_table.END,
                                                      bench_table.BEGIN)):
                with open(path, 'w') as f:
                    f.write(text)
                with self.assertRaises(HarnessError) as cm:
                    bench_table.replace_in(path, ['table'])
                self.assertIn('bench table', str(cm.exception))
                with open(path) as f:
                    self.assertEqual(f.read(), text)

    def test_the_readme_has_its_table_between_the_markers(self):
        path = os.path.join(os.path.dirname(__file__), '..', '..',
                            'README.md')
        with open(path, encoding='utf-8') as f:
            text = f.read()
        start = text.find(bench_table.BEGIN)
        end = text.find(bench_table.END)
        self.assertGreater(start, 0)
        self.assertGreater(end, start)
        self.assertIn('| figure | measured | reference |', text[start:end])

    def test_a_missing_or_broken_run_says_what_to_do(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'bench-kernels.json')
            for text in (None, '{"figures": ', '[]'):
                if text is not None:
                    with open(path, 'w') as f:
                        f.write(text)
                with self.assertRaises(HarnessError) as cm:
                    bench_table.load(path)
                self.assertIn('make bench', str(cm.exception))


if __name__ == '__main__':
    unittest.main()
