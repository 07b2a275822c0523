"""Command line: check, diff, report, compare, bless."""

import argparse
import os
import sys

from differ import regress
from report import apart
from report import casepages
from report import build as report
from report.build import TOP
from report.files import write_if_changed
from differ.analysis import analyse
from differ.control_summary import control_error_lines, control_lines
from differ.load import LoadError, present_flavors
from differ.summary import check_lines, flavor_lines, pair_lines, summary


def _parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m stickydiff",
        description="Explain the sticky-symlink flavors' results.")
    parser.add_argument("command", choices=("check", "diff", "report",
                                            "compare", "bless"))
    parser.add_argument("--results", default="build/results",
                        help="directory of <flavor>.json (%(default)s)")
    parser.add_argument("--expected", default="results/expected",
                        help="committed expectations (%(default)s)")
    parser.add_argument("--out", default="results",
                        help="report directory (%(default)s)")
    parser.add_argument("--range-diff", default="build/range-diff",
                        help="directory of the lineage steps' range-diffs,"
                        " A..B.txt (%(default)s)")
    parser.add_argument("--committed-range-diff",
                        default="results/range-diff",
                        help="their committed copies, read when the former"
                        " holds none (a fresh clone) and written by bless"
                        " (%(default)s)")
    parser.add_argument("--section", action="append", default=[],
                        help="a Markdown file embedded in the report "
                        "(repeatable; skipped with a note when absent)")
    return parser


def _no_results(analysis, out):
    if analysis.files or analysis.load_errors:
        return False
    print("no result files in %s; nothing to check" % analysis.results_dir,
          file=out)
    return True


def cmd_check(args, out):
    analysis = analyse(args.results, full=False)
    if _no_results(analysis, out):
        return 0
    print("model vs observation (%s):" % args.results, file=out)
    print("\n".join(flavor_lines(analysis)), file=out)
    print("\n".join(control_lines(analysis)), file=out)
    problems = check_lines(analysis) + control_error_lines(analysis)
    if problems:
        print("FAIL: what the model does not explain:", file=out)
        print("\n".join(problems), file=out)
        return 1
    print("OK: every case explained", file=out)
    return 0


def cmd_diff(args, out):
    analysis = analyse(args.results)
    if _no_results(analysis, out):
        return 0
    print("\n".join(pair_lines(analysis)), file=out)
    for pair_diff in analysis.diffs:
        for group in sorted(pair_diff.differ.values(),
                            key=lambda g: (-g.count, g.cause)):
            print("\n%s / %s: %d" % (pair_diff.pair.title, group.cause,
                                     group.count), file=out)
            for row in group.rows:
                print("  " + row.describe(pair_diff.pair), file=out)
    for error in analysis.join_errors:
        print("join error: " + error, file=out)
    failed = analysis.join_errors or analysis.load_errors or any(
        d.unexplained for d in analysis.diffs)
    return 1 if failed else 0


def read_sections(paths, results_dir=None):
    """[(path, text)]: each section file, the copy in `results_dir` (a
    fresh run's) preferred over the committed one."""
    sections = []
    for path in paths:
        fresh = (os.path.join(results_dir, os.path.basename(path))
                 if results_dir else None)
        if fresh and os.path.exists(fresh):
            path = fresh
        try:
            with open(path, encoding="utf-8") as stream:
                sections.append((path, stream.read()))
        except FileNotFoundError:
            sections.append((path, "(%s is absent: run `make attack` and "
                                   "`make bench` to produce it)" % path))
    return sections


def report_source(args):
    """(results dir, note, fresh): the run's results when there are any,
    else the committed ones."""
    if present_flavors(args.results) or not present_flavors(args.expected):
        return args.results, "", True
    return args.expected, ("the committed results; no run in %s"
                           % args.results), False


