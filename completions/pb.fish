# SPDX-License-Identifier: Apache-2.0
# fish completion for pb (pasteboard). pbcopy.fish and pbpaste.fish complete the macOS commands.

set -l pb_commands copy paste types count clear convert status pasteboard displays peer watch history pause resume ssh help

complete -c pb -f
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -s h -l help -d 'Show help'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -s V -l version -d 'Show the version'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a copy -d 'Put standard input (or files, or text) on a pasteboard'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a paste -d "Write a pasteboard's content to standard output"
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a types -d 'List the types a pasteboard offers'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a count -d "Print a pasteboard's changeCount"
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a clear -d 'Empty a pasteboard'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a convert -d 'Convert documents and pictures'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a status -d 'Show what pasteboardd is doing'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a displays -d 'List, add or remove the X displays that share the pasteboard'
complete -c pb -n "__fish_seen_subcommand_from displays" -a 'list add remove'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a peer -d 'List, add or remove peer daemons sharing the pasteboard'
complete -c pb -n "__fish_seen_subcommand_from peer; and not __fish_seen_subcommand_from list add remove" -f -a 'list add remove'
complete -c pb -n "__fish_seen_subcommand_from peer; and __fish_seen_subcommand_from add remove" -F
complete -c pb -n "__fish_seen_subcommand_from ssh" -l peer -d 'Peer the host'"'"'s pasteboardd with this one for the session'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a history -d 'List, show, copy back or pick past clipboard contents'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a ssh -d 'ssh to a host with this pasteboard forwarded there'
complete -c pb -n "not __fish_seen_subcommand_from $pb_commands" -a help -d 'Show help for a command'
# pb ssh takes ssh's arguments: the hosts ssh knows.
complete -c pb -n "__fish_seen_subcommand_from ssh" -a "(__fish_complete_user_at_hosts)" -d 'host'

complete -c pb -n "__fish_seen_subcommand_from help" -a "$pb_commands"
complete -c pb -n "__fish_seen_subcommand_from $pb_commands; and not __fish_seen_subcommand_from help" -s h -l help -d 'Show help for this command'

# Choosing the pasteboard.
set -l with_selection "__fish_seen_subcommand_from copy paste types count clear watch"
complete -c pb -n $with_selection -s p -l primary -d 'Use PRIMARY'
complete -c pb -n $with_selection -s b -l clipboard -d 'Use CLIPBOARD (the default)'
complete -c pb -n $with_selection -s P -l pasteboard -x -a 'clipboard primary secondary' -d 'Use the X selection NAME'

# Types: aliases first, then common MIME types and atoms.
function __pb_types
    printf '%s\t%s\n' text 'UTF-8 plain text' txt 'UTF-8 plain text' utf8 UTF8_STRING html text/html \
        rtf text/rtf rtfd 'flat RTFD' png image/png jpeg image/jpeg jpg image/jpeg bmp image/bmp tiff image/tiff \
        tif image/tiff webp image/webp gif image/gif uri text/uri-list uris text/uri-list
    printf '%s\n' UTF8_STRING STRING TEXT COMPOUND_TEXT text/plain text/html text/rtf application/rtf \
        text/uri-list image/png image/jpeg image/bmp image/tiff image/webp image/gif application/octet-stream com.apple.flat-rtfd \
        public.utf8-plain-text public.rtf public.html public.png
end

function __pb_formats
    printf '%s\t%s\n' txt 'UTF-8 plain text' rtf 'Rich Text Format' html HTML rtfd 'flat RTFD' \
        rtfd-dir 'RTFD bundle directory' png 'PNG picture' jpeg 'JPEG picture' bmp 'BMP picture' \
        tiff 'TIFF picture' webp 'WebP picture'
end

function __pb_type_and_file
    # pb copy -t TYPE=FILE: after '=', the files.
    set -l token (commandline -ct)
    if string match -q -- '*=*' $token
        set -l type (string split -m1 = -- $token)[1]
        set -l file (string split -m1 = -- $token)[2]
        for path in (__fish_complete_path $file)
            printf '%s=%s\n' $type $path
        end
    end
end

