#!/usr/bin/env python3
"""Writes a C header holding a file's bytes as a static array: embed.py NAME IN OUT."""
import sys

name, src, dst = sys.argv[1:4]
data = open(src, 'rb').read()
with open(dst, 'w') as out:
    out.write('/* Generated from %s by cli/embed.py; not in git. */\n' % src.split('/')[-1])
    out.write('static const unsigned char %s[%d] = {\n' % (name, len(data)))
    for i in range(0, len(data), 16):
        out.write('    ' + ', '.join('0x%02x' % b for b in data[i:i + 16]) + ',\n')
    out.write('};\n')
