"""Coccinelle's report-mode scripts on the C files a series touches.

Every script of the tree's scripts/coccinelle that declares `virtual
report` (and is not written in OCaml: spatch needs an OCaml compiler for
those) runs (spatch -D report, with its own `// Options:` as
scripts/coccicheck adds them) on each .c file a flavor's patches change,
in the flavor's tree and in the base tree. A finding is the file, the
script and its message, line and column numbers dropped; static-check
fails a flavor whose file has a finding the base's lacks (multisets).

Each file content's findings are kept in build/cocci/<digest>.json, the
digest naming the content, its path, every script, spatch's version and
this module, so only a changed file is checked again. The files not kept
run together, one spatch per script, two scripts at a time.
"""

import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess

from stages import HarnessError

FOUND = re.compile(r'^(?P<path>[^\s:][^:]*):(?P<line>\d+):[\d-]+: '
                   r'(?P<msg>.*)$')
LINES = re.compile(r'\b(lines?) \d+(?:[-, ]+\d+)*')
OPTIONS = re.compile(r'^// Options:(.*)$', re.M)
BASE_OPTIONS = ['-D', 'report', '--very-quiet', '--no-show-diff',
                '--timeout', '120']
DEFAULT_INCLUDES = ['--no-includes', '--include-headers']


def spatch():
    path = shutil.which('spatch')
    if not path:
        raise HarnessError('spatch not found: install coccinelle (`apt-get '
                           'install coccinelle`, or `make deps`)')
    return path


def scripts(src):
    """[(path, options)]: the report-mode scripts of a tree, sorted."""
    out = []
    for path in sorted(glob.glob(os.path.join(os.path.abspath(src),
                                              'scripts', 'coccinelle',
                                              '*', '*.cocci'))):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        # scripts in OCaml need an OCaml compiler, which coccinelle's
        # package does not pull in
        if (not re.search(r'^virtual\s+report\b', text, re.M) or
                re.search(r'^@\s*(script|initialize|finalize):ocaml', text,
                          re.M)):
            continue
        m = OPTIONS.search(text)
        opts = m.group(1).split() if m else []
        if not any(o.startswith('--no-includes') or
                   o.startswith('--include') or o == '--all-includes'
                   for o in opts):
            opts = DEFAULT_INCLUDES + opts
        out.append((path, opts))
    return out


def tool_key(src):
    """What every finding depends on besides the file: the scripts,
    spatch's version and this module."""
    h = hashlib.sha256()
    res = subprocess.run([spatch(), '--version'], capture_output=True,
                         text=True)
    h.update(res.stdout.encode())
    for path, opts in scripts(src):
        with open(path, 'rb') as f:
            h.update(os.path.basename(path).encode() + f.read())
        h.update(' '.join(opts).encode())
    with open(__file__, 'rb') as f:
        h.update(f.read())
    return h.hexdigest()


def normalise(output, script):
    """'file: script: message' per finding, numbers of lines dropped."""
    name = os.path.splitext(os.path.basename(script))[0]
    found = []
    for line in output.splitlines():
        m = FOUND.match(line.strip())
        if m:
            found.append((m.group('path'), f'{name}: '
                          + LINES.sub(r'\1 N', m.group('msg').strip())))
    return found


def _digest(key, rel, content):
    return hashlib.sha256(key.encode() + rel.encode() + b'\0'
                          + content).hexdigest()[:32]


def findings(files, build, src_of_scripts):
    """{(tree, rel): [finding]} for every (tree, rel path) in files."""
    key = tool_key(src_of_scripts)
    cache = os.path.join(build, 'cocci')
    work = os.path.join(cache, 'in')
    todo, out, digest_of = {}, {}, {}
    for tree, rel in files:
        with open(os.path.join(tree, rel), 'rb') as f:
            content = f.read()
        d = _digest(key, rel, content)
        digest_of[(tree, rel)] = d
        try:
            with open(os.path.join(cache, d + '.json'),
                      encoding='utf-8') as f:
                out[(tree, rel)] = json.load(f)
            continue
        except (OSError, ValueError):
            pass
        todo[d] = (rel, content)
    if todo:
        for d, found in _run(todo, work, src_of_scripts).items():
            path = os.path.join(cache, d + '.json')
            with open(path + '.tmp', 'w', encoding='utf-8') as f:
                json.dump(found, f)
            os.replace(path + '.tmp', path)
        for pair, d in digest_of.items():
            if pair not in out:
                with open(os.path.join(cache, d + '.json'),
                          encoding='utf-8') as f:
                    out[pair] = json.load(f)
    return out


def _run(todo, work, src):
    """Runs every script over the files of todo {digest: (rel, content)},
    each laid out as work/<digest>/<rel>; {digest: [finding]}."""
    shutil.rmtree(work, ignore_errors=True)
    paths = {}
    for d, (rel, content) in todo.items():
        path = os.path.join(work, d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(content)
        paths[d] = path
    exe = spatch()

    def one(item):
        script, opts = item
        res = subprocess.run([exe] + BASE_OPTIONS + opts +
                             ['--cocci-file', script] + list(paths.values()),
                             capture_output=True, text=True, cwd=work)
        if res.returncode:
            raise HarnessError(f'spatch --cocci-file {script} failed:\n'
                               f'{res.stderr[-1500:]}')
        return normalise(res.stdout, script)

    found = {d: [] for d in todo}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for result in pool.map(one, scripts(src)):
            for path, text in result:
                rel = os.path.relpath(os.path.join(work, path), work)
                d, _, inner = rel.partition(os.sep)
                if d in found:
                    found[d].append(f'{inner}: {text}')
    shutil.rmtree(work, ignore_errors=True)
    return found
