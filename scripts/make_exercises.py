#!/usr/bin/env python3
"""Writes the exercises (<build>/exercises/<name>.cpp) from their solutions.

Each exercise is one step's source file from src/omp_target/ with the lesson's
directives (or the lesson's kernel) cut out and a `TODO` where they go. The cuts
(the table EXERCISES below) are exact text replacements: when a solution
changes so that a cut no longer matches, this script fails and names it. The
exercises are not committed: CMake runs `--write` into the build tree, and
`--check` (a CTest test) fails when a cut no longer matches or the committed
exercises/README.md differs from what the tables give.

    make_exercises.py SOURCE_DIR            rewrite exercises/README.md's generated block
    make_exercises.py SOURCE_DIR --write DIR   write DIR/<name>.cpp for every exercise
    make_exercises.py SOURCE_DIR --check    exit 1 (with a diff) when a cut or the README is stale
    make_exercises.py SOURCE_DIR --list     one line per exercise: name solution workload variant
    make_exercises.py SOURCE_DIR --wrong KEY OUT   write a wrong solution (WRONG) to OUT
    make_exercises.py SOURCE_DIR --list-wrong      one line per wrong solution: key exercise verdict
"""
import argparse
import difflib
import sys
from pathlib import Path

# name -> (solution file, workload, variant, what to do, [(text in the solution, text in the exercise)])
EXERCISES = {
    "stream": (
        "src/omp_target/stream.cpp", "stream", "target_simd",
        "Offload the five loops of target_simd: each a `target teams distribute parallel for simd` on device(dev) "
        "that finds its arrays present (`map(alloc: ...)`); the dot also needs its sum mapped back and reduced.",
        [
            ("#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], c[0:n])\n"
             "  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];",
             "  // TODO(1): offload the copy: the combined construct, device(dev), a and c present\n"
             "  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];"),
            ("#pragma omp target teams distribute parallel for simd device(dev) map(alloc : b[0:n], c[0:n])\n"
             "  for (std::size_t i = 0; i < n; ++i) b[i] = q * c[i];",
             "  // TODO(2): offload the mul\n"
             "  for (std::size_t i = 0; i < n; ++i) b[i] = q * c[i];"),
            ("#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n])\n"
             "  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];",
             "  // TODO(3): offload the add\n"
             "  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];"),
            ("#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n], c[0:n])\n"
             "  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];",
             "  // TODO(4): offload the triad\n"
             "  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];"),
            ("#pragma omp target teams distribute parallel for simd device(dev) map(alloc : a[0:n], b[0:n]) \\\n"
             "    map(tofrom : sum) reduction(+ : sum)\n",
             "  // TODO(5): offload the dot: a scalar in a target region is firstprivate unless mapped,\n"
             "  // and the threads' partial sums must be combined\n"),
        ]),
    "gpp_2_udr": (
        "src/omp_target/gpp_2_udr.cpp", "gpp", "target_udr",
        "Reduce the Complex3 `acc` over all threads with the user-defined reduction `c3sum` "
        "(declared in `src/common/gpp/complex.hpp`): one clause on the kernel's directive.",
        [
            ("  Complex3 acc = complex3_zero();\n",
             "  Complex3 acc = complex3_zero();\n"
             "  // TODO: every thread adds into acc: give the directive the reduction that combines Complex3\n"
             "  // partial sums (`declare reduction(c3sum ...)` in src/common/gpp/complex.hpp)\n"),
            ("e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \\\n"
             "    reduction(c3sum : acc)\n",
             "e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])\n"),
        ]),
    "gpp_3_hoisted": (
        "src/omp_target/gpp_3_hoisted.cpp", "gpp", "target_hoisted",
        "Write the first kernel: fill the device array fac[k * nb + n1] with factor_of(...) for every (k, n1), "
        "on the device, before the main kernel reads it (fac is already in the device data).",
        [
            ("#pragma omp target teams distribute parallel for collapse(2) device(dev)                                   \\\n"
             "    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \\\n"
             "                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1], fac[0:ngpown * nb])\n"
             "  for (int k = 0; k < ngpown; ++k) {\n"
             "    for (int n1 = 0; n1 < nb; ++n1) {\n"
             "      const int igp = indinv[inv_igp_index[k]];\n"
             "      fac[k * nb + n1] = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);\n"
             "    }\n"
             "  }\n",
             "  // TODO: a first kernel over (k, n1) that stores factor(k, n1) in fac[k * nb + n1] on the device:\n"
             "  // igp = indinv[inv_igp_index[k]], factor_of(aqsm[igp][n1], aqsn[igp][n1], vcoul[igp], wtilde[igp][k])\n"
             "  // (as target_udr computed it inside its ig loop). fac comes to the device NaN.\n"),
        ]),
    "lbm_fused": (
        "src/omp_target/lbm_fused.cpp", "lbm", "target_fused",
        "Write calculate_fn's fused kernel: for every fluid cell, force, collision, push and bounce-back in one "
        "pass (fused_item of `src/common/lbm/lbm_items.hpp`), launched as calculate_phi is.",
        [
            ("#pragma omp target teams distribute parallel for firstprivate(c, g, t) device(dev) num_teams(t.teams) \\\n"
             "    thread_limit(t.limit) dist_schedule(static, t.span) schedule(static, t.chunk) \\\n"
             "    map(alloc : f[0:Q * stride], out[0:Q * stride], solid[0:stride], psi[0:stride])\n"
             "  for (long it = 0; it < total; ++it) {\n"
             "    int x, y, z;\n"
             "    if (tile_cell(t, g, it, x, y, z)) fused_item(c, g, f, out, solid, psi, x, y, z);\n"
             "  }\n",
             "  // TODO(1): the directive: launched as calculate_phi's kernel, with out[] among the present arrays\n"
             "  for (long it = 0; it < total; ++it) {\n"
             "    int x, y, z;\n"
             "    // TODO(2): if tile_cell finds the cell (x, y, z): force, collision, push and bounce-back of it\n"
             "    // (if fluid) from f into out, in one pass: fused_item (src/common/lbm/lbm_items.hpp)\n"
             "  }\n"),
        ]),
    "mesh_atomic": (
        "src/omp_target/mesh.cpp", "mesh", "target_lumped_atomic",
        "In target_lumped_atomic, tets that share a vertex add to the same lumped[v] at once: make each "
        "addition indivisible.",
        [
            ("    for (int k = 0; k < 4; ++k) {\n"
             "#pragma omp atomic update\n"
             "      lumped[e[k]] += quarter;\n",
             "    for (int k = 0; k < 4; ++k) {\n"
             "      // TODO: other threads add to the same vertex at the same time\n"
             "      lumped[e[k]] += quarter;\n"),
        ]),
    "mesh_reduce_blocks": (
        "src/omp_target/mesh.cpp", "mesh", "target_reduce_blocks",
        "In target_reduce_blocks, each team's threads reduce one block: give the inner `parallel for` its "
        "reductions (+, min, max and the user-defined minloc), then bring the partials back to the host before "
        "combine_blocks reads them.",
        [
            ("#pragma omp parallel for schedule(static, 1) reduction(+ : vsum, qsum) reduction(min : vmin) \\\n"
             "    reduction(max : vmax, qmax) reduction(minloc : qmin)\n",
             "    // TODO(1): the team's threads all update vsum, vmin, vmax, qsum, qmax and qmin (minloc)\n"
             "#pragma omp parallel for schedule(static, 1)\n"),
            ("#pragma omp target update device(dev) from(part[0:6 * nb], part_index[0:nb])\n",
             "  // TODO(2): the partials were written on the device; the host reads them next\n"),
        ]),
    "mesh_gather": (
        "src/omp_target/mesh.cpp", "mesh", "target_lumped_scatter_gather",
        "In target_lumped_scatter_gather, offload the gather: each vertex sums its ball's corner temporaries, "
        "which the scatter kernel left on the device.",
        [
            ("#pragma omp target teams distribute parallel for device(dev) \\\n"
             "    map(alloc : offset[0:nv + 1], corner[0:4 * nt], tmp[0:4 * nt], lumped[0:nv])\n"
             "  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = gather_item(offset, corner, tmp, v);\n",
             "  // TODO: the gather runs where tmp was written: offload it (tmp, offset, corner and lumped are present)\n"
             "  for (std::int64_t v = 0; v < nv; ++v) lumped[v] = gather_item(offset, corner, tmp, v);\n"),
        ]),
}

