#!/usr/bin/env bash
# The include rule of src/ (src/README.md): each folder is a layer and includes
# only from the layers below it; no two modules include each other, even within
# a layer (a module is NAME.c with NAME.h).  Prints each offending #include as
# file:line: and exits 1.
#
#   bash tests/layers.sh [SRC_DIR]
set -u
src=${1:-src}
# bottom first: a layer may include from itself and the layers before it
order=(base engine content store draw ui cmd)
# only the backend includes curses; only cmd prints or exits (checked below)
rank() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }

bad=0
declare -A edges
while IFS= read -r hit; do
  file=${hit%%:*} rest=${hit#*:} line=${rest%%:*} inc=${rest#*:}
  inc=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' <<<"$inc")
  [ -n "$inc" ] || continue
  rel=${file#"$src"/}
  from=${rel%%/*}
  to=${inc%%/*}
  if [ "$to" = "$inc" ]; then
    echo "$file:$line: include \"$inc\" names no layer (write \"layer/$inc\")"; bad=1; continue
  fi
  rf=$(rank "$from") rt=$(rank "$to")
  if [ "$rf" -lt 0 ]; then echo "$file:$line: folder '$from' is not a layer in tests/layers.sh"; bad=1; continue; fi
  if [ "$rt" -lt 0 ]; then echo "$file:$line: \"$inc\": '$to' is not a layer"; bad=1; continue; fi
  if [ "$rt" -gt "$rf" ]; then
    echo "$file:$line: $from/ includes \"$inc\" from $to/, a layer above it (order: ${order[*]})"; bad=1
  fi
  m_from=${rel%.*} m_to=${inc%.*}
  [ "$m_from" != "$m_to" ] && edges["$m_from"]+=" $m_to"
done < <(grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src")

# curses: the backend only
while IFS= read -r hit; do
  case "$hit" in "$src"/ui/tui.c:*) ;; *) echo "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): only ui/tui.c includes curses"; bad=1;; esac
done < <(grep -rn --include='*.c' --include='*.h' -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<n?cursesw?/?n?curses\.h>' "$src")

# stdout, stderr and exit: the command layer only (string literals and
# comments aside; the backend hands stdout to newterm as the terminal it draws on)
while IFS= read -r f; do
  case "$f" in "$src"/cmd/*) continue ;; esac
  while IFS= read -r hit; do
    echo "$f:${hit%%:*}: only cmd/ prints to stdout/stderr or exits (return the text or the code instead)"; bad=1
  done < <(sed -e 's/"\([^"\\]\|\\.\)*"/""/g' -e 's|/\*.*\*/||g' -e 's|^\s*\*.*||' "$f" | grep -nE \
             '(^|[^A-Za-z0-9_])(printf|puts|putchar|exit|_exit)\(|\bstd(out|err)\b' | grep -v 'newterm(')
done < <(find "$src" -name '*.[ch]' | sort)

# module cycles: depth-first over "module -> modules it includes", with the path kept
declare -A state
path=()
cycle=""
visit() {
  local m=$1 n
  state[$m]=1; path+=("$m")
  for n in ${edges[$m]-}; do
    if [ "${state[$n]-0}" = 1 ]; then
      local i start=0
      for i in "${!path[@]}"; do [ "${path[$i]}" = "$n" ] && start=$i; done
      cycle="$(printf '%s -> ' "${path[@]:$start}")$n"; return 1
    fi
    [ "${state[$n]-0}" = 0 ] && { visit "$n" || return 1; }
  done
  state[$m]=2; unset 'path[-1]'
}
for m in $(printf '%s\n' "${!edges[@]}" | sort); do
  if [ "${state[$m]-0}" = 0 ] && ! visit "$m"; then echo "src: include cycle: $cycle"; bad=1; break; fi
done
[ "$bad" = 0 ] && echo "layers: every include points down (${order[*]}), no cycle"
exit $bad
