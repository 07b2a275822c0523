"""The device dictionary of a local QEMU device, rendered from lava-server's
own device-type templates (qemu.jinja2 extends base.jinja2).

lava-server is not installed (it pulls in Django and PostgreSQL): its
package is fetched with `apt-get download` and unpacked under
build/lava/lava-server, which holds usr/share/lava-server/device-types.
A lab's server renders a device's dictionary with the job's context; so
does render() here, so that the device lava-run gets is the one a lab
would build for the same job.
"""

import glob
import os
import subprocess

from stages import HarnessError

TEMPLATES = os.path.join('usr', 'share', 'lava-server', 'device-types')
# A local QEMU device: nothing but the template and the job's context.
DICTIONARY = "{% extends 'qemu.jinja2' %}\n"


def templates(build_dir):
    """The device-types directory, fetched once from lava-server's
    package."""
    root = os.path.join(build_dir, 'lava', 'lava-server')
    path = os.path.join(root, TEMPLATES)
    if os.path.isfile(os.path.join(path, 'qemu.jinja2')):
        return path
    os.makedirs(root, exist_ok=True)
    res = subprocess.run(['apt-get', 'download', 'lava-server'], cwd=root,
                         capture_output=True, text=True)
    debs = glob.glob(os.path.join(root, 'lava-server_*.deb'))
    if res.returncode or not debs:
        raise HarnessError('cannot fetch lava-server\'s device templates '
                           f'(apt-get download lava-server in {root}): '
                           f'{res.stderr.strip()[-300:]}; check the apt '
                           'sources, or unpack the package there by hand')
    subprocess.run(['dpkg-deb', '-x', debs[0], root], check=True)
    if not os.path.isfile(os.path.join(path, 'qemu.jinja2')):
        raise HarnessError(f'{debs[0]} holds no {TEMPLATES}/qemu.jinja2')
    return path


def render(template_dir, context):
    """The device's YAML for a job with this context."""
    try:
        import jinja2
    except ImportError:
        raise HarnessError('the LAVA steps need jinja2 (Debian: '
                           'python3-jinja2, installed with lava-dispatcher)'
                           ) from None
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir),
                             autoescape=False, trim_blocks=True)
    return env.from_string(DICTIONARY).render(**context)
