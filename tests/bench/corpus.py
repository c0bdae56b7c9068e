"""Decodes every file of some folders with vkfx (`box:radius=0` to PNG) and with Pillow
(orientation applied), and says for how many vkfx gives Pillow's pixels.

    /usr/bin/python3 tests/bench/corpus.py [--list] [--all-formats] VKFX DIR...

Files are taken from the folders and their subfolders. A file Pillow does not open is left
out. Of the others, in the formats vkfx reads (PNG, JPEG, TIFF, WebP, BMP, TGA, GIF, PSD; with
--all-formats every format Pillow opens), each is either "same" (every sample within one code
of Pillow's at the reference's depth), "differs" (with the worst sample) or "refused" (with
vkfx's one-line reason). Printed: the counts, then each refusal and difference (--list: also
the files that came out the same).

The reference is what a viewer shows: palette expanded, CMYK turned into RGB through the file's
ICC profile (lcms2, relative colorimetric, as vkfx does) or Pillow's plain formula without one,
Lab through lcms2 into sRGB. Colour under a fully transparent pixel is not compared (vkfx works
on premultiplied colour, where it is gone). Pillow reads a 16-bit RGB PNG as 8 bits, so those
compare at 8 bits."""
import io
import json
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageChops, ImageCms, ImageMath, ImageOps

VKFX_FORMATS = {"PNG", "JPEG", "MPO", "TIFF", "WEBP", "BMP", "DIB", "TGA", "GIF", "PSD"}


def png_depth(path, fmt):
    """The bit depth of a PNG's samples (8 for other formats)."""
    with open(path, "rb") as f:
        head = f.read(25)
    return head[24] if fmt == "PNG" and len(head) == 25 else 8


def reference(path):
    """(Pillow's format, the image as a viewer shows it) or (None, Pillow's reason)."""
    try:
        im = Image.open(path)
        fmt = im.format
        bits = getattr(im, "tag_v2", {}).get(258)
        bits = bits[0] if isinstance(bits, tuple) else bits
        im.load()
        # Pillow's TIFF loader turns the pixels by the orientation tag itself (load_end), and
        # exif_transpose would turn them again.
        if not (fmt == "TIFF" and getattr(im, "_tile_orientation", None)):
            im = ImageOps.exif_transpose(im)
            im.load()
    except Exception as e:  # Pillow's refusals are of every kind
        return None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    icc = im.info.get("icc_profile")
    srgb = ImageCms.createProfile("sRGB")
    if im.mode == "CMYK":
        if icc:
            try:
                prof = ImageCms.ImageCmsProfile(io.BytesIO(icc))
                return fmt, ImageCms.profileToProfile(im, prof, srgb, outputMode="RGB")
            except Exception:
                pass
        return fmt, im.convert("RGB")
    if im.mode == "LAB":
        # unoptimised: lcms2's 8-bit shortcut interpolates a table, several codes off
        lab = ImageCms.createProfile("LAB")
        xf = ImageCms.buildTransform(lab, srgb, "LAB", "RGB", flags=ImageCms.FLAGS["NOTPRECALC"])
        return fmt, ImageCms.applyTransform(im, xf)
    if fmt == "TIFF" and im.mode.startswith("I;16") and bits and 8 < bits < 16:
        # Pillow leaves 9 to 15-bit samples as stored (12-bit white is 4095); a viewer scales
        return fmt, im.convert("I").point(lambda v: v * 65535.0 / ((1 << bits) - 1) + 0.5)
    if im.mode in ("P", "PA"):
        return fmt, im.convert("RGBA" if im.mode == "PA" or "transparency" in im.info else "RGB")
    if im.mode in ("L", "RGB", "I", "I;16", "1") and "transparency" in im.info:
        # A tRNS colour: Pillow keeps it aside, a viewer shows it transparent.
        t = im.info["transparency"]
        depth = png_depth(path, fmt)
        if isinstance(t, int) and im.mode in ("L", "1") and depth < 8:
            t = t * 255 // ((1 << depth) - 1)
        if isinstance(t, tuple) and depth == 16:
            t = tuple(c >> 8 for c in t)  # Pillow keeps the high byte of 16-bit RGB
        if im.mode.startswith("I"):
            im = im.point(lambda v: v / 257.0 + 0.5).convert("L") if isinstance(t, int) else im
            t = (t + 128) // 257 if isinstance(t, int) else t
        base = im.convert("RGB")
        mask = (im.convert("L") if im.mode != "RGB" else base).point(lambda v: 0 if v == t else 255) \
            if isinstance(t, int) else None
        if mask is None and isinstance(t, tuple):
            bands = [b.point(lambda v, c=c: 255 if v == c else 0) for b, c in zip(base.split(), t)]
            mask = ImageChops.invert(ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]),
                                                        bands[2]))
        if mask is not None:
            base.putalpha(mask)
            return fmt, base
    if im.mode == "1":
        return fmt, im.convert("L")
    if im.mode in ("La", "LA"):
        return fmt, im.convert("LA")
    if im.mode in ("RGBa", "RGBX"):
        return fmt, im.convert("RGBA" if im.mode == "RGBa" else "RGB")
    if im.mode.startswith("I;16") or im.mode == "I":
        # signed samples below 0 are 0 in a 16-bit PNG, as Pillow writes one
        return fmt, ImageMath.eval("min(max(a, 0), 65535)", a=im.convert("I"))
    if im.mode in ("YCbCr", "HSV"):
        return fmt, im.convert("RGB")
    return fmt, im


