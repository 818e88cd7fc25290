"""Build astaroth's C extension and, when nvcc is found, its CUDA backend.

The CPU backend is always built: C99 with OpenMP when the compiler has it.
The CUDA backend is compiled by nvcc (found on PATH or in $CUDA_HOME/bin)
for sm_90 plus PTX, and linked with the static CUDA runtime, so the module
imports on machines without a GPU or driver (ac.backends() then says "cpu").
The C flags tune for the building machine (-march=native), as HPC codes
built from source do; set ASTAROTH_PORTABLE=1 for a build that runs on any
x86-64 (slower: no AVX2/FMA).
Environment:
  ASTAROTH_CFLAGS        extra C compiler flags
  ASTAROTH_PORTABLE=1    no -march=native
  ASTAROTH_NO_OPENMP=1   build without OpenMP
  ASTAROTH_CUDA_ARCH     CUDA architectures, e.g. "80;90" (default "90"):
                         machine code for each, PTX for the last
  ASTAROTH_NO_CUDA=1     CPU-only build even where nvcc exists
  ASTAROTH_BUILD_JOBS    how many CUDA files nvcc compiles at once (default:
                         the number of cores)
  ASTAROTH_CUDART=shared link the shared CUDA runtime (default: static, so
                         the module imports where libcudart is absent)
  ASTAROTH_TUNING=1      also build the tile-tuning instances of the 55-point
                         kernel (csrc/cuda/schedules.cuh), which
                         ASTAROTH_STREAM_TILE and scripts/tune-tiles.py pick
  ASTAROTH_NO_BUILD_CACHE=1  compile even where build/astaroth-cache holds
                         the extension of the same sources and flags
  MPICC                  the MPI compiler wrapper (default: mpicc on PATH) that
                         builds astaroth._split, the steps of a grid split
                         over MPI ranks in C (csrc/split/); without one a split
                         run steps from Python
A build keeps its extension in build/astaroth-cache/, under a hash of every
file in csrc/, the flags, the compilers and the Python and NumPy versions: a
later install (e.g. pip install ".[test]" after pip install ".") with all of
those unchanged copies it from there instead of compiling again.
"""
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CUDA_SOURCES = [  # the longest to compile first: they are compiled side by side
    "csrc/cuda/kernels_f64.cu",
    "csrc/cuda/kernels_f32.cu",
    "csrc/cuda/ops_f32.cu",
    "csrc/cuda/ops_f64.cu",
    "csrc/cuda/timeseries.cu",
    "csrc/cuda/cuda_backend.cu",
]

C_SOURCES = [
    "csrc/binding/module.c",
    "csrc/binding/grid_object.c",
    "csrc/binding/parameters.c",
    "csrc/binding/array_export.c",
    "csrc/binding/forcing_binding.c",
    "csrc/binding/ensemble_binding.c",
    "csrc/binding/ops_binding.c",
    "csrc/binding/timestep_binding.c",
    "csrc/binding/eos_binding.c",
    "csrc/binding/errors.c",
    "csrc/forcing.c",
    "csrc/shear.c",
    "csrc/cpu/cpu_backend.c",
    "csrc/cpu/kernels_f32.c",
    "csrc/cpu/kernels_f64.c",
    "csrc/cpu/rows_f32.c",
    "csrc/cpu/rows_f64.c",
    "csrc/cpu/signal_f32.c",
    "csrc/cpu/signal_f64.c",
    "csrc/cpu/ops_f32.c",
    "csrc/cpu/ops_f64.c",
    "csrc/cpu/timeseries.c",
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


def find_nvcc():
    """Path of nvcc, or None (also None when ASTAROTH_NO_CUDA=1)."""
    if os.environ.get("ASTAROTH_NO_CUDA") == "1":
        return None
    candidates = [shutil.which("nvcc")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin", "nvcc"))
    candidates.append("/usr/local/cuda/bin/nvcc")
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def cuda_arch_flags():
    archs = [a.strip() for a in os.environ.get("ASTAROTH_CUDA_ARCH", "90").replace(",", ";").split(";") if a.strip()]
    flags = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]
    flags.append(f"-gencode=arch=compute_{archs[-1]},code=compute_{archs[-1]}")  # PTX for newer GPUs
    return flags


def compile_cuda(nvcc, build_temp):
    """nvcc-compile the CUDA sources, as many at once as there are cores
    (ASTAROTH_BUILD_JOBS: how many); returns (objects, library_dirs)."""
    from concurrent.futures import ThreadPoolExecutor

    os.makedirs(build_temp, exist_ok=True)
    commands = []
    for src in CUDA_SOURCES:
        obj = os.path.join(build_temp, os.path.basename(src) + ".o")
        cmd = [nvcc, "-O3", "-std=c++14", "-Xcompiler", "-fPIC", "-Xptxas", "-v", "-Icsrc",
               *cuda_arch_flags(), "-c", src, "-o", obj]
        if os.environ.get("ASTAROTH_TUNING") == "1":
            cmd.append("-DAC_TUNING=1")
        cmd += shlex.split(os.environ.get("ASTAROTH_NVCC_FLAGS", ""))
        commands.append((cmd, obj))

    def compile_one(cmd):
        # each compiler's report (ptxas -v) in one piece, not interleaved with the others'
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(" ".join(cmd) + "\n" + done.stdout, file=sys.stderr, end="", flush=True)
        if done.returncode:
            raise subprocess.CalledProcessError(done.returncode, cmd)

    jobs = int(os.environ.get("ASTAROTH_BUILD_JOBS", "0")) or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=min(jobs, len(commands))) as pool:
        list(pool.map(compile_one, [cmd for cmd, _ in commands]))  # the kernel files, the longest, come first
    objects = [obj for _, obj in commands]
    return objects, cuda_lib_dirs(nvcc)


