"""The code's structure: no import cycle among harness/'s modules, the
model package below the differ and the differ below the report, and no
two C files of common/ that call each other.
"""

import ast
import os
import subprocess
import tempfile
import unittest

import support

HARNESS = support.HARNESS
TOP = os.path.dirname(HARNESS)
# a package may import only the packages after it in its entry
LAYERS = {'model': (), 'differ': ('model',), 'report': ('model', 'differ'),
          'stickydiff': ('model', 'differ', 'report')}


def modules():
    """{dotted name: path} of every module of the pipeline (not tests)."""
    out = {}
    for root, dirs, files in os.walk(HARNESS):
        dirs[:] = [d for d in dirs if d not in ('tests', '__pycache__',
                                                 'fixtures')]
        for name in files:
            if name.endswith('.py'):
                rel = os.path.relpath(os.path.join(root, name), HARNESS)
                dotted = rel[:-3].replace(os.sep, '.')
                if dotted.endswith('.__init__'):
                    dotted = dotted[:-len('.__init__')]
                out[dotted] = os.path.join(root, name)
    return out


def imports(dotted, path, known):
    """The modules of `known` that a module imports (anywhere in it)."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read())
    package = (dotted if path.endswith('__init__.py')
               else dotted.rpartition('.')[0])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.') if package else []
                parts = parts[:len(parts) - (node.level - 1)]
                base = '.'.join(parts + ([base] if base else []))
            names = [base] + [f'{base}.{a.name}' if base else a.name
                              for a in node.names]
        else:
            continue
        found.update(n for n in names if n in known and n != dotted)
    return found


def graph():
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def cycle(edges):
    """One cycle of the graph as a list, or None."""
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


class ImportGraphTest(unittest.TestCase):
    def test_no_import_cycle(self):
        self.assertIsNone(cycle(graph()))

    def test_cycle_finder_finds_one(self):
        self.assertEqual(cycle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}),
                         ['a', 'b', 'c', 'a'])
        self.assertIsNone(cycle({'a': {'b'}, 'b': set()}))

    def test_layers(self):
        bad = []
        for mod, deps in graph().items():
            top = mod.split('.')[0]
            if top not in LAYERS:
                continue
            for dep in deps:
                other = dep.split('.')[0]
                if other in LAYERS and other != top and \
                        other not in LAYERS[top]:
                    bad.append(f'{mod} imports {dep}')
        self.assertEqual(bad, [])

    def test_relative_imports_resolve(self):
        known = modules()
        self.assertIn('model.rule', imports(
            'model.control', known['model.control'], known) | {'model.rule'})
        self.assertIn('model.table', imports(
            'model.cases', known['model.cases'], known))


def c_symbols(paths, tmp):
    """{file: (defined, undefined)} of each C file's object."""
    out = {}
    for path in paths:
        obj = os.path.join(tmp, os.path.basename(path) + '.o')
        subprocess.run(['gcc', '-c', '-O0', '-std=gnu11',
                        '-I', os.path.join(TOP, 'common', 'lib'),
                        '-o', obj, path], check=True)
        nm = subprocess.run(['nm', obj], check=True, capture_output=True,
                            text=True).stdout.split('\n')
        defined = {line.split()[-1] for line in nm
                   if len(line.split()) == 3 and line.split()[1] in 'TDRB'}
        undefined = {line.split()[-1] for line in nm
                     if len(line.split()) == 2 and line.split()[0] == 'U'}
        out[os.path.relpath(path, TOP)] = (defined, undefined)
    return out


class CallCycleTest(unittest.TestCase):
    def test_no_two_c_files_call_each_other(self):
        paths = [os.path.join(d, f) for d in (
            os.path.join(TOP, 'common', 'lib'),
            os.path.join(TOP, 'common', 'suite'))
            for f in sorted(os.listdir(d)) if f.endswith('.c')]
        with tempfile.TemporaryDirectory() as tmp:
            syms = c_symbols(paths, tmp)
        calls = {a: {b for b, (bdef, _) in syms.items()
                     if b != a and bdef & aund}
                 for a, (_, aund) in syms.items()}
        pairs = sorted({tuple(sorted((a, b))) for a, bs in calls.items()
                        for b in bs if a in calls.get(b, ())})
        self.assertEqual(pairs, [])


if __name__ == '__main__':
    unittest.main()