def to_srgb_as(ref, out):
    """ref taken to sRGB through its ICC profile where vkfx's output has none (vkfx converted
    it: a profile without tone curves), else ref; a profile lcms2 cannot use stays unapplied,
    as vkfx reads such pixels as sRGB."""
    icc = ref.info.get("icc_profile")
    if not icc or out.info.get("icc_profile") or ref.mode not in ("RGB", "RGBA", "L", "LA"):
        return ref
    try:
        prof = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        srgb = ImageCms.createProfile("sRGB")
        conv = ImageCms.profileToProfile(ref, prof, srgb, outputMode=ref.mode)
    except Exception:  # a damaged profile: vkfx read the pixels as sRGB too
        return ref
    conv.info["icc_profile"] = None
    return conv


def split_alpha(im):
    """(colour bands, alpha band or None), gray and RGB as RGB."""
    if im.mode in ("LA", "RGBA"):
        a = im.getchannel("A")
        return im.convert("RGB"), a
    return im.convert("RGB") if im.mode != "I" else im, None


def compare(ref, out):
    """None when out gives ref's samples within one code, else a reason."""
    if ref.size != out.size:
        return "size %dx%d, Pillow %dx%d" % (out.size + ref.size)
    if ref.mode == "I" or out.mode == "I":
        # 16-bit gray on either side: compare at the coarser depth.
        if ref.mode == "I" and out.mode == "I":
            worst = ImageMath.eval("abs(a - b)", a=ref, b=out).getextrema()[1]
            return None if worst <= 1 else "worst 16-bit gray difference %d" % worst
        if ref.mode == "I":
            ref = ref.point(lambda v: v / 257.0 + 0.5).convert("L")
        else:
            out = out.point(lambda v: v / 257.0 + 0.5).convert("L")
    if ref.mode == "F":
        return "Pillow reads float samples (%s); not compared" % ref.mode
    rc, ra = split_alpha(ref)
    oc, oa = split_alpha(out)
    opaque = Image.new("L", ref.size, 255)
    ra, oa = ra or opaque, oa or opaque
    worst_a = ImageChops.difference(ra, oa).getextrema()[1]
    if worst_a > 1:
        return "worst alpha difference %d" % worst_a
    seen = ra.point(lambda a: 255 if a else 0)
    diff = ImageChops.difference(rc, oc)
    diff = ImageChops.multiply(diff, Image.merge("RGB", (seen, seen, seen)))
    worst = max(hi for _, hi in diff.getextrema())
    if worst > 1:
        box = diff.point(lambda v: 255 if v > 1 else 0).getbbox()
        return "worst colour difference %d (in %s)" % (worst, box)
    return None


def run_vkfx(vkfx, files, work):
    """{input path: (output path, error or None)} of one batch run of vkfx."""
    log = os.path.join(work, "runs.json")
    cmd = [vkfx, *files, "-f", "box:radius=0", "-o", os.path.join(work, "{index}.png"),
           "--quiet", "--json=" + log]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=3600)
    got = {}
    if os.path.exists(log):
        for line in open(log):
            r = json.loads(line)
            got[r["input"]] = (r.get("output"), None if r["status"] == "ok" else r.get("error"))
    return got


def main(argv):
    listing = "--list" in argv
    all_formats = "--all-formats" in argv
    args = [a for a in argv if not a.startswith("--")]
    if len(args) < 2:
        sys.exit(__doc__)
    vkfx, dirs = args[0], args[1:]
    files = sorted(os.path.join(d, f) for top in dirs for d, _, fs in os.walk(top) for f in fs)
    refs, pillow_no, other = {}, 0, 0
    for f in files:
        fmt, im = reference(f)
        if fmt is None:
            pillow_no += 1
        elif all_formats or fmt in VKFX_FORMATS:
            refs[f] = (fmt, im)
        else:
            other += 1
    with tempfile.TemporaryDirectory() as work:
        got = run_vkfx(vkfx, list(refs), work) if refs else {}
        # A file the batch did not report on (vkfx stopped) runs alone, so one cannot hide others.
        for f in refs:
            if f not in got:
                one = tempfile.mkdtemp(dir=work)
                try:
                    got.update(run_vkfx(vkfx, [f], one))
                except subprocess.TimeoutExpired:
                    pass
                got.setdefault(f, (None, "vkfx stopped without a report (crash or hang)"))
        same, differs, refused = [], [], []
        for f, (fmt, ref) in refs.items():
            out, err = got[f]
            if err:
                refused.append((f, fmt, " ".join(err.split())))
                continue
            with Image.open(out) as o:
                o.load()
                ref = to_srgb_as(ref, o)
                why = compare(ref, o if o.mode != "I;16" else o.convert("I"))
            (differs.append((f, fmt, why)) if why else same.append(f))
    n = len(refs)
    print("files %d, Pillow opens %d (%d in formats vkfx does not read%s)" %
          (len(files), len(files) - pillow_no, other, ", counted" if all_formats else ", left out"))
    print("compared %d: same %d (%.1f%%), refused %d, differs %d" %
          (n, len(same), 100.0 * len(same) / max(n, 1), len(refused), len(differs)))
    for f, fmt, why in refused:
        print("refused %s [%s]: %s" % (f, fmt, why))
    for f, fmt, why in differs:
        print("differs %s [%s]: %s" % (f, fmt, why))
    if listing:
        for f in same:
            print("same %s" % f)


if __name__ == "__main__":
    main(sys.argv[1:])
