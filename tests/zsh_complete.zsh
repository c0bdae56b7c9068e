# What zsh's completion offers for a command line typed so far, Tab at its end, as an
# interactive zsh would: one runs in a pseudo-terminal (zpty) with DIR first in its fpath and
# compinit, compadd wrapped to print each call's matches as <<a b c>>. tests/test_docs.py
# reads them.
#
# usage: zsh -f zsh_complete.zsh DIR LINE
zmodload zsh/zpty || exit 9
zpty shell zsh -f -i
zpty -w shell "PROMPT= RPROMPT=; unsetopt zle_bracketed_paste; fpath=(${(q)1} \$fpath)"
zpty -w shell 'autoload -Uz compinit && compinit -u -D'
# Calls that only collect matches for _arguments (-O, -A, -D) are passed on as they are.
zpty -w shell 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a got; builtin compadd -A got "$@"; local r=$?
  print -rn -- "<<${(j: :)got}>>"; return r; }'
zpty -w shell 'print READY'
# The echo of the command, then its output.
zpty -r shell line '*READY*'
zpty -r shell line '*READY*'
zpty -w -n shell "$2"$'\t'
zpty -r shell out '*>>*'
# Further calls (_arguments makes several) arrive within a moment.
sleep 1
while zpty -r -t shell more; do out+=$more; done
print -r -- $out
zpty -d shell
