"""Build astaroth's C extension (and, from issue 3 on, its CUDA backend).

The CPU backend is always built: C99 with OpenMP when the compiler has it.
The C flags tune for the building machine (-march=native), as HPC codes
built from source do; set ASTAROTH_PORTABLE=1 for a build that runs on any
x86-64 (slower: no AVX2/FMA).
Environment:
  ASTAROTH_CFLAGS        extra C compiler flags
  ASTAROTH_PORTABLE=1    no -march=native
  ASTAROTH_NO_OPENMP=1   build without OpenMP
"""
import os
import shlex
import subprocess
import sys
import tempfile

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

C_SOURCES = [
    "csrc/module.c",
    "csrc/cpu/cpu_backend.c",
    "csrc/cpu/kernels_f32.c",
    "csrc/cpu/kernels_f64.c",
]


def compiler_accepts(compiler, flag):
    """True when the C compiler builds a trivial file with `flag`."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        try:
            compiler.compile([src], output_dir=tmp, extra_postargs=[flag])
            return True
        except Exception:
            return False


class BuildExt(build_ext):
    def build_extensions(self):
        # -fno-wrapv undoes Python's -fwrapv, which stops GCC vectorising the
        # stencil loops; contraction to FMA is what the GPU does too.
        flags = ["-std=c99", "-O3", "-fno-math-errno", "-fno-wrapv", "-ffp-contract=fast"]
        link = []
        if os.environ.get("ASTAROTH_PORTABLE") != "1" and compiler_accepts(self.compiler, "-march=native"):
            flags.append("-march=native")
        if os.environ.get("ASTAROTH_NO_OPENMP") != "1" and compiler_accepts(self.compiler, "-fopenmp"):
            flags.append("-fopenmp")
            link.append("-fopenmp")
        else:
            print("astaroth: building the CPU backend without OpenMP", file=sys.stderr)
        flags += shlex.split(os.environ.get("ASTAROTH_CFLAGS", ""))
        for ext in self.extensions:
            ext.extra_compile_args = flags + ext.extra_compile_args
            ext.extra_link_args = link + ext.extra_link_args
        super().build_extensions()


setup(
    ext_modules=[
        Extension(
            "astaroth._core",
            sources=C_SOURCES,
            include_dirs=["csrc", numpy.get_include()],
            depends=[os.path.join(d, f) for d in ("csrc", "csrc/cpu") for f in os.listdir(d) if f.endswith(".h")],
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
