"""Schedule variants for one A/B device call: copies of this tree under
build/variants/NAME whose csrc/cuda/schedules.cuh has rows replaced or added.
usage (repository root): python variants.py"""
import pathlib
import shutil

ROOT = pathlib.Path.cwd()
MHD_F64 = "    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC, 0, 8, {32, 8, 2, 128, false, false, AC_SHOCK_AT_USE}},\n"
MHD_E_F32 = ("    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY, 0, 4, "
             "{32, 8, 2, 256, false, false, AC_SHOCK_AT_USE}},\n")


def shock_row(reads):  # MHD in double with shock viscosity: its own row, before MHD's
    return ("    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC, AC_KERNEL_SHOCK, 8, "
            f"{{32, 8, 2, 128, false, false, {reads}}}}},\n" + MHD_F64)


def mhd_e_f32(tx, ty, lead, threads, below=False, late=False):
    b, w = str(below).lower(), str(late).lower()
    return (f"    {{AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY, 0, 4, "
            f"{{{tx}, {ty}, {lead}, {threads}, {b}, {w}, AC_SHOCK_AT_USE}}}},\n")


VARIANTS = {
    "C": {MHD_F64: shock_row("AC_SHOCK_TOGETHER"), MHD_E_F32: mhd_e_f32(32, 4, 2, 512)},
    "D": {MHD_F64: shock_row("AC_SHOCK_AHEAD"), MHD_E_F32: mhd_e_f32(32, 8, 1, 256)},
    "E": {MHD_E_F32: mhd_e_f32(32, 8, 2, 256, True, True)},
}

for name, edits in VARIANTS.items():
    tree = ROOT / "build" / "variants" / name
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns("build", ".trees", ".git", "*.so", "benchmarks"))
    path = tree / "csrc" / "cuda" / "schedules.cuh"
    text = path.read_text()
    for old, new in edits.items():
        assert text.count(old) == 1, (name, old)
        text = text.replace(old, new)
    path.write_text(text)
    print(name, "->", tree)