# What catches each exercise left unsolved: name -> (host run: size and expected
# verdict, or None where the host cannot tell reliably; the host fallback;
# a GPU under OMP_TARGET_OFFLOAD=MANDATORY; the race detector). The host
# verdicts are tested (exercises/CMakeLists.txt reads them from the header).
CATCHES = {
    "stream": (
        ("tiny", "PASS"),
        "not caught: the loops run serially on the host and compute the right answer in host memory, which on "
        "the host fallback is the device's",
        "validation FAIL: the loops compute in host memory, then the runner's `target exit data map(from:)` copies "
        "back the device arrays, which no kernel wrote; MANDATORY alone does not object (there is no target region "
        "left to refuse)",
        "nothing to find (no parallel loop left)"),
    "gpp_2_udr": (
        ("small", "FAIL"),
        "validation FAIL at `--size small`: the threads add into one mapped `acc` at once and lose updates (8 runs "
        "of 8 on two threads; at `tiny` one run in 6 passed)",
        "validation FAIL (hundreds of thousands of threads on one `acc`)",
        "reports the race on `acc`"),
    "gpp_3_hoisted": (
        ("tiny", "FAIL"),
        "validation FAIL: `fac` is NaN-poisoned before every run and nothing writes it",
        "validation FAIL, the same way",
        "nothing to find"),
    "lbm_fused": (
        ("tiny", "FAIL"),
        "validation FAIL: the next lattice is NaN-poisoned and nothing writes it",
        "validation FAIL, the same way",
        "nothing to find"),
    "mesh_atomic": (
        None,
        "seldom: on two threads, tets that share a vertex rarely run at once (PASS at `tiny` and `small` here)",
        "validation FAIL expected (many threads add to one vertex at once)",
        "reports the race on `lumped`"),
    "mesh_reduce_blocks": (
        None,
        "seldom: each block's loop is short, so its threads rarely overlap (PASS at `tiny` and `small` here), "
        "and the missing `target update` is invisible where host and device memory are one",
        "validation FAIL: the host combines partials the device wrote but never sent back",
        "reports the race on the block's sums"),
    "mesh_gather": (
        ("tiny", "PASS"),
        "not caught: the gather runs serially on the host, and on the host fallback the scatter's `tmp` is there",
        "validation FAIL: the host loop reads the host's `tmp` (NaN-poisoned: the scatter wrote the device copy), "
        "and the runner copies back the device's `lumped`, which nothing wrote",
        "nothing to find"),
}

