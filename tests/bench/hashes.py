"""SHA-256 of vkfx's outputs for every filter on pieces of the bundled photos, to see
which outputs one device gives byte for byte like another.

    python3 tests/bench/hashes.py [--only WORD] [--check GOLDEN] [--fast] VKFX IMAGES_DIR OUT_FILE [WORK_DIR]

IMAGES_DIR is tests/data/golden (made by its make.py: every decoder, profile and metadata
path of the photos at a third of their pixels, which is most of the run's time).
Runs each chain below as one batch over the colour and gray photos (the depth
filters on the motorcycle with its disparity map; three chains also over an
8- or a 16-bit RGBA image with every alpha, which the script makes in
WORK_DIR), writing 8-bit PNG, half and float OpenEXR, and 16-bit PNG from the
16-bit inputs, each chain at the precision vkfx picks and again at --precision 32 (named
CHAIN@32), then writes one line per output: chain, file, sha256. Two such files (one device
each, or one lavapipe subgroup width each: LP_NATIVE_VECTOR_WIDTH=128, 256,
512) compare with `diff` or `python3 tests/bench/hashes.py --compare A B`.
With --only, just the chains whose text contains WORD (or one of its
comma-separated words; "@32" picks the rgba32f runs); with --check, the
outputs are then compared with GOLDEN's lines of the chains run
(tests/data/hashes-exact.txt: what the suite checks), naming each that
differs, and the exit status is 1 unless every one is the same. --fast runs
vkfx --fast (the filters' fast paths, whose bytes may differ between devices)."""
import hashlib
import os
import shutil
import subprocess
import struct
import sys
import tempfile
import zlib

PHOTOS = ["astronaut.png", "camera.png", "chelsea.png", "coffee.png", "hubble_deep_field.jpg",
          "rocket.jpg"]
CHAINS = [
    "box:radius=0", "gauss:sigma=2", "gauss:sigma=8", "gauss:sigma=10:radius=32",
    "box:radius=1", "box:radius=15", "box3", "box3:order=zorder",
    "bilateral:sigma_s=4:sigma_r=0.08", "sobel", "sobel:invert=1:gain=2", "cartoon",
    "ripple:drops=12:seed=3:steps=120:strength=200", "histogram", "tonemap:key=0.36",
    "satblur:radius=12", "satblur:radius=12:shape=smooth",
    "resize:scale=0.37", "resize:width=150:kernel=mitchell", "resize:scale=1.7:kernel=linear",
    "resize:scale=0.5:kernel=box", "rotate,resize:width=211",
    "grayscale", "unsharp", "unsharp:sigma=0.7:amount=3:threshold=0.02",
    "crop:x=7:y=5:width=200:height=150", "rotate:angle=90", "flip:axis=v",
    "bilateral", "gauss:sigma=1", "gauss:sigma=3", "gauss:sigma=40",
]
# Made by this script in its work folder: RGBA with every alpha from 0 to the top, so that
# outputs divide colour by alpha (8- and 16-bit PNG). The chains, and the depths each takes:
# resize not at 16 bits, whose rgba32f products are not exact (README, Usage).
ALPHA_JOBS = [("box:radius=1", (8, 16)), ("resize:scale=0.37", (8,)),
              ("crop:x=7:y=5:width=200:height=150", (8, 16))]
DEPTH = "{img}/motorcycle_disparity16.png"
DEPTH_CHAINS = [
    "satdof:depth=" + DEPTH + ":kind=disparity:focus=0.75:range=0.4:maxcoc=12",
    "dof:depth=" + DEPTH + ":kind=disparity:focus=0.75:range=0.4:maxcoc=12",
    "bokeh:depth=" + DEPTH + ":kind=disparity:focus=0.75:range=0.4:maxcoc=12",
    "bokeh:depth=" + DEPTH + ":kind=disparity:focus=0.75:range=0.4:maxcoc=12:blades=6",
]


