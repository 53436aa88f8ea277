# SPDX-License-Identifier: Apache-2.0
# fish completion for pbpaste (pasteboard): macOS's flags.
complete -c pbpaste -f
complete -c pbpaste -o pboard -x -a 'general find font ruler primary' -d 'The pasteboard (general = CLIPBOARD)'
complete -c pbpaste -o Prefer -x -a "txt\t'plain text' rtf\t'RTF when offered, else text' ps\t'plain text (no PostScript on X11)'" -d 'The format to write'
complete -c pbpaste -o help -d 'Show the usage'