def cuda_root(nvcc):
    return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))


def cuda_lib_dirs(nvcc):
    """The CUDA toolkit's library folders beside nvcc."""
    root = cuda_root(nvcc)
    return [d for d in (os.path.join(root, "lib64"), os.path.join(root, "lib"),
                        os.path.join(root, "targets", "x86_64-linux", "lib")) if os.path.isdir(d)]


CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "build", "astaroth-cache")


def cache_key(made_with):
    """A hash of every file under csrc/ (names and bytes) and of what the build is made with."""
    digest = hashlib.sha256(repr((made_with, sys.version, numpy.__version__, os.environ.get("CC"))).encode())
    for folder, dirs, files in sorted(os.walk("csrc")):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            digest.update(path.encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()[:20]


def build_split(build):
    """astaroth._split (csrc/split/split_steps.c) with the MPI compiler wrapper, where one is found; a split
    run steps from Python without it (astaroth/parallel.py)."""
    mpicc = os.environ.get("MPICC") or shutil.which("mpicc")
    if not mpicc:
        print("astaroth: mpicc not found: split runs will step from Python (docs/guide/parallel.md)", file=sys.stderr)
        return
    target = build.get_ext_fullpath("astaroth._split")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    cmd = [mpicc, "-std=c99", "-O2", "-fPIC", "-shared", "-pthread", "-Icsrc",
           "-I" + sysconfig.get_paths()["include"], "csrc/split/split_steps.c", "-o", target]
    nvcc = find_nvcc()
    libs = [d for d in cuda_lib_dirs(nvcc) if os.path.isfile(os.path.join(d, "libcudart_static.a"))] if nvcc else []
    if libs:  # a GPU rank's steps too: the copies and streams of its messages (the static runtime, as _core's)
        cmd += ["-DASTAROTH_SPLIT_CUDA", "-I" + os.path.join(cuda_root(nvcc), "include"), "-L" + libs[0],
                "-lcudart_static", "-ldl", "-lrt"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"astaroth: {' '.join(cmd)} failed, split runs will step from Python:\n{done.stderr}", file=sys.stderr)


class BuildExt(build_ext):
    def run(self):
        super().run()
        build_split(self)

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
        nvcc = find_nvcc()
        made_with = repr((flags, link, nvcc and cuda_arch_flags(), os.environ.get("ASTAROTH_NVCC_FLAGS"),
                          os.environ.get("ASTAROTH_CUDART"), os.environ.get("ASTAROTH_TUNING")))
        cached = os.path.join(CACHE, cache_key(made_with), os.path.basename(self.get_ext_filename("astaroth._core")))
        if os.path.exists(cached) and os.environ.get("ASTAROTH_NO_BUILD_CACHE") != "1":
            for ext in self.extensions:
                os.makedirs(os.path.dirname(self.get_ext_fullpath(ext.name)), exist_ok=True)
                shutil.copy2(cached, self.get_ext_fullpath(ext.name))
            print(f"astaroth: csrc/ and the build flags are unchanged, the extension is taken from {cached}",
                  file=sys.stderr)
            return
        # what is stored under this key must be built from these sources and flags: setuptools rebuilds only
        # a module older than a source, so it would keep one built with other flags, or from a source changed
        # back within the same second (its mtime no newer)
        self.force = True
        for ext in self.extensions:
            ext.extra_compile_args = flags + ext.extra_compile_args
            ext.extra_link_args = link + ext.extra_link_args
            if nvcc:
                objects, lib_dirs = compile_cuda(nvcc, os.path.join(self.build_temp, "cuda"))
                ext.extra_objects += objects
                ext.define_macros.append(("ASTAROTH_WITH_CUDA", "1"))
                ext.library_dirs += lib_dirs
                if os.environ.get("ASTAROTH_CUDART") == "shared":  # e.g. for compute-sanitizer's leak check
                    ext.libraries += ["cudart", "stdc++"]
                    ext.runtime_library_dirs += lib_dirs
                else:
                    ext.libraries += ["cudart_static", "dl", "rt", "pthread", "stdc++"]
            else:
                print("astaroth: nvcc not found, building the CPU backend only", file=sys.stderr)
        super().build_extensions()
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        shutil.copy2(self.get_ext_fullpath(self.extensions[0].name), cached + ".tmp")
        os.replace(cached + ".tmp", cached)


setup(
    ext_modules=[
        Extension(
            "astaroth._core",
            sources=C_SOURCES,
            include_dirs=["csrc", numpy.get_include()],
            depends=[os.path.join(d, f) for d in ("csrc", "csrc/binding", "csrc/cpu", "csrc/cuda") for f in os.listdir(d)
                     if f.endswith((".h", ".cuh", ".cu", ".def"))],
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
