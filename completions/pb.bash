# SPDX-License-Identifier: Apache-2.0
# bash completion for pb, pbcopy and pbpaste (pasteboard).
# Installed as .../bash-completion/completions/pb, with pbcopy and pbpaste as links to it.

_pb_types="text txt utf8 html rtf rtfd png jpeg jpg bmp tiff tif webp gif uri uris
  UTF8_STRING STRING TEXT COMPOUND_TEXT text/plain text/html text/rtf application/rtf
  text/uri-list image/png image/jpeg image/bmp image/tiff image/webp image/gif application/octet-stream com.apple.flat-rtfd
  public.utf8-plain-text public.rtf public.html public.png"
_pb_formats="txt rtf html rtfd rtfd-dir png jpeg bmp tiff webp"
_pb_pasteboards="clipboard primary secondary"
_pb_macos_pasteboards="general find font ruler primary"

# Sets cur, prev, words and cword, with or without the bash-completion package.
_pb_words() {
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion -n =: || return 1
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
}

# Completes a type, or the file of TYPE=FILE.
_pb_type_or_file() {
    local word=$1
    if [[ $word == *=* ]]; then
        local type=${word%%=*}
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "${word#*=}"))
        COMPREPLY=("${COMPREPLY[@]/#/$type=}")
    else
        COMPREPLY=($(compgen -W "$_pb_types" -- "$word"))
    fi
}

_pb() {
    local cur prev words cword
    _pb_words || return

    local command="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -*) ;;
            *) command=${words[i]}; break ;;
        esac
    done

    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W "copy paste types count clear convert status pasteboard displays peer watch history pause resume ssh help --help --version" -- "$cur"))
        return
    fi

    case $prev in
        -P|--pasteboard|-selection|-sel)
            COMPREPLY=($(compgen -W "$_pb_pasteboards" -- "$cur")); return ;;
        -t|--type)
            _pb_type_or_file "$cur"; return ;;
        --timeout)
            COMPREPLY=($(compgen -W "1000 5000 30000" -- "$cur")); return ;;
        -f|--from|--to|-convert)
            [[ $command == convert ]] && COMPREPLY=($(compgen -W "$_pb_formats" -- "$cur")); return ;;
        -o|--output)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --menu)
            COMPREPLY=($(compgen -W "auto rofi dmenu fzf" -- "$cur")); return ;;
        --menu-command)
            COMPREPLY=($(compgen -c -- "$cur")); return ;;
    esac

    local selection="-p --primary -b --clipboard -P --pasteboard"
    local options
    case $command in
        copy) options="$selection -t --type -n --trim-newline --sensitive -o --paste-once --expire --local-only -h --help" ;;
        paste) options="$selection -t --type -n --trim-newline -l --list-types --timeout -h --help" ;;
        types) options="$selection --timeout -h --help" ;;
        count|clear) options="$selection -h --help" ;;
        convert) options="-f --from --to -o --output -i --info -h --help" ;;
        status) options="-h --help" ;;
        watch) options="$selection -a --all -j --json -0 --null -r --reads -h --help" ;;
        displays)
            (( cword == i + 1 )) && COMPREPLY=($(compgen -W "list add remove" -- "$cur"))
            return ;;
        peer|peers)
            if (( cword == i + 1 )); then
                COMPREPLY=($(compgen -W "list add remove" -- "$cur"))
            elif (( cword == i + 2 )) && [[ ${words[i+1]} == add || ${words[i+1]} == remove ]]; then
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return ;;
        ssh)
            # --peer first, then ssh's own arguments: its completion when loaded, else host names.
            if (( cword == i + 1 )) && [[ $cur == --* ]]; then
                COMPREPLY=($(compgen -W "--peer" -- "$cur")); return
            fi
            [[ ${words[i+1]} == --peer ]] && i=$((i + 1))
            if declare -F _ssh >/dev/null; then
                words=("ssh" "${words[@]:i+1}"); cword=$((cword - i)); _ssh ssh "$cur" "$prev"
            else
                COMPREPLY=($(compgen -A hostname -- "$cur"))
            fi
            return ;;
        history)
            if (( cword == i + 1 )); then
                COMPREPLY=($(compgen -W "list show copy pick delete clear" -- "$cur")); return
            fi
            case ${words[i+1]} in
                pick) options="--menu --menu-command -h --help" ;;
                show) options="-t --type -h --help" ;;
                list|-*) options="--limit --json -j -h --help" ;;
                *) options="-h --help" ;;
            esac ;;
        help)
            (( cword == i + 1 )) && COMPREPLY=($(compgen -W "copy paste types count clear convert status pasteboard displays peer watch history pause resume ssh help" -- "$cur"))
            return ;;
        *) return ;;
    esac

    # Files on the clipboard: pb copy --files PATH..., pb paste --files [DIR].
    case $command in
        copy) options+=" --files --cut --osc52" ;;
        paste) options+=" --files --force" ;;
    esac
    if [[ $cur != -* ]] && [[ " ${words[*]} " == *" --files "* || " ${words[*]} " == *" --cut "* ]]; then
        case $command in
            copy) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            paste) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        esac
    fi

    case $cur in
        --type=*) _pb_type_or_file "${cur#--type=}"; COMPREPLY=("${COMPREPLY[@]/#/--type=}") ;;
        --from=*|--to=*) COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$_pb_formats" -- "${cur#*=}")) ;;
        --pasteboard=*) COMPREPLY=($(compgen -P "--pasteboard=" -W "$_pb_pasteboards" -- "${cur#*=}")) ;;
        -*) COMPREPLY=($(compgen -W "$options" -- "$cur")) ;;
        *) [[ $command == convert ]] && COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}

_pbcopy() {
    local cur prev words cword
    _pb_words || return
    case $prev in
        -pboard) COMPREPLY=($(compgen -W "$_pb_macos_pasteboards" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "-pboard -help" -- "$cur"))
}

_pbpaste() {
    local cur prev words cword
    _pb_words || return
    case $prev in
        -pboard) COMPREPLY=($(compgen -W "$_pb_macos_pasteboards" -- "$cur")); return ;;
        -Prefer) COMPREPLY=($(compgen -W "txt rtf ps" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "-pboard -Prefer -help" -- "$cur"))
}

complete -F _pb pb
complete -F _pbcopy pbcopy
complete -F _pbpaste pbpaste