def write_rgba(path, depth, w=257, h=181):
    """An RGBA PNG of the given depth (8 or 16), samples from the pixel's position alone."""
    top = (1 << depth) - 1
    rows = bytearray()
    for y in range(h):
        rows.append(0)
        for x in range(w):
            px = ((x * 7 + y * 3) * 257 % (top + 1), (x * x + y * 131) % (top + 1),
                  ((x ^ y) * 263) % (top + 1), (x * 5 + y * 11) * (top // 255) % (top + 1))
            for v in px:
                rows += v.to_bytes(depth // 8, "big")

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))


def compare(a, b, chains=None):
    """A's outputs against B's; with chains, only A's lines of those chains."""
    def load(p):
        return {tuple(line.split()[:2]): line.split()[2] for line in open(p) if line.strip()}
    ha, hb = load(a), load(b)
    if chains is not None:
        ha = {k: v for k, v in ha.items() if k[0] in chains}
    same = sum(1 for k in ha if hb.get(k) == ha[k])
    for k in sorted(ha):
        if k in hb and hb[k] != ha[k]:
            print("differs:", *k)
    print(f"{same} of {len(ha)} outputs identical")
    return 0 if same == len(ha) == len(hb) else 1


def main():
    args = sys.argv[1:]
    if args[0] == "--compare":
        return compare(args[1], args[2])
    only, golden, fast = "", None, []
    while args[0] in ("--only", "--check", "--fast"):
        if args[0] == "--fast":
            fast = ["--fast"]
            args = args[1:]
            continue
        if args[0] == "--only":
            only = args[1]
        else:
            golden = args[1]
        args = args[2:]
    vkfx, images, out_file = args[:3]
    work = args[3] if len(args) > 3 else tempfile.mkdtemp()
    images = os.path.abspath(images)
    lines = []
    jobs = [(c, [os.path.join(images, p) for p in PHOTOS]) for c in CHAINS]
    jobs += [(c.format(img=images), [os.path.join(images, "motorcycle_left.png")])
             for c in DEPTH_CHAINS]
    jobs += [("box:radius=1", [os.path.join(images, "motorcycle_disparity16.png")])]
    os.makedirs(work, exist_ok=True)
    alpha = [os.path.join(work, "alpha%d.png" % depth) for depth in (8, 16)]
    for path, depth in zip(alpha, (8, 16)):
        write_rgba(path, depth)
    jobs += [(c, [alpha[(8, 16).index(d)] for d in depths]) for c, depths in ALPHA_JOBS]
    # The precision named on every line: a job file's default is 16, the command line's auto.
    jobs = ([(c, i, ["--precision", "auto"]) for c, i in jobs] +
            [(c + "@32", i, ["--precision", "32"]) for c, i in jobs])
    jobs = [(c, i, p) for c, i, p in jobs if any(w in c for w in only.split(","))]
    made = set()
    # One job file for the whole set, run by one `vkfx run` (one start-up, one device): each
    # chain's outputs in a folder of their own, one per format.
    formats = (("png", []), ("exr", []), ("f.exr", ["--exr-float"]))
    shutil.rmtree(os.path.join(work, "o"), ignore_errors=True)
    jobfile = os.path.join(work, "jobs.txt")
    with open(jobfile, "w") as f:
        for n, (label, inputs, precision) in enumerate(jobs):
            made.add(label.replace(images + "/", ""))
            for k, (ext, extra) in enumerate(formats):
                d = os.path.join(work, "o", "%d-%d" % (n, k))
                os.makedirs(d)
                words = [*inputs, "-f", label.split("@")[0], "-o",
                         os.path.join(d, "{stem}." + ext.split(".")[-1]), *precision, *fast, *extra]
                f.write(" ".join("'" + w + "'" for w in words) + "\n")
    r = subprocess.run([vkfx, "run", jobfile], capture_output=True, text=True)
    with open(out_file, "w") as out:
        for n, (label, inputs, precision) in enumerate(jobs):
            for k, (ext, extra) in enumerate(formats):
                d = os.path.join(work, "o", "%d-%d" % (n, k))
                for name in sorted(os.listdir(d)):
                    h = hashlib.sha256(open(os.path.join(d, name), "rb").read()).hexdigest()
                    short = label.replace(images + "/", "")
                    lines.append(f"{short} {os.path.splitext(name)[0]}.{ext} {h}")
                    out.write(lines[-1] + "\n")
    print(f"{len(lines)} outputs hashed into {out_file}")
    if r.returncode != 0:  # after writing what was made, which may still say much
        sys.exit(f"vkfx run {jobfile}: exit {r.returncode}: {r.stderr.strip()}")
    return compare(golden, out_file, made) if golden else 0


if __name__ == "__main__":
    sys.exit(main())
