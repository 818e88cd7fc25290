"""The build: environment switches take effect over an earlier build folder."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def build(tree, **env):
    """`setup.py build_ext` in `tree` (unoptimised, CPU only: quick); returns its log."""
    env = dict({k: v for k, v in os.environ.items() if k != "ASTAROTH_PORTABLE"},
               ASTAROTH_NO_CUDA="1", ASTAROTH_CFLAGS="-O0", **env)
    out = subprocess.run([sys.executable, "setup.py", "build_ext", "--build-temp", "T", "--build-lib", "L"],
                         cwd=str(tree), env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + out.stderr


def compiled(log):
    """The C compiler lines of a build log (empty when the build was skipped as up to date)."""
    return [line for line in log.splitlines() if " -c csrc/" in line]


def test_portable_build_over_an_earlier_native_build_recompiles(tmp_path):
    pytest.importorskip("setuptools")
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    tree = tmp_path / "src"
    tree.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md", "csrc", "astaroth"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, tree / name)
    native = compiled(build(tree))
    if not any("-march=native" in line for line in native):
        pytest.skip("this compiler takes no -march=native")
    portable = compiled(build(tree, ASTAROTH_PORTABLE="1"))
    assert portable and not any("-march=native" in line for line in portable)  # not the old build reused
    assert compiled(build(tree, ASTAROTH_PORTABLE="1")) == []  # unchanged flags: nothing to redo
