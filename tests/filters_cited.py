#!/usr/bin/env python3
"""Citations of FILTERS.md lead somewhere: every section a source names (FILTERS.md "Depth of
field", "Pixels" section of FILTERS.md, FILTERS.md#anchor) is a heading of FILTERS.md, every
phrase quoted from it (FILTERS.md's "alpha 0 gives RGB 0") is in it, its own #links resolve,
and nothing cites a copy outside the repository. Usage: filters_cited.py SOURCE_ROOT"""
import os
import re
import sys

# A quoted name, which may run over a comment's line break ("Geometry and everyday\n * filters").
QUOTE = r'"([^"]{1,80}?)"'
# One or more names: FILTERS.md "Summed-area tables" and "Depth of field".
SECTION_AFTER = re.compile(r'FILTERS\.md\s*\(?\s*(' + QUOTE + r'(?:\s*(?:,|and)\s*' + QUOTE + ')*)')
SECTION_BEFORE = re.compile(QUOTE + r'\s+section\s+of\s+FILTERS\.md')
ANCHOR = re.compile(r'FILTERS\.md#([A-Za-z0-9_-]+)')
PHRASE = re.compile(r"FILTERS\.md's\s+" + QUOTE)
OUTSIDE = re.compile(r'shared/FILTERS\.md')
SKIP_DIRS = {'.git', 'node_modules', 'subprojects', '__pycache__'}


def joined(text):
    """text with its line breaks, and the comment markers after them, as single spaces."""
    return re.sub(r'\s*\n\s*(?:\*(?!/)|//+|#+)?\s*', ' ', text).strip()


def slug(title):
    """The anchor a Markdown renderer gives a heading (GitHub's rule)."""
    s = re.sub(r'[^\w\- ]', '', title.strip().lower())
    return s.replace(' ', '-')


def headings(text):
    titles, fence = [], False
    for line in text.splitlines():
        if line.startswith('```'):
            fence = not fence
        m = None if fence else re.match(r'#{1,6}\s+(.+?)\s*#*\s*$', line)
        if m:
            titles.append(m.group(1))
    return titles


def sources(root):
    for top, dirs, files in os.walk(root):
        # Build folders of any name (meson's hold meson-private) hold logs that quote sources.
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and
                         not os.path.isdir(os.path.join(top, d, 'meson-private')))
        for name in sorted(files):
            path = os.path.join(top, name)
            if os.path.getsize(path) > 4 << 20:
                continue
            try:
                with open(path, encoding='utf-8') as f:
                    yield path, f.read()
            except (UnicodeDecodeError, OSError):
                continue


def main():
    root = sys.argv[1]
    with open(os.path.join(root, 'FILTERS.md'), encoding='utf-8') as f:
        contract = f.read()
    titles = headings(contract)
    slugs = {slug(t) for t in titles}
    flat = ' '.join(contract.split())
    problems = []
    for m in re.finditer(r'\]\(#([^)]+)\)', contract):
        if m.group(1) not in slugs:
            problems.append(f'FILTERS.md: link #{m.group(1)} names no heading')
    cited = 0
    for path, text in sources(root):
        rel = os.path.relpath(path, root)
        if rel == 'FILTERS.md' or rel == os.path.join('tests', 'filters_cited.py'):
            continue

        def where(m):
            return f'{rel}:{text.count(chr(10), 0, m.start()) + 1}'

        named = [(m, re.findall(QUOTE, m.group(1))) for m in SECTION_AFTER.finditer(text)]
        named += [(m, [m.group(1)]) for m in SECTION_BEFORE.finditer(text)]
        for m, names in named:
            for name in map(joined, names):
                cited += 1
                if name not in titles:
                    problems.append(f'{where(m)}: cites FILTERS.md "{name}", which is no heading')
        for m in ANCHOR.finditer(text):
            cited += 1
            if m.group(1) not in slugs:
                problems.append(f'{where(m)}: FILTERS.md#{m.group(1)} names no heading')
        for m in PHRASE.finditer(text):
            cited += 1
            if ' '.join(joined(m.group(1)).split()) not in flat:
                problems.append(f'{where(m)}: quotes "{joined(m.group(1))}", not in FILTERS.md')
        for m in OUTSIDE.finditer(text):
            problems.append(f'{where(m)}: cites a FILTERS.md outside the repository')
    if cited == 0:
        problems.append('no citation of a FILTERS.md section found: is the root right?')
    for p in problems:
        print(p)
    print(f'{cited} citations of FILTERS.md checked against {len(titles)} headings, '
          f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