# The likely mistakes of each exercise, for scripts/exercise_check.py: name ->
# [(key, where, pattern, message)], the first that matches names the verdict.
# `where`: "failure" (the validation's worst value, from the run's JSON),
# "stderr" (the offload runtime's errors) or "source" (the exercise's file,
# read before the run: for what no run on two host cores can show). The
# message says the mistake in a student's words. `unsolved` in VIRTUAL_DEVICE
# below is the key an unsolved exercise must get there (a test).
EXTENT = ("extent", "stderr", r"explicit extension not allowed",
          "a map asks for more of an array than the runner put on the device (map exactly the extent "
          "that is present, e.g. `a[0:n]`, not more)")
ABSENT = ("absent", "stderr", r"required by 'present' map type modifier does not exist",
          "a kernel asks for an array that is not on the device (`present`): map it before the kernel")


def mistakes(failure, source=()):
    """An exercise's mistakes in the order they are tried, each (key, pattern, message): what its source shows,
    the offload runtime's extent and presence errors, then what its failed validation shows."""
    return ([(key, "source", pattern, message) for key, pattern, message in source] + [EXTENT, ABSENT]
            + [(key, "failure", pattern, message) for key, pattern, message in failure])


LOST_VERTEX_UPDATES = ("tets that share a vertex add to the same lumped[v] at once and lose updates "
                       "(`#pragma omp atomic update` on the addition)")
