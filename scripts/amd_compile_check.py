#!/usr/bin/env python3
"""AMD device code, compiled and device-linked, never run: every source of
the kernels (src/omp_host, src/omp_target and the infrastructure's device
constructs, as the `ompref_kernels` library compiles them) for an AMD GPU, in
the `amd-compile` (clang-19, gfx90a, Debian's ROCm device libraries) or
`amd-compile-gcc` (g++-12, gfx906) preset. The whole suite is not built.

For each file: the compiler's own command (from the preset's
compile_commands.json, flags from cmake/OffloadFlags.cmake), then, where the
object carries device code, a device link of that object alone, which runs the AMD back end and links the device
runtime:
  clang: clang++ -fopenmp --offload-arch=... -r OBJ -lomptarget.devicertl
         (a relocatable object whose offload image must be an AMD ELF)
  gcc:   g++ -fopenmp -foffload=amdgcn-amdhsa -shared OBJ (mkoffload; where
         the object has target regions, the shared object must carry their
         .gnu.offload_funcs table)
Exit 0: every file compiled and linked; 1: one did not (each named with the
first error line); 2: bad usage or a preset that cannot be configured.

usage: scripts/amd_compile_check.py PRESET [-j N]"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first_error(text):
    lines = [l for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l.replace(ROOT + "/", "")
    return lines[0].replace(ROOT + "/", "") if lines else "no message"


def device_link(entry, obj):
    args = shlex.split(entry["command"])
    compiler = args[0]
    if "clang" in os.path.basename(compiler):
        flags = [a for a in args if a.startswith(("--offload-arch=", "--rocm-device-lib-path=", "--rocm-path="))]
        libdir = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(compiler))), "lib")
        out = obj + ".device.o"
        cmd = [compiler, "-fopenmp", *flags, "-r", obj, f"-L{libdir}", "-lomptarget.devicertl", "-o", out]
        check = lambda: re.search(r"kind\s+elf\s*\narch\s+gfx", subprocess.run(
            [os.path.join(libdir, "..", "bin", "llvm-objdump"), "--offloading", out],
            capture_output=True, text=True).stdout)
    else:
        flags = [a for a in args if a.startswith(("-foffload=", "-foffload-options="))]
        out = obj + ".device.so"
        cmd = [compiler, "-fopenmp", *flags, "-shared", obj, "-o", out]
        kernels = lambda path: re.search(r"\.gnu\.offload_funcs\s+0*[1-9a-f]", subprocess.run(
            ["objdump", "-h", path], capture_output=True, text=True).stdout)
        # An object with target regions must keep its kernels in the offload table;
        # one with declare target functions only links them, with no table.
        check = lambda: kernels(out) or not kernels(obj)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=entry["directory"])
    if r.returncode != 0:
        return first_error(r.stderr + r.stdout)
    if not check():
        return "device link produced no AMD device image"
    return None


def has_device_code(entry, obj):
    """Whether the object carries device code: clang's offload section, or
    gcc's offload LTO sections."""
    sections = subprocess.run(["objdump", "-h", obj], capture_output=True, text=True).stdout
    return ".llvm.offloading" in sections or ".gnu.offload_lto_" in sections


def one(entry):
    src = os.path.relpath(entry["file"], ROOT)
    obj = os.path.join(entry["directory"], entry["output"])
    t0 = time.monotonic()
    r = subprocess.run(entry["command"], shell=True, capture_output=True, text=True, cwd=entry["directory"])
    t1 = time.monotonic()
    if r.returncode != 0:
        return src, t1 - t0, 0.0, "compile: " + first_error(r.stderr + r.stdout)
    if not has_device_code(entry, obj):
        return src, t1 - t0, 0.0, None  # no target region and no device function used: nothing to link
    why = device_link(entry, obj)
    return src, t1 - t0, time.monotonic() - t1, None if why is None else "device link: " + why


def main():
    ap = argparse.ArgumentParser(description="compile and device-link the kernels for an AMD GPU")
    ap.add_argument("preset", choices=["amd-compile", "amd-compile-gcc"])
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    if a.j < 1:
        print("amd_compile_check.py: -j must be at least 1", file=sys.stderr)
        return 2
    conf = subprocess.run(["cmake", "--preset", a.preset, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], cwd=ROOT,
                          capture_output=True, text=True)
    if conf.returncode != 0:
        print(f"amd_compile_check.py: the {a.preset} preset does not configure: {first_error(conf.stderr)}",
              file=sys.stderr)
        return 2
    build = re.search(r"Build files have been written to: (.*)", conf.stdout).group(1).strip()
    entries = []
    for e in json.load(open(os.path.join(build, "compile_commands.json"))):
        args = shlex.split(e["command"])
        e["output"] = args[args.index("-o") + 1]  # CMake 3.25 writes no "output" key
        if "/ompref_kernels.dir/" in e["output"]:
            entries.append(e)
    for e in entries:
        os.makedirs(os.path.dirname(os.path.join(e["directory"], e["output"])), exist_ok=True)
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
        results = sorted(pool.map(one, entries))
    failed = [r for r in results if r[3]]
    for src, tc, tl, why in results:
        print(f"{'FAIL' if why else 'ok  '} {src:<40} compile {tc:6.1f} s  device link {tl:5.1f} s"
              + (f"  {why}" if why else ""))
    print(f"{a.preset}: {len(results) - len(failed)} of {len(results)} kernel files compiled and device-linked "
          f"({time.monotonic() - t0:.0f} s wall, -j {a.j}); not run")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
