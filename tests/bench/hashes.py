"""SHA-256 of vkfx's outputs for every filter on the bundled photos, to see
which outputs one device gives byte for byte like another.

    python3 tests/bench/hashes.py [--only WORD] [--check GOLDEN] VKFX IMAGES_DIR OUT_FILE [WORK_DIR]

Runs each chain below as one batch over the colour and gray photos (the depth
filters on the motorcycle with its disparity map), writing 8-bit PNG, half
and float OpenEXR, and a 16-bit PNG from the 16-bit disparity map, then
writes one line per output: chain, file, sha256. Two such files (one device
each, or one lavapipe subgroup width each: LP_NATIVE_VECTOR_WIDTH=128, 256,
512) compare with `diff` or `python3 tests/bench/hashes.py --compare A B`.
With --only, just the chains whose text contains WORD (or one of its
comma-separated words); with --check, the outputs are then compared with
GOLDEN's (tests/data/hashes-exact.txt: what the suite checks), naming each
that differs, and the exit status is 1 unless every one is the same."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

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
]
DEPTH = "{img}/motorcycle_disparity16.png"
DEPTH_CHAINS = [
    "satdof:depth=" + DEPTH + ":kind=disparity:focus=0.75:range=0.4:maxcoc=12",
    "dof:depth=" + DEPTH + ":kind=disparity:focus=0.75:range=0.4:maxcoc=12",
    "bokeh:depth=" + DEPTH + ":kind=disparity:focus=0.75:range=0.4:maxcoc=12",
]


def compare(a, b):
    def load(p):
        return {tuple(line.split()[:2]): line.split()[2] for line in open(p) if line.strip()}
    ha, hb = load(a), load(b)
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
    only, golden = "", None
    while args[0] in ("--only", "--check"):
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
    jobs = [(c, i) for c, i in jobs if any(w in c for w in only.split(","))]
    for chain, inputs in jobs:
        for ext, extra in (("png", []), ("exr", []), ("f.exr", ["--exr-float"])):
            d = os.path.join(work, "o")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            target = os.path.join(d, "{stem}." + ext.split(".")[-1])
            r = subprocess.run([vkfx, "-f", chain, "-o", target, *extra, *inputs],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{chain} -> {ext}: exit {r.returncode}: {r.stderr.strip()}")
            for name in sorted(os.listdir(d)):
                h = hashlib.sha256(open(os.path.join(d, name), "rb").read()).hexdigest()
                short = chain.replace(images + "/", "")
                lines.append(f"{short} {os.path.splitext(name)[0]}.{ext} {h}")
    with open(out_file, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} outputs hashed into {out_file}")
    return compare(golden, out_file) if golden else 0


if __name__ == "__main__":
    sys.exit(main())
