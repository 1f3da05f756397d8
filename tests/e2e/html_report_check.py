#!/usr/bin/env python3
"""Opens brrr's HTML report in a real headless Chromium and checks what a person would see.

1. `chromium --headless --dump-dom`: the rendered DOM's text holds every --expect string, and no
   element points at the network (no http(s)/ftp or protocol-relative URL in src, href,
   xlink:href, action, formaction, data, poster, srcset or background; no <link>, <iframe>,
   <object> or <embed>; no url(...) reaching outside in a style).
2. `--screenshot --window-size=1400,1000`: the PNG (read with zlib + struct) is 1400x1000, not
   blank (many distinct colours, no colour covering 97% of it), and shows the breakdown colours
   named by --colour (#rrggbb; the exact pixel, as the charts fill their shapes with it).

Exit status: 0 pass, 1 fail (reasons on stderr), 77 Chromium missing (the caller skips).
Must never: fetch anything (Chromium runs with the network off) or leave its profile behind.
"""
import argparse
import html.parser
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "data", "poster", "srcset",
             "background", "cite", "longdesc", "manifest", "ping"}
OUTSIDE = re.compile(r"^\s*(https?:|ftp:|//)", re.I)
FORBIDDEN_TAGS = {"link", "iframe", "object", "embed", "base"}


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []
        self.problems = []

    def handle_starttag(self, tag, attrs):
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}> element")
        for name, value in attrs:
            value = value or ""
            if name in URL_ATTRS and OUTSIDE.search(value):
                self.problems.append(f"<{tag} {name}={value!r}>")
            if name == "style" and re.search(r"url\(\s*['\"]?\s*(https?:|//)", value, re.I):
                self.problems.append(f"<{tag} style={value!r}>")

    def handle_data(self, data):
        self.text.append(data)


def png_pixels(path):
    """(width, height, list of RGB tuples) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                raise ValueError(f"unsupported PNG: depth {depth} colour type {colour}")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if width is None:
        raise ValueError("no IHDR")
    raw = zlib.decompress(idat)
    stride = width * bpp
    pixels, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if filt == 1:
                line[i] = (line[i] + a) & 0xff
            elif filt == 2:
                line[i] = (line[i] + b) & 0xff
            elif filt == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xff
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xff
        pixels.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return width, height, pixels


def chromium(binary, profile, *args):
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--disable-background-networking", "--disable-sync",
           "--proxy-server=127.0.0.1:9", "--hide-scrollbars", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                          check=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--html", required=True)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--colour", action="append", default=[])
    ap.add_argument("--screenshot-out", help="also keep the screenshot here")
    args = ap.parse_args()
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        print("SKIP: chromium is not installed (tools/setup.sh installs it)", file=sys.stderr)
        return 77
    url = "file://" + os.path.abspath(args.html)
    failures = []
    with tempfile.TemporaryDirectory(prefix="brrr-chromium-") as work:
        dump = chromium(binary, os.path.join(work, "profile"), "--dump-dom", url)
        if dump.returncode != 0 or not dump.stdout:
            print(dump.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
            return 1
        dom = Dom()
        dom.feed(dump.stdout.decode("utf-8", errors="replace"))
        text = " ".join(" ".join(dom.text).split())
        for want in args.expect:
            if " ".join(want.split()) not in text:
                failures.append(f"the page does not show {want!r}")
        failures += [f"points outside the page: {p}" for p in dom.problems]

        shot = os.path.join(work, "shot.png")
        run = chromium(binary, os.path.join(work, "profile"), f"--screenshot={shot}",
                       "--window-size=1400,1000", url)
        if run.returncode != 0 or not os.path.exists(shot):
            print(run.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
            return 1
        if args.screenshot_out:
            shutil.copyfile(shot, args.screenshot_out)
        width, height, pixels = png_pixels(shot)
        counts = {}
        for p in pixels:
            counts[p] = counts.get(p, 0) + 1
        top = max(counts.values())
        print(f"screenshot {width}x{height}: {len(counts)} distinct colours, the commonest "
              f"{100.0 * top / len(pixels):.1f}% of the pixels")
        if (width, height) != (1400, 1000):
            failures.append(f"screenshot is {width}x{height}, not 1400x1000")
        if len(counts) < 50 or top > 0.97 * len(pixels):
            failures.append("the screenshot is blank or nearly so")
        for colour in args.colour:
            rgb = tuple(int(colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
            if counts.get(rgb, 0) < 100:
                failures.append(f"colour {colour} is not on screen (charts not drawn?)")
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
