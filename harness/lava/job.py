"""A LAVA job for one flavor's kernel, as data, and its YAML.

The job boots the flavor's bzImage with its suite initramfs (the one whose
expectations the guest judges against) on LAVA's `qemu` device type under
TCG, with "sticky.lab=1" on the kernel command line: the guest's /init then
keeps the whole KTAP document on the single console and powers off at the
end (common/init/init.c). A `monitors` test action records one result per
KTAP line ("ok N - <name>" or "not ok N - <name>", at any depth), from the
first "KTAP version 1" to kselftest's "# Totals:" line. The name group runs
to the end of the line, so a directive ("# XFAIL <why>") stays in the
result's test_case_id: XFAILs remain visible in LAVA's results. LAVA
matches the pattern against what the console has printed so far, so the
pattern must end with the line's end, or it records a name cut where the
read stopped; the console reaches LAVA as "\\r\\r\\n", so it ends with the
first \\r (a "\\r?\\n" would never match and drop every line).
"""

import json

MONITOR_NAME = 'sticky-suite'
START = 'KTAP version 1'
END = '# Totals: '
PATTERN = r'(?P<result>not ok|ok) \d+ - (?P<test_case_id>[^\r\n]+)\r'
FIXUP = {'ok': 'pass', 'not ok': 'fail'}
# the project's own boots (boot/qemu.py) use the same words, but the lab's
# console is its only channel: loglevel=1 keeps kernel messages from
# splitting a KTAP line (the suite reads them from /dev/kmsg).
CMDLINE = ('console=ttyS0,115200 panic=-1 loglevel=1 printk.devkmsg=on '
           'audit=1 sticky.lab=1')
# qemu.jinja2 adds -cpu host -enable-kvm for amd64 unless no_kvm is set;
# extra_options end up after its own options.
CONTEXT = {'arch': 'amd64', 'no_kvm': True, 'memory': 256,
           'extra_options': ['-machine pc', '-cpu qemu64', '-smp 1',
                             '-no-reboot']}


def definition(flavor, kernel_url, ramdisk_url, metadata, minutes=10,
               expect_label=None):
    """The job of one flavor as a dict (lava_common's schema)."""
    name = f'sticky-symlinks {flavor}'
    if expect_label:
        name += f' (expectations of {expect_label})'
    return {
        'device_type': 'qemu',
        'job_name': name,
        'priority': 'medium',
        'visibility': 'public',
        'timeouts': {'job': {'minutes': minutes + 5},
                     'action': {'minutes': minutes},
                     'connection': {'minutes': 2}},
        'metadata': {k: str(v) for k, v in metadata.items()},
        'context': dict(CONTEXT),
        'actions': [
            {'deploy': {
                'to': 'tmpfs',
                'timeout': {'minutes': 2},
                'images': {
                    'kernel': {
                        'image_arg': f"-kernel {{kernel}} -append '{CMDLINE}'",
                        'url': kernel_url},
                    'ramdisk': {'image_arg': '-initrd {ramdisk}',
                                'url': ramdisk_url}}}},
            {'boot': {'method': 'qemu', 'media': 'tmpfs',
                      'timeout': {'minutes': 2}}},
            {'test': {
                'timeout': {'minutes': minutes},
                'monitors': [{'name': MONITOR_NAME, 'start': START,
                              'end': END, 'pattern': PATTERN,
                              'fixupdict': dict(FIXUP)}]}},
        ],
    }


def url(base, path, root):
    """An artifact's URL: file:// here, or under a lab's base URL (the
    path relative to the build directory `root`)."""
    if not base:
        return 'file://' + path
    rel = path[len(root):].lstrip('/') if path.startswith(root) else path
    return base.rstrip('/') + '/' + rel


def to_yaml(obj, indent=0):
    """Block-style YAML of dicts, lists, strings, numbers and booleans;
    strings are double-quoted (JSON's escapes are YAML's)."""
    pad = ' ' * indent
    if isinstance(obj, dict):
        if not obj:
            return '{}'
        lines = []
        for key, value in obj.items():
            if isinstance(value, (dict, list)) and value:
                lines.append(f'{pad}{key}:\n{to_yaml(value, indent + 2)}')
            else:
                lines.append(f'{pad}{key}: {to_yaml(value)}')
        return '\n'.join(lines)
    if isinstance(obj, list):
        if not obj:
            return '[]'
        lines = []
        for value in obj:
            if isinstance(value, dict) and value:
                inner = to_yaml(value, indent + 2)
                lines.append(f'{pad}- {inner.lstrip()}')
            elif isinstance(value, list) and value:
                lines.append(f'{pad}-\n{to_yaml(value, indent + 2)}')
            else:
                lines.append(f'{pad}- {to_yaml(value)}')
        return '\n'.join(lines)
    if isinstance(obj, bool):
        return 'true' if obj else 'false'
    if isinstance(obj, (int, float)):
        return str(obj)
    return json.dumps(str(obj))
