#!/usr/bin/env python3
"""What `meson install` installs besides the binary, as built: bash's completion run on a few
prefixes (through the function the generated file registers, as bash calls it on Tab), zsh's
(an interactive zsh in a pseudo-terminal, tests/zsh_complete.zsh) and fish's (`complete -C`)
on the same kind of prefixes, and the
man page holding the text of `vkfx --help` and of `vkfx --help-filter` for every filter. And
the README's CI example as written, against goldens of which two differ: every golden is
compared, each failure reported and its heat map written, and the job fails. And the README's
first command installing what running needs only: the packages only tests need (Criterion,
the validation layer, Chromium, Node.js, Slurm, munge) come with the second, and .ci/run
installs both lists.

usage: test_docs.py VKFX BASH_COMPLETION MAN_PAGE README ZSH_COMPLETION FISH_COMPLETION
"""
import os
import re
import subprocess
import sys
import tempfile

vkfx, completion, man, readme, zsh_completion, fish_completion = (
    os.path.abspath(a) for a in sys.argv[1:7])
failures = []


def complete(line):
    """What bash would offer for the command line typed so far (Tab at its end)."""
    script = ('source "$1" || exit 9\n'
              'COMP_LINE=$2; COMP_POINT=${#COMP_LINE}\n'
              'read -ra COMP_WORDS <<<"$COMP_LINE"; COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n'
              '[[ $(complete -p vkfx) == *"-F _vkfx"* ]] || exit 8\n'
              '_vkfx\n'
              'printf "%s\\n" "${COMPREPLY[@]}"\n')
    r = subprocess.run(["bash", "--norc", "-c", script, "bash", completion, line],
                       capture_output=True, text=True, cwd="/")
    if r.returncode != 0:
        failures.append("%r: bash exited %d: %s" % (line, r.returncode, r.stderr))
    return [w for w in r.stdout.split("\n") if w]


cases = [
    ("vkfx a.png -f gau", ["gauss"]),
    ("vkfx a.png -f gauss:sigma=2,sob", ["2,sobel"]),   # bash replaces what follows '='
    ("vkfx a.png -f resize:ker", ["kernel="]),
    ("vkfx a.png -f resize:kernel=mi", ["mitchell"]),
    ("vkfx a.png -f resize:width=8:fit=c", ["cover"]),
    ("vkfx a.png --filter sobel:invert=", ["0", "1"]),
    ("vkfx --help-filter bok", ["bokeh"]),
    ("vkfx a.png --qui", ["--quiet"]),
    ("vkfx a.png --backg", ["--background"]),
    ("vkfx inf", ["info"]),
]
for line, want in cases:
    got = complete(line)
    if got != want:
        failures.append("%r completes to %r, not %r" % (line, got, want))