MISTAKES = {
    "stream": mistakes([
        ("dot_not_back", r"^dot = ",
         "the dot's sum never came back from the device, or its threads' partial sums were not combined "
         "(`map(tofrom: sum) reduction(+: sum)`)"),
        ("on_host", r"^[abc]\[\d+\] = ",
         "the loops ran on the host: the device's arrays, which the runner copies back at the end, were never "
         "written (each loop needs `target teams distribute parallel for simd device(dev) map(alloc: ...)`)"),
    ]),
    "gpp_2_udr": mistakes([
        ("acc_not_back", r"= 0 \(expected",
         "the reduction variable never came back from the device (map it tofrom, or use reduction: "
         "`reduction(c3sum: acc)` maps it both ways unless a `map(to: acc)` says otherwise)"),
        ("race", r"^achtemp",
         "the threads add into one `acc` at once and lose updates (combine their partial sums with "
         "`reduction(c3sum: acc)`)"),
    ]),
    "gpp_3_hoisted": mistakes([(
        "fac_not_written", r"= nan \(expected",
        "fac is NaN on the device: the first kernel is missing, or ran on the host and wrote the host's fac "
        "(it needs `target teams distribute parallel for collapse(2) device(dev)` with fac in its "
        "`map(alloc: ...)`)")]),
    "lbm_fused": mistakes([(
        "not_written", r"^population \d+ of cell",
        "the next lattice holds what nobody wrote: the fused kernel's body (fused_item) or its directive is "
        "missing")]),
    "mesh_atomic": mistakes(
        [("race_seen", r"^lumped_atomic: ", LOST_VERTEX_UPDATES)],
        source=[("critical", r"#pragma omp critical\s*\n\s*lumped\[e\[k\]\] \+= quarter;",
                 "`critical` makes the additions right, one thread at a time in the whole kernel: on a GPU that "
                 "serialises hundreds of thousands of threads (`#pragma omp atomic update` makes only the one "
                 "addition indivisible)"),
                ("race", r"^(?!#pragma omp atomic).*\n\s*lumped\[e\[k\]\] \+= quarter;", LOST_VERTEX_UPDATES)]),
    "mesh_reduce_blocks": mistakes([
        ("not_sent_back", r"^reduce: .* (0|nan) \(expected",
         "the host combined partials that never came back from the device (after the kernel: "
         "`target update device(dev) from(part[0:6 * nb], part_index[0:nb])`)"),
        ("race", r"^reduce: ",
         "a block's threads update the same sums at once and lose updates (the inner `parallel for` needs "
         "`reduction(+: vsum, qsum) reduction(min: vmin) reduction(max: vmax, qmax) reduction(minloc: qmin)`)"),
    ]),
    "mesh_gather": mistakes([(
        "on_host", r"^lumped_scatter_gather: ",
        "the gather ran on the host: it read the host's tmp (the scatter wrote the device's) and wrote the "
        "host's lumped, which the runner does not copy back (offload it: `target teams distribute parallel for "
        "device(dev) map(alloc: ...)`)")]),
}