complete -c pb -n "__fish_seen_subcommand_from watch" -s j -l json -d 'One JSON object per record, with source and patterns'
complete -c pb -n "__fish_seen_subcommand_from watch" -s 0 -l null -d 'End each record with NUL'
complete -c pb -n "__fish_seen_subcommand_from watch" -s a -l all -d 'Every pasteboard'
complete -c pb -n "__fish_seen_subcommand_from watch" -s r -l reads -d 'A record per read of what pasteboardd serves'
complete -c pb -n "__fish_seen_subcommand_from copy" -s t -l type -x -a '(__pb_types; __pb_type_and_file)' -d 'A representation: TYPE or TYPE=FILE'
complete -c pb -n "__fish_seen_subcommand_from copy" -s n -l trim-newline -d 'Drop one trailing newline from standard input'
complete -c pb -n "__fish_seen_subcommand_from copy" -l sensitive -d 'Secret content: served, never stored or logged'
complete -c pb -n "__fish_seen_subcommand_from copy" -s o -l paste-once -d 'Serve one paste, then clear'
complete -c pb -n "__fish_seen_subcommand_from copy" -l expire -x -d 'Clear it SECONDS from now unless it changed meanwhile'
complete -c pb -n "__fish_seen_subcommand_from copy" -l local-only -d 'The content never leaves this machine'

complete -c pb -n "__fish_seen_subcommand_from paste" -s t -l type -x -a '(__pb_types)' -d 'The type wanted (first offered wins)'
complete -c pb -n "__fish_seen_subcommand_from paste" -s n -l trim-newline -d 'Drop one trailing newline'
complete -c pb -n "__fish_seen_subcommand_from paste" -s l -l list-types -d 'List the types instead'
complete -c pb -n "__fish_seen_subcommand_from paste types" -l timeout -x -d 'How long to wait for the owner (ms)'

# Files on the clipboard.
complete -c pb -n "__fish_seen_subcommand_from copy" -l files -d 'Offer the files at PATH... as a file manager does'
complete -c pb -n "__fish_seen_subcommand_from copy" -l cut -d 'Offer the files at PATH... as a cut'
complete -c pb -n "__fish_seen_subcommand_from copy" -l osc52 -d 'Ask the terminal to copy the text (OSC 52), as over ssh'
complete -c pb -n "__fish_seen_subcommand_from copy; and __fish_contains_opt files cut" -F
complete -c pb -n "__fish_seen_subcommand_from paste" -l files -d 'Copy (or move, for a cut) the files into DIR'
complete -c pb -n "__fish_seen_subcommand_from paste" -l force -d 'With --files: replace files of the same names'
complete -c pb -n "__fish_seen_subcommand_from paste; and __fish_contains_opt files" -x -a '(__fish_complete_directories)'

complete -c pb -n "__fish_seen_subcommand_from convert" -s f -l from -x -a '(__pb_formats)' -d 'The input format'
complete -c pb -n "__fish_seen_subcommand_from convert" -l to -x -a '(__pb_formats)' -d 'The output format'
complete -c pb -n "__fish_seen_subcommand_from convert" -s o -l output -r -F -d 'The output file'
complete -c pb -n "__fish_seen_subcommand_from convert" -s i -l info -d 'Describe the document instead'
complete -c pb -n "__fish_seen_subcommand_from convert" -F

# History: its actions, and the picker's menu.
set -l history_actions list show copy pick delete clear
complete -c pb -n "__fish_seen_subcommand_from history; and not __fish_seen_subcommand_from $history_actions" -a list -d 'List the entries (the default)'
complete -c pb -n "__fish_seen_subcommand_from history; and not __fish_seen_subcommand_from $history_actions" -a show -d "Write entry N's content"
complete -c pb -n "__fish_seen_subcommand_from history; and not __fish_seen_subcommand_from $history_actions" -a copy -d 'Put entry N back on the clipboard'
complete -c pb -n "__fish_seen_subcommand_from history; and not __fish_seen_subcommand_from $history_actions" -a pick -d 'Choose an entry from a menu (rofi, dmenu, fzf)'
complete -c pb -n "__fish_seen_subcommand_from history; and not __fish_seen_subcommand_from $history_actions" -a delete -d 'Delete entry N'
complete -c pb -n "__fish_seen_subcommand_from history; and not __fish_seen_subcommand_from $history_actions" -a clear -d 'Delete every entry'
complete -c pb -n "__fish_seen_subcommand_from pick" -l menu -x -a 'auto rofi dmenu fzf' -d 'The menu program'
complete -c pb -n "__fish_seen_subcommand_from pick" -l menu-command -x -a '(__fish_complete_command)' -d 'Any program that prints the chosen line'
complete -c pb -n "__fish_seen_subcommand_from history; and __fish_seen_subcommand_from list" -l limit -x -d 'The newest N entries'
complete -c pb -n "__fish_seen_subcommand_from history; and __fish_seen_subcommand_from list" -s j -l json -d 'One JSON object per entry'
