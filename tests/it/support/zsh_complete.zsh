# zsh zsh_complete.zsh COMPLETION_FILE WORDS: the matches zsh's completion system offers for
# WORDS (the last word the one being completed) in an interactive shell on a pty
# (zsh/zpty), with compinit run and COMPLETION_FILE sourced as a user would; one a line.
# The setup is sourced from a file so the typed lines never echo the markers.
zmodload zsh/zpty || exit 3
setup=$(mktemp) || exit 3
cat > $setup <<'SETUP'
PROMPT= RPROMPT=
# -D: no dump file written to $HOME.
autoload -U compinit; compinit -u -D
source $COMPLETION_FILE
# Each match is printed as it is added, and added as before. A call with -O, -A or -D only
# collects matches into an array (the completion's own filtering): passed through as is.
compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a hits
  builtin compadd -A hits "$@"
  (( $#hits )) || return 1
  print -rl -- "<match>"${^hits}
  builtin compadd "$@"
}
# After the one completion: say so and leave.
__done () { print -r -- "<done>" }
compprefuncs=()
comppostfuncs=( __done exit )
bindkey '^I' complete-word
bindkey '^M' undefined-key
bindkey '^J' undefined-key
SETUP
zpty z env COMPLETION_FILE=$1 zsh -f -i
zpty -w z "source ${(q)setup}"
zpty -w z "$2"$'\t'
while zpty -r z line; do
  [[ $line == *'<match>'* ]] && print -r -- "${${line##*<match>}%%$'\r'}"
  [[ $line == *'<done>'* ]] && break
done
zpty -d z
rm -f $setup
