"""kernel/seriesbuild.py: a prefix of a series is configured without the
symbols only its left-out patches define, and with every other line."""

import os
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
import flavors as flv
from kernel import kbuild, seriesbuild

KCONFIG_PATCH = """Subject: [PATCH 2/2] add a module
--- a/security/Kconfig
+++ b/security/Kconfig
@@ -1,3 +1,9 @@
+config SECURITY_NEWLSM
+\tbool "a new LSM"
+\tdepends on SECURITY
+
+menuconfig NEWLSM_EXTRAS
+\tbool "extras"
 config SECURITY_OLD
"""


class PrefixTest(unittest.TestCase):
    def test_symbols_of_later_patches_leave_the_prefix_config(self):
        with tempfile.TemporaryDirectory() as tmp:
            later = os.path.join(tmp, "0002.patch")
            with open(later, "w") as f:
                f.write(KCONFIG_PATCH)
            self.assertEqual(kbuild.defined_symbols([later]),
                             {"SECURITY_NEWLSM", "NEWLSM_EXTRAS"})
        lines = ("CONFIG_SECURITY=y", "CONFIG_SECURITY_NEWLSM=y",
                 "# CONFIG_NEWLSM_EXTRAS is not set",
                 "CONFIG_SECURITY_NEWLSM_DEBUG=y")
        self.assertEqual(
            seriesbuild._without(lines, {"SECURITY_NEWLSM", "NEWLSM_EXTRAS"}),
            ("CONFIG_SECURITY=y", "CONFIG_SECURITY_NEWLSM_DEBUG=y"))

    def test_the_project_series(self):
        """owlsm's patch 1 is built without SECURITY_OWLSM, which its
        patch 2 adds; yama's keeps SECURITY_YAMA, which 6.1 has."""
        every = flv.load()
        prefixes = dict(seriesbuild.prefixes(every["owlsm"], flv.TOP))
        self.assertEqual(prefixes["owlsm@1"].config, ("CONFIG_SECURITY=y",))
        self.assertIn("CONFIG_SECURITY_OWLSM=y", every["owlsm"].config)
        prefixes = dict(seriesbuild.prefixes(every["yama"], flv.TOP))
        self.assertEqual(prefixes["yama@1"].config, every["yama"].config)


if __name__ == "__main__":
    unittest.main()
