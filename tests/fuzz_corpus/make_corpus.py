#!/usr/bin/env python3
"""Writes the seed corpus of the libMeshb reader's fuzz target (meshb/): small
valid files of every binary version and byte order, an ASCII file, and a few
broken ones. An independent writer (struct.pack), so the seeds also cross-check
the C++ writer's idea of the format. Run from this directory."""
import struct

VERTS = [(0, 0, 0, 1), (1, 0, 0, 1), (0, 1, 0, 2), (0, 0, 1, 2), (1, 1, 1, 3)]
TETS = [(1, 2, 3, 4, 7), (2, 3, 4, 5, 8)]
TRIS = [(1, 3, 2, 1), (1, 2, 4, 1)]


def binary(version, endian):
    e = "<" if endian == "le" else ">"
    pos = "q" if version >= 3 else "i"
    num = "q" if version >= 4 else "i"
    real = "d" if version >= 2 else "f"
    out = bytearray(struct.pack(e + "ii", 1, version))

    def block(keyword, body):
        start = len(out)
        nxt = start + 4 + struct.calcsize(pos) + len(body)
        out.extend(struct.pack(e + "i" + pos, keyword, nxt) + body)

    block(3, struct.pack(e + "i", 3))
    body = struct.pack(e + num, len(VERTS))
    for x, y, z, r in VERTS:
        body += struct.pack(e + real * 3 + num, x, y, z, r)
    block(4, body)
    block(77, struct.pack(e + "iii", 5, 6, 7))  # unknown keyword: skipped by position
    for keyword, rows in ((6, TRIS), (8, TETS)):
        body = struct.pack(e + num, len(rows))
        for row in rows:
            body += struct.pack(e + num * len(row), *row)
        block(keyword, body)
    out.extend(struct.pack(e + "i" + pos, 54, 0))
    return bytes(out)


def ascii():
    lines = ["MeshVersionFormatted 2", "", "Dimension 3", "", "Vertices", str(len(VERTS))]
    lines += ["%g %g %g %d" % v for v in VERTS]
    lines += ["", "Corners", "1", "1", "", "Triangles", str(len(TRIS))]
    lines += [" ".join(map(str, t)) for t in TRIS]
    lines += ["", "Tetrahedra", str(len(TETS))] + [" ".join(map(str, t)) for t in TETS] + ["", "End", ""]
    return "\n".join(lines).encode()


files = {}
for v in (1, 2, 3, 4):
    for endian in ("le", "be"):
        files["tets_v%d_%s.meshb" % (v, endian)] = binary(v, endian)
files["tets.mesh"] = ascii()
good = binary(2, "le")
files["truncated.meshb"] = good[: len(good) - 9]
files["bad_position.meshb"] = good[:12] + struct.pack("<i", 1 << 30) + good[16:]
files["bad_index.mesh"] = ascii().replace(b"2 3 4 5 8", b"2 3 4 9 8")
for name, data in files.items():
    with open("meshb/" + name, "wb") as f:
        f.write(data)
print("wrote %d seeds" % len(files))
