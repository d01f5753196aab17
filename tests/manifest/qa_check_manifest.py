#!/usr/bin/env python3
# scripts/check-manifest: the project's MANIFEST.md passes, and each kind of
# defect in a copy of it is refused with its field named.
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.environ.get("BSID_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(TOP, "scripts", "check-manifest")


def check(path):
    return subprocess.run([sys.executable, CHECK, path], capture_output=True, text=True)


class check_manifest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.dir, "docs"))
        shutil.copy(os.path.join(TOP, "docs", "icon.png"), os.path.join(self.dir, "docs"))
        with open(os.path.join(TOP, "MANIFEST.md"), encoding="utf-8") as f:
            self.text = f.read()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def refused(self, text, field):
        path = os.path.join(self.dir, "MANIFEST.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        r = check(path)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn(field, r.stderr)

    def test_project_manifest_passes(self):
        r = check(os.path.join(TOP, "MANIFEST.md"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("valid", r.stdout)

    def test_each_field_required(self):
        for field in ("title", "brief", "tags", "author", "copyright_owner", "license",
                      "gr_supported_version", "repo", "website", "icon"):
            lines = self.text.split("\n")
            start = next(i for i, l in enumerate(lines) if l.startswith(field + ":"))
            end = start + 1
            while end < len(lines) and lines[end].startswith("  - "):
                end += 1
            with self.subTest(field=field):
                self.refused("\n".join(lines[:start] + lines[end:]), field)

    def test_bad_values(self):
        t = self.text
        self.refused(t.replace("gr_supported_version: v3.10", "gr_supported_version: 3.10"),
                     "gr_supported_version")
        self.refused(t.replace("license: GPL-3.0-or-later", "license: GNU GPL v3"), "license")
        self.refused(t.replace("repo: https://", "repo: http://"), "repo")
        self.refused(t.replace("tags:\n", "tags: sdr\n", 1), "tags")
        self.refused(t.replace("docs/icon.png", "docs/no-icon.png"), "icon")
        self.refused(t.replace("title: gr-bsid", "title: [gr-bsid"), "YAML")
        self.refused(t.replace("\n---\n", "\n"), "---")
        self.refused(t.split("\n---\n")[0] + "\n---\n\n", "description")
        self.refused(t.replace("brief:", "extra: 1\nbrief:"), "extra")

    def test_icon_must_be_square_png(self):
        icon = os.path.join(self.dir, "docs", "icon.png")
        with open(icon, "wb") as f:
            f.write(b"GIF89a" + bytes(40))
        self.refused(self.text, "not a PNG")
        with open(os.path.join(TOP, "docs", "icon.png"), "rb") as f:
            png = bytearray(f.read())
        png[20:24] = (128).to_bytes(4, "big")  # height 128, width 256
        with open(icon, "wb") as f:
            f.write(png)
        self.refused(self.text, "not square")


if __name__ == "__main__":
    unittest.main()