# A hint per exercise: what to think about, not the code (the solution's diff
# comes last in exercises/README.md).
HINTS = {
    "stream": "A loop runs on the device only inside a `target` construct. The arrays are already there (the "
              "runner entered them), so each kernel only has to say they are present; and a scalar in a target "
              "region is a private copy unless it is mapped.",
    "gpp_2_udr": "The six sums live in one struct. OpenMP can reduce a struct once it is told how to combine two "
                 "of them, and the gpp headers already tell it.",
    "gpp_3_hoisted": "The factor depends on (k, n1), not on ig: compute each once, on the device, in a kernel of its "
                     "own before the main one, where the main kernel will find it.",
    "lbm_fused": "The fused kernel is launched like calculate_phi's, and does per cell what the three passes of the "
                 "step before did; the shared cell arithmetic already has the one-pass function.",
    "mesh_atomic": "Two threads that add to one double can both read the old value, and one addition is lost. "
                   "OpenMP has a directive that makes one update indivisible, and one that lets one thread at a "
                   "time through a whole block: only the first is cheap on a GPU.",
    "mesh_reduce_blocks": "A team's `parallel for` needs the same reduction clauses as a host loop would (the "
                          "minloc reduction is declared in the mesh headers); and what the host reads after a "
                          "kernel must first come back from the device.",
    "mesh_gather": "The scatter kernel left tmp on the device. The gather must run there too: one thread per "
                   "vertex, each summing its ball's corners.",
}

# Each exercise's problem size in exercise_check.py (the smallest at which the
# virtual device sees every state the tests list), and what a PASS there
# leaves to check.
CHECK_SIZE = {"gpp_2_udr": "small", "mesh_atomic": "small", "mesh_reduce_blocks": "small"}
AFTER_PASS = {
    "stream": "Left to check: the time on a GPU, against the solution's (exercises/README.md).",
    "gpp_2_udr": "Left to check: no race (the race job), and the time on a GPU.",
    "gpp_3_hoisted": "Left to check: the time on a GPU, against target_udr's.",
    "lbm_fused": "Left to check: the time on a GPU, against target_shaped's.",
    "mesh_atomic": "Left to check: no race (the race job), and the time on a GPU.",
    "mesh_reduce_blocks": "Left to check: no race (the race job), and the time on a GPU.",
    "mesh_gather": "Left to check: the time on a GPU, against target_lumped_atomic's.",
}

# The verdict of each unsolved exercise on the virtual device (a test:
# exercises/CMakeLists.txt, exercise_<name>_virtual_device).
VIRTUAL_DEVICE = {
    "stream": "on_host",
    "gpp_2_udr": "race",
    "gpp_3_hoisted": "fac_not_written",
    "lbm_fused": "not_written",
    "mesh_atomic": "race",
    "mesh_reduce_blocks": "not_sent_back",
    "mesh_gather": "on_host",
}

# Wrong solutions: a solution with one plausible mistake, made at build time
# (`--wrong KEY OUT`) and run on the virtual device, where exercise_check.py
# must give the verdict named here (tests wrong_<key>). key -> (exercise, the
# mistake, [(text in the solution, text in the wrong solution)], verdict).
WRONG = {
    "gpp_map_to_acc": (
        "gpp_2_udr", "`map(to: acc)` beside the reduction",
        [("    reduction(c3sum : acc)\n", "    map(to : acc) reduction(c3sum : acc)\n")],
        "acc_not_back"),
    "gpp_factor_on_host": (
        "gpp_3_hoisted", "the factor loop left on the host (its directive left out)",
        [("#pragma omp target teams distribute parallel for collapse(2) device(dev)                                   \\\n"
          "    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \\\n"
          "                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1], fac[0:ngpown * nb])\n"
          "  for (int k = 0; k < ngpown; ++k) {\n", "  for (int k = 0; k < ngpown; ++k) {\n")],
        "fac_not_written"),
    "stream_map_twice": (
        "stream", "a map twice the array's length",
        [("map(alloc : a[0:n], c[0:n])\n  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];",
          "map(alloc : a[0:2 * n], c[0:n])\n  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];")],
        "extent"),
    "mesh_critical": (
        "mesh_atomic", "`critical` instead of `atomic`",
        [("#pragma omp atomic update\n      lumped[e[k]] += quarter;\n",
          "#pragma omp critical\n      lumped[e[k]] += quarter;\n")],
        "critical"),
}


