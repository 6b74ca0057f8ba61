#!/usr/bin/env python3
"""Stack slots that optimised LLVM IR reads but never writes.

In IR optimised from a correct program, an alloca that is loaded from but
never stored to (nor handed to a call, nor escaping) is a read of memory no one
wrote: a miscompile such as the one of README.md, where DSE deleted the only
store of a captured variable's slot that std::min then reads.

    unwritten_slots.py FILE.ll      one line per such slot: function, slot, reads
Exit status 0 (none), 1 (some found), 2 (unreadable file).
"""
import re
import sys

NAME = r'%(?:"[^"]+"|[-\w.$]+)'
DEF = re.compile(r'^\s*(' + NAME + r')\s*=\s*(.*)$')
VALUE = re.compile(NAME)


def slots(function_lines):
    """(name of the function, [(slot, number of loads)]) for one function."""
    roots = {}  # value -> set of allocas it may point into
    insts = []
    for line in function_lines:
        line = line.split(';', 1)[0] if not line.lstrip().startswith('store') else line
        m = DEF.match(line)
        if m:
            name, rhs = m.groups()
            if re.match(r'alloca\b', rhs):
                roots[name] = {name}
            insts.append((name, rhs))
        elif line.strip():
            insts.append((None, line.strip()))
    # Pointers derived from a slot: casts, GEPs, selects, phis (to a fixed point).
    derive = re.compile(r'^(addrspacecast|bitcast|getelementptr|select|phi|freeze)\b')
    changed = True
    while changed:
        changed = False
        for name, rhs in insts:
            if name is None or not derive.match(rhs):
                continue
            got = set()
            for v in VALUE.findall(rhs):
                got |= roots.get(v, set())
            if got - roots.get(name, set()):
                roots.setdefault(name, set()).update(got)
                changed = True
    written, reads = set(), {}
    for name, rhs in insts:
        used = [v for v in VALUE.findall(rhs) if v in roots]
        if not used:
            continue
        if name is not None and derive.match(rhs):
            continue  # a derived pointer: its own uses decide
        if re.match(r'(load|load atomic)\b', rhs):
            for v in used:
                for r in roots[v]:
                    reads[r] = reads.get(r, 0) + 1
        elif rhs.startswith('store'):
            # store TYPE VALUE, ptr[ addrspace(N)] POINTER, ...: the pointer is
            # written; a slot's address stored anywhere escapes.
            for v in used:
                for r in roots[v]:
                    written.add(r)
        elif re.search(r'\bcall\b.*@llvm\.lifetime\.', rhs):
            continue
        else:  # a call, an atomic, ptrtoint, ret, icmp...: counted as written
            for v in used:
                for r in roots[v]:
                    written.add(r)
    return [(s, n) for s, n in sorted(reads.items()) if s not in written]


def main():
    if len(sys.argv) != 2:
        print("usage: unwritten_slots.py FILE.ll", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding='utf-8', errors='replace') as f:
            text = f.read().splitlines()
    except OSError as e:
        print(f"unwritten_slots.py: {e}", file=sys.stderr)
        return 2
    found = 0
    function, body = None, []
    for line in text:
        if line.startswith('define '):
            m = re.search(r'@("[^"]+"|[-\w.$]+)\(', line)
            function, body = (m.group(1) if m else '?'), []
        elif line.startswith('}') and function is not None:
            for slot, n in slots(body):
                print(f"{function}: {slot} read {n} times, never written")
                found += 1
            function = None
        elif function is not None:
            body.append(line)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
