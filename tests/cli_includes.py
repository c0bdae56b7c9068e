#!/usr/bin/env python3
"""cli/ sees the library through vkfx.h alone: every quoted include in cli/ is vkfx.h, a header
of cli/ itself or its generated page, and no angle include names a library core/ wraps (Vulkan,
lcms2, the codecs' libraries); every header of core/include/ includes only headers beside it.
The build enforces the first for names (cli/ compiles with core/include/ and cli/ alone); this
also catches paths, such as "../core/gpu/gpu.h", and libraries whose headers are on the system
path. Usage: cli_includes.py SOURCE_ROOT"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# Made in the build's cli/ from cli/preview.html (cli/meson.build).
GENERATED = {'preview_html.h'}
# The libraries core/ wraps; cli/ reaches them through core's calls only.
WRAPPED = re.compile(r'^(vulkan/|volk\.h|lcms2|png\.h|pngconf\.h|jpeglib\.h|jerror\.h|tiff|'
                     r'webp/|OpenEXR/|openexr|stb_|zlib\.h|libdeflate\.h)')


def sources(folder):
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(('.c', '.h')):
                yield os.path.join(top, name)


def includes(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    for m in INCLUDE.finditer(text):
        line = text.count('\n', 0, m.start()) + 1
        yield line, m.group(1), m.group(2)


def main():
    root = os.path.abspath(sys.argv[1])
    cli = os.path.join(root, 'cli')
    public = os.path.join(root, 'core', 'include')
    errors = []
    for path in sources(cli):
        rel = os.path.relpath(path, root)
        for line, kind, name in includes(path):
            if kind == '<':
                if WRAPPED.match(name):
                    errors.append(f'{rel}:{line}: <{name}> is a library core/ wraps: call core/')
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(path), name))
            own = os.path.commonpath([target, cli]) == cli and os.path.isfile(target)
            if own or name == 'vkfx.h' or name in GENERATED:
                continue
            errors.append(f'{rel}:{line}: "{name}" is neither cli/\'s own nor vkfx.h')
    for path in sources(public):
        rel = os.path.relpath(path, root)
        for line, kind, name in includes(path):
            if kind == '"' and not os.path.isfile(os.path.join(public, name)):
                errors.append(f'{rel}:{line}: "{name}" is not a header of core/include/')
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print('cli/ includes vkfx.h and its own headers only; core/include/ is self-contained')


if __name__ == '__main__':
    main()