HEADER = """\
// EXERCISE {name}: {solution} with the lesson cut out; `TODO` marks where it goes.
// solution: {solution}
// checked by: ompref run {workload} --variant {variant}
// unsolved on the host: {host}
// check it: cmake --build --preset virtual-device --target ompref_exercise_{name} && scripts/exercise_check.py {name}
// What to do, a hint, and what a correct answer shows: exercises/README.md.
// Written into the build tree by scripts/make_exercises.py from the solution: solve it here. The build
// rewrites it only when its solution or the cuts change, and then keeps your version as {name}.cpp.old.
"""


def apply_cuts(text, cuts, what, solution):
    for old, new in cuts:
        count = text.count(old)
        if count != 1:
            raise SystemExit(f"make_exercises.py: {what}: a cut matches {count} times in {solution} "
                             f"(it must match once): {old.splitlines()[0]!r}")
        text = text.replace(old, new)
    return text


def render_wrong(source_dir, key):
    """A solution with one mistake (WRONG): what exercise_check.py must name."""
    exercise, mistake, cuts, _ = WRONG[key]
    solution = EXERCISES[exercise][0]
    text = apply_cuts((source_dir / solution).read_text(), cuts, key, solution)
    return (f"// WRONG SOLUTION {key}: {solution} with {mistake} (scripts/make_exercises.py).\n"
            f"// solution: {solution}\n") + text


def render(source_dir, name):
    solution, workload, variant, _, cuts = EXERCISES[name]
    text = apply_cuts((source_dir / solution).read_text(), cuts, name, solution)
    host = CATCHES[name][0]
    host = f"{host[1]} at --size {host[0]}" if host else "not tested (a race seldom seen on two threads)"
    return HEADER.format(name=name, solution=solution, workload=workload, variant=variant, host=host) + text


README = "exercises/README.md"
BEGIN, END = "<!-- exercises: begin -->", "<!-- exercises: end -->"


def virtual_device_text(name):
    """What the virtual device and exercise_check.py say of the unsolved exercise."""
    key = VIRTUAL_DEVICE[name]
    where, message = next((w, m) for k, w, _, m in MISTAKES[name] if k == key)
    if where == "source":
        return (f"the run passes (two host cores seldom collide), and `scripts/exercise_check.py` FAILs it on "
                f"its source: \"{message}\"")
    return f"validation FAIL, and `scripts/exercise_check.py` says: \"{message}\""


def readme_block():
    """The per-exercise part of exercises/README.md."""
    out = [BEGIN + "\n", "<!-- written by scripts/make_exercises.py from its tables: edit them there -->\n"]
    for name, (solution, workload, variant, task, _) in EXERCISES.items():
        host_test, host, gpu, race = CATCHES[name]
        out.append(f"\n### `{name}`: `{workload}` `{variant}`\n\n{task}\n\n")
        out.append(f"- hint: {HINTS[name]}\n")
        out.append(f"- edit `build-virtual-device/exercises/{name}.cpp`, then build and check it on the virtual device: "
                   f"`cmake --build --preset virtual-device --target ompref_exercise_{name}` and "
                   f"`scripts/exercise_check.py {name}`\n")
        out.append(f"- left unsolved, on the virtual device: {virtual_device_text(name)}\n")
        out.append(f"- on the host fallback (the `host` build): {host}\n")
        out.append(f"- on a GPU (`OMP_TARGET_OFFLOAD=MANDATORY`): {gpu}\n")
        out.append(f"- under the race detector: {race}\n")
        out.append(f"- the solution, when you are done: `diff build-virtual-device/exercises/{name}.cpp {solution}`\n")
    wrong = ["\n### Wrong solutions the tests keep\n\n",
             "Each is a solution with one plausible mistake, made at build time and run on the virtual device "
             "(tests `wrong_<key>`); `scripts/exercise_check.py` must name the mistake.\n\n",
             "| wrong solution | exercise | what names it |\n|---|---|---|\n"]
    for key, (exercise, mistake, _, verdict) in WRONG.items():
        where, message = next((w, m) for k, w, _, m in MISTAKES[exercise] if k == verdict)
        seen = {"source": "the source (the run passes)", "stderr": "the offload runtime's error",
                "failure": "validation"}[where]
        wrong.append(f"| `{key}`: {mistake} | `{exercise}` | {seen}: \"{message}\" |\n")
    out.extend(wrong)
    out.append("\n" + END)
    return "".join(out)


