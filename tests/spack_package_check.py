#!/usr/bin/env python3
"""packaging/spack/package.py against the CMake files, without Spack.

    spack_package_check.py SOURCE_DIR

Parses the recipe (Python's ast: nothing of it runs) and checks that
- its variants and CMAKE_VARIANTS (CMake variable -> variant) name each other;
- each variant's CMake variable is declared (option(), set(... CACHE ...)) or
  set by a preset, and each OMPREF_* option or cache variable of the CMake
  files is a variant or listed below with why it is not;
- a boolean variant is an option() with the same default; a variant with a
  list of values has the values of the variable's STRINGS property and its
  default ("default" standing for an empty one);
- SPACK_PRESETS has a spec for every preset of CMakePresets.json but those
  listed below, and that spec sets every variable of CMAKE_VARIANTS as the
  preset does (its cacheVariables, those it inherits, else the CMake
  default), with the preset's compiler.
"""
import ast
import json
import re
import sys
from pathlib import Path

# CMake variables that are not variants, and why.
NOT_VARIANTS = {
    "OMPREF_CUDA_PATH": "set from the cuda dependency's prefix",
    "OMPREF_CUDA_HOST_COMPILER": "nvcc's host compiler: Spack's compiler wrappers choose it",
    "OMPREF_LLVM_RT": "a prefix of the build machine (clang >= 21's device runtime), not a choice of the package",
    "OMPREF_ROCM_DEVICE_LIB_PATH": "a path of the build machine",
    "OMPREF_EXTRA_STEP_DIR": "a folder of the user's own step files, for a development build",
    "OMPREF_STEP_TIMEOUT": "a development setting (how long a step file may take to compile)",
    "OMPREF_RACE_TESTS": "the race job of the project's CI (the race preset), not an installed program",
}
# Presets that are CI jobs (sanitizers, races, a compile-only check), not builds to install.
NOT_PACKAGED_PRESETS = {"sanitize", "race", "amd-compile", "amd-compile-gcc"}

failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def cmake_declarations(source):
    """{name: ("option", bool default) or ("cache", str default)}, {name: [STRINGS]}."""
    declared, strings = {}, {}
    files = [source / "CMakeLists.txt", *sorted((source / "cmake").glob("*.cmake"))]
    for path in files:
        text = path.read_text()
        for m in re.finditer(r'^\s*option\((OMPREF_\w+)\s+"[^"]*"\s+(ON|OFF)\)', text, re.M):
            declared[m.group(1)] = ("option", m.group(2) == "ON")
        for m in re.finditer(r'^\s*set\((OMPREF_\w+)\s+("[^"]*"|\S+)\s+CACHE\s', text, re.M):
            declared[m.group(1)] = ("cache", m.group(2).strip('"'))
        for m in re.finditer(r"set_property\(CACHE\s+(OMPREF_\w+)\s+PROPERTY\s+STRINGS\s+([^)]*)\)", text):
            strings[m.group(1)] = m.group(2).split()
    return declared, strings


