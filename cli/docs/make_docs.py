#!/usr/bin/env python3
"""Writes what `meson install` installs besides the binary, at build time, from the built
program itself: the man page from the same text as `vkfx --help`, `vkfx run --help`,
`vkfx info --help` and `vkfx --help-filter NAME` for each filter, and the bash, zsh and fish
completions from the command line's options and the filter registry (registry_words.c: each
filter, its options and the values of its choices).

usage: make_docs.py man|bash|zsh|fish VKFX REGISTRY_WORDS OUTPUT
"""
import re
import subprocess
import sys

HEADER = ("# {sh} completion for vkfx, generated at build time from its filter registry\n"
          "# (cli/docs/make_docs.py). -f completes filter names, their options and choices.\n\n")
SUBCOMMANDS = ["run", "bench", "compare", "preview", "info", "help", "version"]


def run(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def registry(words_exe):
    """The options [(short, long, takes_value)] and the filters [(filter, [(key,
    [values])])], in the program's order; values are a choice's or a flag's (0, 1)."""
    options, filters = [], []
    for line in run(words_exe).splitlines():
        kind, *fields = line.split("\t")
        if kind == "option":
            name, valued, short = fields
            options.append((None if short == "-" else short, name, valued == "1"))
            continue
        name, *opts = fields
        keys = []
        for o in opts:
            key, *values = o.split(":", 1)
            keys.append((key, values[0].split("|") if values else []))
        filters.append((name, keys))
    return options, filters


def man(vkfx, opts, filters, out):
    def block(text):
        lines = []
        for line in text.rstrip("\n").split("\n"):
            line = line.replace("\\", "\\e")
            if line.startswith((".", "'")):
                line = "\\&" + line
            lines.append(line)
        return ".nf\n" + "\n".join(lines) + "\n.fi\n"

    version = run(vkfx, "--version").split()[-1]
    page = [
        '.TH VKFX 1 "" "vkfx %s" "User Commands"\n' % version,
        ".SH NAME\nvkfx \\- image filters as Vulkan compute shaders, from the shell\n",
        ".SH SYNOPSIS AND OPTIONS\n",
        block(run(vkfx, "--help")),
        ".SH FILTERS\n",
        block(run(vkfx, "--filters")),
    ]
    for name, _ in filters:
        page.append(".SS %s\n" % name)
        page.append(block(run(vkfx, "--help-filter", name)))
    page.append(".SH JOB FILES\n")
    page.append(block(run(vkfx, "run", "--help")))
    page.append(".SH INFO\n")
    page.append(block(run(vkfx, "info", "--help")))
    out.write("".join(page))


def shell_var(name):
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def bash(vkfx, opts, filters, out):
    valued = [("--" + l) for s, l, v in opts if v] + [("-" + s) for s, l, v in opts if v and s]
    w = out.write
    w(HEADER.format(sh="bash"))
    w("_vkfx_filters='%s'\n" % " ".join(n for n, _ in filters))
    w("_vkfx_subcommands='%s'\n" % " ".join(SUBCOMMANDS))
    w("_vkfx_options='%s'\n" % " ".join(
        ["--" + l for _, l, _ in opts] + ["-" + s for s, _, _ in opts if s]))
    w("_vkfx_valued=' %s '\n" % " ".join(valued))
    for name, options in filters:
        w("_vkfx_opts_%s='%s'\n" % (shell_var(name), " ".join(k + "=" for k, _ in options)))
        for key, choices in options:
            if choices:
                w("_vkfx_choices_%s_%s='%s'\n" % (shell_var(name), shell_var(key), " ".join(choices)))
    w(r'''
# The candidates for the chain word cur (full words), in _vkfx_chain_words.
_vkfx_chain() {
    local cur=$1 head link name rest key var words w
    _vkfx_chain_words=()
    link=${cur##*,}
    head=${cur%"$link"}
    if [[ $link != *:* ]]; then
        for w in $_vkfx_filters; do
            [[ $w == "$link"* ]] && _vkfx_chain_words+=("$head$w")
        done
        return
    fi
    name=${link%%:*}
    name=${name//[^A-Za-z0-9_]/_}
    rest=${link%:*}
    key=${link##*:}
    if [[ $key == *=* ]]; then
        var=_vkfx_choices_${name}_${key%%=*}
        var=${var//[^A-Za-z0-9_]/_}
        for w in ${!var}; do
            [[ $w == "${key#*=}"* ]] && _vkfx_chain_words+=("$head$rest:${key%%=*}=$w")
        done
    else
        var=_vkfx_opts_$name
        for w in ${!var}; do
            [[ $w == "$key"* ]] && _vkfx_chain_words+=("$head$rest:$w")
        done
    fi
}

_vkfx() {
    # Words split at blanks only: ':' and '=' of a chain stay in its word.
    local line=${COMP_LINE:0:COMP_POINT} cur prev words=() w brk
    read -ra words <<<"$line"
    if [[ $line == *[[:blank:]] ]]; then
        cur=
        prev=${words[-1]}
    else
        cur=${words[-1]}
        prev=${words[-2]}
    fi
    COMPREPLY=()
    case $prev in
    -f | --filter)
        _vkfx_chain "$cur"
        # Bash replaces only what follows the last ':' or '=' of the word.
        brk=${cur%"${cur##*[:=]}"}
        for w in "${_vkfx_chain_words[@]}"; do
            COMPREPLY+=("${w#"$brk"}")
        done
        compopt -o nospace 2>/dev/null
        return
        ;;
    --help-filter)
        COMPREPLY=($(compgen -W "$_vkfx_filters" -- "$cur"))
        return
        ;;
    help)
        [[ ${#words[@]} -le 3 ]] && COMPREPLY=($(compgen -W "$_vkfx_filters" -- "$cur"))
        return
        ;;
    esac
    if [[ $_vkfx_valued == *" $prev "* && $prev != -o && $prev != --output && $prev != --outdir && $prev != --json ]]; then
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$_vkfx_options" -- "$cur"))
        return
    fi
    if [[ ${#words[@]} -le 2 && $line != *[[:blank:]]*[[:blank:]]* ]]; then
        COMPREPLY=($(compgen -W "$_vkfx_subcommands" -- "$cur"))
    fi
    COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -o filenames -F _vkfx vkfx
''')


def zsh(vkfx, opts, filters, out):
    w = out.write
    w("#compdef vkfx\n")
    w(HEADER.format(sh="zsh"))
    w("_vkfx_chain() {\n")
    w("  local cur=$PREFIX link head name rest key\n")
    w("  local -a words\n")
    w("  local -A opts choices\n")
    for name, options in filters:
        w("  opts[%s]='%s'\n" % (name, " ".join(k + "=" for k, _ in options)))
        for key, choices in options:
            if choices:
                w("  choices[%s:%s]='%s'\n" % (name, key, " ".join(choices)))
    w("  link=${cur##*,}\n")
    w("  head=${cur%$link}\n")
    w("  if [[ $link != *:* ]]; then\n")
    w("    words=(%s)\n" % " ".join(n for n, _ in filters))
    w("    compadd -S '' -p \"$head\" -a words\n")
    w("    return\n")
    w("  fi\n")
    w("  name=${link%%:*}\n")
    w("  rest=${link%:*}\n")
    w("  key=${link##*:}\n")
    w("  if [[ $key == *=* ]]; then\n")
    w("    words=(${=choices[$name:${key%%=*}]})\n")
    w("    compadd -S '' -p \"$head$rest:${key%%=*}=\" -a words\n")
    w("  else\n")
    w("    words=(${=opts[$name]})\n")
    w("    compadd -S '' -p \"$head$rest:\" -a words\n")
    w("  fi\n")
    w("}\n\n")
    w("_vkfx() {\n")
    w("  if (( CURRENT == 2 )); then\n")
    w("    compadd %s\n" % " ".join(SUBCOMMANDS))
    w("  fi\n")
    w("  _arguments -s \\\n")
    for s, l, v in opts:
        if l == "filter":
            spec = "'(-f --filter)'{-f,--filter}'[filter chain]:chain:_vkfx_chain'"
        elif l == "help-filter":
            spec = "'--help-filter[the options of one filter]:filter:(%s)'" % " ".join(
                n for n, _ in filters)
        elif s:
            spec = "'(-%s --%s)'{-%s,--%s}'%s'" % (s, l, s, l, ":value:_files" if v else "")
        else:
            spec = "'--%s%s'" % (l, ":value:_files" if v else "")
        w("    %s \\\n" % spec)
    w("    '*:file:_files'\n")
    w("}\n\n")
    w('_vkfx "$@"\n')


def fish(vkfx, opts, filters, out):
    w = out.write
    w(HEADER.format(sh="fish"))
    w("function __vkfx_chain\n")
    w("    set -l cur (commandline -ct)\n")
    w("    set -l link (string split -r -m1 , -- $cur)[-1]\n")
    w("    set -l head (string sub -l (math (string length -- $cur) - (string length -- $link)) -- $cur)\n")
    w("    if not string match -q '*:*' -- $link\n")
    w("        for f in %s\n" % " ".join(n for n, _ in filters))
    w("            echo $head$f\n")
    w("        end\n")
    w("        return\n")
    w("    end\n")
    w("    set -l name (string split -m1 : -- $link)[1]\n")
    w("    set -l rest (string split -r -m1 : -- $link)[1]\n")
    w("    set -l key (string split -r -m1 : -- $link)[-1]\n")
    w("    set -l words\n")
    w("    switch $name\n")
    for name, options in filters:
        w("    case %s\n" % name)
        w("        if string match -q '*=*' -- $key\n")
        w("            switch (string split -m1 = -- $key)[1]\n")
        for key, choices in options:
            if choices:
                w("            case %s\n" % key)
                w("                for c in %s\n" % " ".join(choices))
                w("                    echo $head$rest:%s=$c\n" % key)
                w("                end\n")
        w("            end\n")
        w("        else\n")
        w("            for o in %s\n" % " ".join(k + "=" for k, _ in options))
        w("                echo $head$rest:$o\n")
        w("            end\n")
        w("        end\n")
    w("    end\n")
    w("end\n\n")
    w("complete -c vkfx -n __fish_use_subcommand -a '%s'\n" % " ".join(SUBCOMMANDS))
    for s, l, v in opts:
        short = " -s %s" % s if s else ""
        if l == "filter":
            w("complete -c vkfx%s -l filter -x -a '(__vkfx_chain)'\n" % short)
        elif l == "help-filter":
            w("complete -c vkfx -l help-filter -x -a '%s'\n" % " ".join(n for n, _ in filters))
        else:
            w("complete -c vkfx%s -l %s%s\n" % (short, l, " -r" if v else ""))


def main():
    kind, vkfx, words, output = sys.argv[1:5]
    opts, filters = registry(words)
    with open(output, "w") as out:
        {"man": man, "bash": bash, "zsh": zsh, "fish": fish}[kind](vkfx, opts, filters, out)


if __name__ == "__main__":
    main()