def render_readme(source_dir):
    text = (source_dir / README).read_text()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise SystemExit(f"make_exercises.py: {README} needs one '{BEGIN}' and one '{END}' line")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return head + readme_block() + tail


def write_exercises(source_dir, out_dir):
    """DIR/<name>.cpp for every exercise. A student's edits stay: the file is
    rewritten only when what the solution gives changed since it was written
    (DIR/.<name>.cpp.given holds that), and an edited one is kept as <name>.cpp.old."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in EXERCISES:
        want = render(source_dir, name)
        path, given = out_dir / f"{name}.cpp", out_dir / f".{name}.cpp.given"
        before = given.read_text() if given.exists() else None
        if path.exists() and before == want:
            continue
        if path.exists() and path.read_text() not in (before, want):
            path.replace(out_dir / f"{name}.cpp.old")
        path.write_text(want)
        given.write_text(want)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source_dir", type=Path)
    parser.add_argument("--check", action="store_true", help="fail when a cut or the committed README is stale")
    parser.add_argument("--write", dest="write_dir", metavar="DIR", type=Path, help="write DIR/<name>.cpp for every exercise")
    parser.add_argument("--list", action="store_true", help="print name, solution, workload, variant")
    parser.add_argument("--list-wrong", action="store_true", help="print key, exercise, verdict of each wrong solution")
    parser.add_argument("--virtual-device-verdict", metavar="NAME", help="print the unsolved exercise's verdict there")
    parser.add_argument("--wrong", nargs=2, metavar=("KEY", "OUT"), help="write the wrong solution KEY to OUT")
    args = parser.parse_args()
    if not (args.source_dir / "src/omp_target").is_dir():
        print(f"make_exercises.py: {args.source_dir} is not the source tree", file=sys.stderr)
        return 2
    if args.list:
        for name, (solution, workload, variant, _, _) in EXERCISES.items():
            print(name, solution, workload, variant)
        return 0
    if args.list_wrong:
        for key, (exercise, _, _, verdict) in WRONG.items():
            print(key, exercise, verdict)
        return 0
    if args.virtual_device_verdict:
        if args.virtual_device_verdict not in VIRTUAL_DEVICE:
            print(f"make_exercises.py: no exercise '{args.virtual_device_verdict}'", file=sys.stderr)
            return 2
        print(VIRTUAL_DEVICE[args.virtual_device_verdict])
        return 0
    if args.wrong:
        key, out = args.wrong
        if key not in WRONG:
            print(f"make_exercises.py: no wrong solution '{key}' (known: {', '.join(WRONG)})", file=sys.stderr)
            return 2
        text = render_wrong(args.source_dir, key)
        out = Path(out)
        if not out.exists() or out.read_text() != text:  # unchanged: no rebuild
            out.write_text(text)
        return 0
    if args.write_dir:
        return write_exercises(args.source_dir, args.write_dir)
    for name in EXERCISES:  # every cut still matches its solution
        render(args.source_dir, name)
    path, want = args.source_dir / README, render_readme(args.source_dir)
    if not args.check:
        path.write_text(want)
        return 0
    have = path.read_text() if path.exists() else ""
    if have != want:
        sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                                   str(path), "regenerated"))
        print(f"make_exercises.py: {README} differs from the tables: run scripts/make_exercises.py . and commit",
              file=sys.stderr)
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main())