def cmd_report(args, out):
    directory, note, fresh = report_source(args)
    analysis = analyse(directory, args.range_diff,
                       committed_range_diff=args.committed_range_diff,
                       keep_child=True)
    analysis.source_note = note
    analysis.sections = read_sections(args.section,
                                      args.results if fresh else None)
    analysis.expected_dir = args.expected
    if fresh and os.path.isdir(args.expected):
        analysis.regression = regress.compare(args.results, args.expected,
                                              analysis.files)
    document = report.build(analysis, apart=analysis.child is not None)
    document.top = os.path.relpath(TOP, os.path.abspath(args.out)) + "/"
    os.makedirs(args.out, exist_ok=True)
    paths = []
    work = apart.hand_over(analysis, document, args.out)
    skip = (casepages.PAGE,) if work else ()
    pages = [module.pages(document, skip) for module in apart.RENDERERS]
    if work:
        document.files.update(apart.scripts(analysis, document))
    for directory in {os.path.dirname(n) for n in document.files} - {""}:
        # the report's own directory of files: what this run did not
        # write is last run's
        here = os.path.join(args.out, directory)
        os.makedirs(here, exist_ok=True)
        for name in sorted(os.listdir(here)):
            if os.path.join(directory, name) not in document.files:
                os.unlink(os.path.join(here, name))
    for name, text in sorted(document.files.items()):
        write_if_changed(os.path.join(args.out, name), text)
    if document.files:
        paths.append("%s (%d files)" % (os.path.join(
            args.out, os.path.dirname(min(document.files))),
            len(document.files)))
    for texts in pages:
        for name, text in texts.items():
            path = os.path.join(args.out, name)
            if text is not None:        # else written apart
                write_if_changed(path, text)
            paths.append(path)
    if work:
        apart.written(pages, work.next())
        work.close()
    print(summary(analysis, paths), file=out)
    return 1 if analysis.verdict == "FAIL" else 0


def cmd_compare(args, out):
    changes = regress.compare(args.results, args.expected)
    for flavor in regress.not_run(args.results, args.expected):
        print("regress: %s not run (an extra flavor: `python3 harness/"
              "sticky.py build %s` and `... suite %s` run it); not "
              "compared" % (flavor, flavor, flavor), file=out)
    if not regress.flavors_on_either_side(args.results, args.expected):
        print("regress: no result files in %s or %s; nothing to compare"
              % (args.results, args.expected), file=out)
        return 0
    if not changes:
        print("regress: results in %s match %s" % (args.results,
                                                   args.expected), file=out)
        print("verdict: OK", file=out)
        return 0
    print("regress: results differ from %s" % args.expected, file=out)
    print(regress.format_report(changes), file=out)
    print("verdict: FAIL (%d flavor(s) changed; `make bless` after reading"
          " every line)" % len(changes), file=out)
    return 1


def cmd_bless(args, out):
    blessed = regress.bless(args.results, args.expected)
    for path in args.section:
        fresh = os.path.join(args.results, os.path.basename(path))
        if os.path.exists(fresh):
            for line in regress.bless_file(fresh, path):
                print(line, file=out)
    for line in regress.bless_dir(args.range_diff, args.committed_range_diff,
                                  ".txt"):
        print(line, file=out)
    if not blessed:
        print("bless: no result files in %s" % args.results, file=out)
        return 0
    for flavor, changes in blessed.items():
        print("blessed %s: %s" % (flavor, "%d change(s)" % len(changes)
                                  if changes else "unchanged"), file=out)
    changed = {f: c for f, c in blessed.items() if c}
    if changed:
        print(regress.format_report(changed), file=out)
    return 0


COMMANDS = {"check": cmd_check, "diff": cmd_diff, "report": cmd_report,
            "compare": cmd_compare, "bless": cmd_bless}


def main(argv=None, out=None):
    args = _parser().parse_args(argv)
    out = out or sys.stdout
    try:
        return COMMANDS[args.command](args, out)
    except LoadError as err:
        print("error: %s" % err, file=out)
        return 2
    except OSError as err:
        print("error: could not write %s: %s; it is as it was before this "
              "run (files are written whole or not at all). Free space and "
              "run the command again" % (err.filename, err.strerror),
              file=out)
        return 2
