"""The charts an operator's analysis writes into its workspace (§12a): small, real PNGs."""

from __future__ import annotations

import struct
import zlib


def bar_chart_png(values: list[int], width: int = 48, height: int = 32) -> bytes:
    """A small, real PNG: one bar per value on a white ground."""
    top = max(values) or 1
    slot = width // len(values)
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter type: none
        for x in range(width):
            bar = x // slot
            filled = bar < len(values) and x % slot < slot - 2 and height - y <= values[bar] * height // top
            row += b"\x2b\x6c\xb0" if filled else b"\xff\xff\xff"
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )
