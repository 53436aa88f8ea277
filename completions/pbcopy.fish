# SPDX-License-Identifier: Apache-2.0
# fish completion for pbcopy (pasteboard): macOS's flags.
complete -c pbcopy -f
complete -c pbcopy -o pboard -x -a 'general find font ruler primary' -d 'The pasteboard (general = CLIPBOARD)'
complete -c pbcopy -o help -d 'Show the usage'
