"""kernel/kbuild.py configure(): a tree seeded from one whose
configuration it gives alike takes the seed's .config (equal fragments)
or the seed's tinyconfig output (other fragments); any other tree, and
an attempt that did not finish, runs all three steps."""

import os
import shutil
import subprocess
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on the path)
from kernel import kbuild
from kernel import seed
from stages import HarnessError

TINY = "CONFIG_TINY_FROM_KCONFIG=y\n"


class FakeKconfig:
    """The three steps as files: tinyconfig writes TINY, merge_config
    appends the fragment, syncconfig appends a default."""

    def __init__(self, obj, fail=None):
        self.obj, self.fail, self.steps = obj, fail, []

    def __call__(self, cmd, cwd, **_):
        step = ("merge" if cmd[0].endswith("merge_config.sh")
                else cmd[-1])
        self.steps.append(step)
        cfg = os.path.join(self.obj, ".config")
        if step == self.fail:
            return subprocess.CompletedProcess(cmd, 1, "", "failed")
        if step == "tinyconfig":
            text = TINY
        else:
            with open(cfg, encoding="utf-8") as f:
                text = f.read()
            if step == "merge":
                with open(cmd[-1], encoding="utf-8") as f:
                    text += f.read()
            else:
                text += "CONFIG_A_DEFAULT=y\n"
        with open(cfg, "w", encoding="utf-8") as f:
            f.write(text)
        return subprocess.CompletedProcess(cmd, 0, "", "")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class ConfigureTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.seed_obj = self.obj("seed")
        self.assertEqual(self.configure(self.seed_obj, ()),
                         ["tinyconfig", "merge", "syncconfig"])

    def obj(self, name):
        return os.path.join(self.dir, name, "obj")

    def configure(self, obj, extra, alike=False, fail=None):
        fake = FakeKconfig(obj, fail)
        kbuild.configure(os.path.join(self.dir, "src"), obj, extra,
                         self.dir, run=fake, alike=alike)
        return fake.steps

    def seeded(self, name, differ=("fs/namei.c",)):
        """A copy of the seed's objects, as seed.seed() leaves it."""
        obj = self.obj(name)
        shutil.copytree(self.seed_obj, obj)
        os.unlink(os.path.join(obj, ".config.inputs"))
        with open(os.path.join(obj, seed.STAMP), "w",
                  encoding="utf-8") as f:
            f.write("seed 1.0\n" + "".join(p + "\n" for p in differ))
        return obj

    def test_a_first_configure_keeps_tinyconfigs_output(self):
        self.assertEqual(read(os.path.join(self.seed_obj, kbuild.TINY)),
                         TINY)
        self.assertFalse(os.path.exists(os.path.join(self.seed_obj,
                                                     ".config.attempt")))

    def test_equal_fragments_take_the_seeds_config(self):
        obj = self.seeded("v2")
        self.assertTrue(seed.config_alike(obj))
        self.assertEqual(self.configure(obj, (), alike=True), [])
        self.assertEqual(read(os.path.join(obj, ".config")),
                         read(os.path.join(self.seed_obj, ".config")))

    def test_other_fragments_start_from_the_seeds_tinyconfig(self):
        obj = self.seeded("v1")
        lines = ("CONFIG_SECURITY_EXTRA=y",)
        self.assertEqual(self.configure(obj, lines, alike=True),
                         ["merge", "syncconfig"])
        fresh = self.obj("fresh")
        self.assertEqual(self.configure(fresh, lines),
                         ["tinyconfig", "merge", "syncconfig"])
        self.assertEqual(read(os.path.join(obj, ".config")),
                         read(os.path.join(fresh, ".config")))

    def test_not_alike_runs_every_step(self):
        obj = self.seeded("v3", ("fs/Kconfig", "fs/namei.c"))
        self.assertFalse(seed.config_alike(obj))
        self.assertEqual(self.configure(obj, (), alike=False),
                         ["tinyconfig", "merge", "syncconfig"])

    def test_an_unfinished_attempt_is_no_seed(self):
        obj = self.seeded("v1")
        with self.assertRaisesRegex(HarnessError, "configure failed"):
            self.configure(obj, ("CONFIG_X=y",), alike=True,
                           fail="syncconfig")
        self.assertEqual(self.configure(obj, (), alike=True),
                         ["tinyconfig", "merge", "syncconfig"])

    def test_which_files_leave_the_configuration_alike(self):
        for paths, alike in (
                (("fs/namei.c", "include/linux/fs.h", "MAINTAINERS",
                  "Documentation/admin-guide/sysctl/fs.rst"), True),
                (("fs/namei.c", "security/yama/Kconfig"), False),
                (("scripts/kconfig/conf.c",), False),
                (("kernel/configs/tiny.config",), False),
                (("fs/Makefile",), False)):
            obj = self.seeded("x", paths)
            self.assertEqual(seed.config_alike(obj), alike, paths)
            shutil.rmtree(os.path.dirname(obj))
        self.assertFalse(seed.config_alike(self.seed_obj))   # no record


if __name__ == "__main__":
    unittest.main()
