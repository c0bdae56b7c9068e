"""Each file of tests/data/decode (made with Debian's tools, SOURCES.md there says how) decoded
by vkfx (`box:radius=0` to PNG) gives Pillow's pixels within one code, as
tests/bench/corpus.py compares them, and a damaged one decodes with the note that says so.

    python3 tests/test_decode_refs.py VKFX DATA_DIR

Needs Pillow (Debian's python3-pil)."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
try:
    from PIL import Image, ImageFile
except ImportError:
    sys.exit("test_decode_refs: Pillow is missing: apt-get install python3-pil")
import corpus  # noqa: E402

# The note each damaged file must bring (its words, in order); the others must bring none.
NOTES = {
    "jpeg_extraneous.jpg": ["damaged JPEG", "7 extraneous bytes before marker"],
    "jpeg_truncated.jpg": ["damaged JPEG", "Premature end of JPEG file"],
    "jpeg_damaged_icc.jpg": ["its ICC profile is damaged", "read as sRGB"],
    "png_corrupt_iccp.png": ["its ICC profile is corrupt", "read as sRGB"],
    "extra_unspecified.tif": ["1 extra sample that is no alpha", "left out"],
}


def main(vkfx, data):
    # libjpeg's decode of a cut file, gray where data is missing, as vkfx gives it
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    failures = []
    names = sorted(f for f in os.listdir(data) if not f.endswith(".md"))
    if len(names) < 16:
        failures.append("only %d files in %s" % (len(names), data))
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            path = os.path.join(data, name)
            out = os.path.join(work, name + ".png")
            r = subprocess.run([vkfx, path, "-f", "box:radius=0", "-o", out],
                               capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                failures.append("%s: exit %d: %s" % (name, r.returncode, r.stderr.strip()))
                continue
            notes = [line for line in r.stderr.splitlines() if line.startswith("vkfx: note: ")]
            want = NOTES.get(name)
            if want:
                line = notes[0] if len(notes) == 1 else ""
                at = 0
                for word in [name] + want:
                    at = line.find(word, at)
                    if at < 0:
                        failures.append("%s: note %r lacks %r" % (name, notes, word))
                        break
            elif notes:
                failures.append("%s: unexpected notes %r" % (name, notes))
            fmt, ref = corpus.reference(path)
            if fmt is None:
                failures.append("%s: Pillow does not open it: %s" % (name, ref))
                continue
            with Image.open(out) as o:
                o.load()
                why = corpus.compare(corpus.to_srgb_as(ref, o),
                                     o if o.mode != "I;16" else o.convert("I"))
            if why:
                failures.append("%s [%s]: %s" % (name, fmt, why))
            else:
                print("same %s [%s]" % (name, fmt))
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