def recipe(path):
    """(variants {name: {default, values or None}}, CMAKE_VARIANTS, SPACK_PRESETS)."""
    tree = ast.parse(path.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    tables, variants = {}, {}
    for node in cls.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("CMAKE_VARIANTS", "SPACK_PRESETS"):
                tables[node.targets[0].id] = ast.literal_eval(node.value)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "variant":
            call = node.value
            name = ast.literal_eval(call.args[0])
            kw = {k.arg: k.value for k in call.keywords}
            values = kw.get("values")
            variants[name] = {"default": ast.literal_eval(kw["default"]),
                              "values": ast.literal_eval(values) if isinstance(values, ast.Tuple) else None}
    return variants, tables.get("CMAKE_VARIANTS", {}), tables.get("SPACK_PRESETS", {})


def preset_values(presets, name):
    """The preset's cacheVariables with those of the presets it inherits (its own win)."""
    p = presets[name]
    values = {}
    inherits = p.get("inherits", [])
    for parent in [inherits] if isinstance(inherits, str) else inherits:
        values.update(preset_values(presets, parent))
    values.update(p.get("cacheVariables", {}))
    return values


def spec_values(spec, variants):
    """(compiler, {variant: value}) of a spec such as '%clang@19 offload=nvptx ~tests'."""
    compiler, values = None, {n: v["default"] for n, v in variants.items()}
    for token in spec.split():
        if token.startswith("%"):
            compiler = token[1:]
        elif token[0] in "+~":
            values[token[1:]] = token[0] == "+"
        elif "=" in token:
            name, value = token.split("=", 1)
            values[name] = value
        else:
            failures.append(f"spec '{spec}': cannot read '{token}'")
    return compiler, values


def as_cmake(value):
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    return "" if value == "default" else value


def main():
    source = Path(sys.argv[1]).resolve()
    declared, strings = cmake_declarations(source)
    variants, cmake_variants, spack_presets = recipe(source / "packaging" / "spack" / "package.py")
    presets = {p["name"]: p for p in json.loads((source / "CMakePresets.json").read_text())["configurePresets"]}
    preset_set = {v for name in presets for v in preset_values(presets, name) if v.startswith("OMPREF_")}

    expect(set(cmake_variants.values()) == set(variants),
           f"variants {sorted(variants)} vs CMAKE_VARIANTS' {sorted(cmake_variants.values())}")
    for var, name in cmake_variants.items():
        expect(var in declared or var in preset_set, f"{var} (variant {name}) is not a CMake option or preset variable")
        if name not in variants:
            continue
        v = variants[name]
        kind, default = declared.get(var, ("cache", ""))
        if isinstance(v["default"], bool):
            expect(kind == "option", f"variant {name} is boolean, {var} is not an option()")
            expect(v["default"] == default, f"variant {name} default {v['default']}, {var} default {default}")
        else:
            expect(kind == "cache", f"variant {name} has values, {var} is an option()")
            expect(as_cmake(v["default"]) == default, f"variant {name} default '{v['default']}', {var} default '{default}'")
            if var in strings:
                expect(v["values"] is not None and sorted(v["values"]) == sorted(strings[var]),
                       f"variant {name} values {v['values']}, {var} STRINGS {strings[var]}")
    for var in declared:
        expect(var in cmake_variants or var in NOT_VARIANTS,
               f"CMake's {var} is neither a variant of package.py nor listed in NOT_VARIANTS")

    expect(set(spack_presets) == set(presets) - NOT_PACKAGED_PRESETS,
           f"SPACK_PRESETS {sorted(spack_presets)} vs the presets {sorted(set(presets) - NOT_PACKAGED_PRESETS)}")
    for name, spec in spack_presets.items():
        if name not in presets:
            continue
        wanted = preset_values(presets, name)
        compiler, values = spec_values(spec, variants)
        for var, variant_name in cmake_variants.items():
            kind, default = declared.get(var, ("cache", ""))
            want = wanted.get(var, ("ON" if default else "OFF") if kind == "option" else default)
            got = as_cmake(values.get(variant_name))
            expect(str(want).upper() == str(got).upper() if kind == "option" else want == got,
                   f"preset {name}: {var} is '{want}', SPACK_PRESETS gives '{got}' ({spec})")
        cxx = wanted.get("CMAKE_CXX_COMPILER", "")
        m = re.fullmatch(r"(clang\+\+|g\+\+)(?:-(\d+))?", cxx)
        family = {"clang++": "clang", "g++": "gcc"}.get(m.group(1)) if m else None
        want_compiler = f"{family}@{m.group(2)}" if m and m.group(2) else family
        expect(compiler == want_compiler, f"preset {name}: compiler {cxx}, SPACK_PRESETS gives %{compiler}")

    if failures:
        print("FAIL: " + "\nFAIL: ".join(failures))
        return 1
    print(f"package.py: {len(variants)} variants agree with the CMake options; "
          f"{len(spack_presets)} presets as specs ({len(NOT_PACKAGED_PRESETS)} CI presets not packaged)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