def shell_words(argv, what):
    """The output of argv, a shell asked for completions; a failure noted under what."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace", cwd="/",
                           timeout=30)
    except FileNotFoundError:
        failures.append("%s: %s is not installed (.ci/packages-test.txt)" % (what, argv[0]))
        return None
    except subprocess.TimeoutExpired:
        failures.append("%s: no answer within 30 s" % what)
        return None
    if r.returncode != 0:
        failures.append("%s: %s exited %d: %s" % (what, argv[0], r.returncode, r.stderr))
        return None
    return r.stdout


# zsh adds what a match completes after the prefix it keeps ("sob" after "gauss:sigma=2,");
# fish gives the whole word.
zsh_driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zsh_complete.zsh")
other_cases = [
    ("vkfx inf", ["info"], ["info"]),
    ("vkfx a.png -f gau", ["gauss"], ["gauss"]),
    ("vkfx a.png -f gauss:sigma=2,sob", ["sobel"], ["gauss:sigma=2,sobel"]),
    ("vkfx a.png -f resize:kernel=mi", ["mitchell"], ["resize:kernel=mitchell"]),
    ("vkfx a.png --qui", ["--quiet"], ["--quiet"]),
    ("vkfx --help-filter bok", ["bokeh"], ["bokeh"]),
]
for line, zsh_want, fish_want in other_cases:
    out = shell_words(["zsh", "-f", zsh_driver, os.path.dirname(zsh_completion), line],
                      "zsh %r" % line)
    if out is not None:
        got = sorted({w for group in re.findall(r"<<([^<>]*)>>", out) for w in group.split()})
        if got != zsh_want:
            failures.append("zsh: %r completes to %r, not %r" % (line, got, zsh_want))
    out = shell_words(["fish", "--no-config", "-c",
                       "source $argv[1]; and complete -C $argv[2]", fish_completion, line],
                      "fish %r" % line)
    if out is not None:
        got = [l.split("\t")[0] for l in out.splitlines() if l]
        if got != fish_want:
            failures.append("fish: %r completes to %r, not %r" % (line, got, fish_want))

page = open(man).read()
help_text = subprocess.run([vkfx, "--help"], capture_output=True, text=True, check=True).stdout
filters = [l.split()[0] for l in subprocess.run([vkfx, "--filters"], capture_output=True,
                                                 text=True, check=True).stdout.splitlines()
           if l and not l.startswith("'")]
for line in help_text.splitlines()[:3] + [help_text.splitlines()[-1]]:
    if line.replace("\\", "\\e") not in page:
        failures.append("the man page lacks the --help line %r" % line)
for name in filters:
    first = subprocess.run([vkfx, "--help-filter", name], capture_output=True, text=True,
                           check=True).stdout.splitlines()[0]
    if ".SS %s\n" % name not in page or first not in page:
        failures.append("the man page lacks --help-filter %s" % name)

# The README's CI example: its first shell block after "A CI job".
text = open(readme).read()
m = re.search(r"A CI job.*?```sh\n(.*?)```", text, re.S)
if not m:
    failures.append("the README has no CI example")
else:
    with tempfile.TemporaryDirectory(prefix="vkfx-docs-") as tmp:
        os.symlink(os.path.join(os.path.dirname(readme), "images"), os.path.join(tmp, "images"))
        os.mkdir(os.path.join(tmp, "golden"))
        for args in (["images/chelsea.png", "-f", "gauss:sigma=3", "-o", "golden/soft.png"],
                     ["images/chelsea.png", "-f", "sobel", "-o", "golden/edges.png"],
                     ["images/coffee.png", "-f", "cartoon:sigma=3", "-o",
                      "golden/coffee-cartoon.png"]):
            subprocess.run([vkfx, "--quiet"] + args, cwd=tmp, check=True)
        env = dict(os.environ, PATH=os.path.dirname(vkfx) + os.pathsep + os.environ["PATH"])
        r = subprocess.run(["bash", "-c", m.group(1)], cwd=tmp, env=env, capture_output=True,
                           text=True)
        out = r.stdout
        if r.returncode == 0 or "2 golden image(s) differ" not in out:
            failures.append("the CI example: exit %d:\n%s%s" % (r.returncode, out, r.stderr))
        if out.count("result=fail") != 2 or out.count("result=pass") != 1:
            failures.append("the CI example did not compare every golden:\n" + out)
        for name in ("edges.png", "coffee-cartoon.png"):
            if not os.path.exists(os.path.join(tmp, "diff", name)):
                failures.append("the CI example wrote no diff/" + name)

# The packages: the first command's list holds none of the tests'.
root = os.path.dirname(readme)
def package_list(name):
    return [l.strip() for l in open(os.path.join(root, ".ci", name)) if l.strip()]
run_list, test_list = package_list("packages-run.txt"), package_list("packages-test.txt")
for p in ("libcriterion-dev", "vulkan-validationlayers", "chromium", "nodejs", "slurm-wlm",
          "munge"):
    if p not in test_list or p in run_list:
        failures.append("%s should be installed by the test command only" % p)
if set(run_list) & set(test_list):
    failures.append("in both package lists: %s" % sorted(set(run_list) & set(test_list)))
blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
if len(blocks) < 2 or "packages-run.txt" not in blocks[0] or "packages-test.txt" in blocks[0] \
        or "packages-test.txt" not in blocks[1] or "-Dtests=false" not in blocks[0]:
    failures.append("the README's first command should install .ci/packages-run.txt only "
                    "and build without the tests, the second .ci/packages-test.txt")
ci = open(os.path.join(root, ".ci", "run")).read()
if "packages-run.txt" not in ci or "packages-test.txt" not in ci:
    failures.append(".ci/run should install both package lists")

for f in failures:
    print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
