// SPDX-License-Identifier: Apache-2.0
/// Help texts. `pb help CMD` and `pb CMD --help` print them to standard output.
public enum Usage {
    public static let commands = ["copy", "paste", "types", "count", "clear", "convert", "status", "pasteboard", "displays", "peer", "watch", "history", "pause", "resume", "ssh", "help"]

    public static let overview = """
    usage: pb <command> [options]

    Copy and paste on X11 through pasteboardd.

    commands:
      copy      put standard input (or files, a picture file, or text operands) on a pasteboard
      paste     write a pasteboard's content to standard output
      types     list the types (X targets) a pasteboard offers
      count     print a pasteboard's changeCount
      clear     empty a pasteboard
      convert   convert documents (txt, rtf, html, rtfd, rtfd-dir) and pictures (png, jpeg, bmp, tiff, webp)
      status    show what pasteboardd is doing
      pasteboard list, create or remove named pasteboards
      displays  list, add or remove the X displays that share the pasteboard
      peer      list, add or remove peer daemons (another machine's pasteboardd) sharing it
      watch     print a record, or run a command, at each change
      history   list, show, copy back, delete or clear past clipboard contents
      pause     stop recording (no reading, history or takeover) until resume
      resume    start recording again
      ssh       ssh to a host with this pasteboard forwarded: pb there copies and pastes here
      help      show help for a command

    pasteboards: -b/--clipboard (the default, CLIPBOARD), -p/--primary (PRIMARY),
                 -P/--pasteboard NAME (the X selection NAME)
    exit status: 0 ok, 1 error, 2 pasteboard empty, 3 type not offered, 4 owner timed out, 64 usage

    pbcopy and pbpaste (links to pb) behave as on macOS.
    With PASTEBOARD_SOCKET set (or in a pb ssh session without a display) pb talks to the pasteboardd
    behind that forwarded socket instead: docs/remote.md.
    """

    public static func text(for command: String?) -> String {
        switch command {
        case "copy": return """
            usage: pb copy [-p|-b|-P NAME] [-t TYPE[=FILE]]... [--sensitive] [-o] [--expire SECONDS] [--local-only]
                           [-n] [TEXT... | PICTURE]
                   pb copy [-p|-b|-P NAME] --files [--cut] PATH...
                   pb copy [-p|-b] --osc52 [-n] [TEXT...]

            Hands the data to pasteboardd, which owns the selection and serves it; pb returns at once.
            Without -t, standard input (or TEXT) is UTF-8 text; a lone operand naming a picture file
            (PNG, JPEG, GIF, BMP, TIFF, WebP, by its content) copies that picture, served under every
            image type. Several -t TYPE=FILE make one copy with several representations; at most one
            -t TYPE without a file reads standard input.
            TYPE is a MIME type, an X atom name, or an alias: text, html, rtf, rtfd, png, jpeg, bmp,
            tiff, webp, gif.

              -t, --type TYPE[=FILE]  a representation (repeatable)
              -n, --trim-newline      drop one trailing newline from standard input
                  --sensitive         secret content: served, never stored or logged
              -o, --paste-once        serve one paste, then clear
                  --expire SECONDS    clear it SECONDS from now (fractions allowed, at most 7 days) unless
                                      it changed meanwhile; never written to history or kept across a restart
                  --local-only        the content never leaves this machine (no remote clients or peers)
                  --files             offer the files at PATH... as a file manager does (to paste
                                      in Nautilus, Dolphin, Thunar, or with pb paste --files)
                  --cut               the same, as a cut: the files are moved where they are pasted
                  --osc52             ask the terminal to copy the text (OSC 52), as over SSH; done
                                      without asking when there is no pasteboardd and no display
              -p, --primary           use PRIMARY
              -b, --clipboard         use CLIPBOARD (default)
              -P, --pasteboard NAME   use the X selection NAME
            """
        case "paste": return """
            usage: pb paste [-p|-b|-P NAME] [-t TYPE]... [-n] [--timeout MS] [--item N]
                   pb paste [-p|-b|-P NAME] --files [--force] [DIR]

            Writes the pasteboard's content to standard output, adding no newline. Reads the X selection
            itself, whoever owns it. Without -t, text (UTF8_STRING, then STRING, TEXT...). Several -t give
            an order of preference.

              -t, --type TYPE      the type wanted (repeatable: first offered wins)
              -n, --trim-newline   drop one trailing newline
              -l, --list-types     list the types instead (as pb types)
              -i, --item N         read item N (from 0) of the items pasteboardd holds
                  --timeout MS     how long to wait for the owner (default 5000)
                  --files [DIR]    copy the files a file manager copied into DIR (default: the
                                   current directory), or move them for a cut; one line per file
                  --force          replace files of the same names (with --files)
            """
        case "types": return """
            usage: pb types [-p|-b|-P NAME] [--timeout MS] [--items]

            Lists the targets the pasteboard's owner offers, one per line. --items lists each item
            pasteboardd holds and its types instead.
            """
        case "count": return """
            usage: pb count [-p|-b|-P NAME]

            Prints the pasteboard's changeCount: it grows by one with each change and never goes back.
            Read from the root window property _PASTEBOARD_CHANGE_COUNT_<NAME>, published by pasteboardd.
            """
        case "clear": return """
            usage: pb clear [-p|-b|-P NAME]

            Empties the pasteboard (its selection then has no owner).
            """
        case "convert": return """
            usage: pb convert [--from FORMAT] --to FORMAT [-o OUTPUT] [INPUT]
                   pb convert [--from FORMAT] --info [INPUT]

            Converts a document between txt, rtf, html, rtfd (flat RTFD, com.apple.flat-rtfd) and
            rtfd-dir (an RTFD bundle directory), or a picture (PNG, JPEG, GIF, BMP, TIFF, WebP, known
            by its content) to png, jpeg, bmp, tiff or webp. Reads INPUT or standard input, writes
            OUTPUT or standard output. --from defaults to the input's extension or content.
            """
        case "status": return """
            usage: pb status

            Prints pasteboardd's status as "key: value" lines: version, display, each pasteboard's count
            and whether the daemon owns it, INCR transfers in flight, control clients.
            """
        case "pasteboard": return """
            usage: pb pasteboard list
                   pb pasteboard create NAME [--persistent]
                   pb pasteboard remove NAME

            A named pasteboard is the X selection NAME, owned and served by pasteboardd, with its own
            changeCount. Any X client that knows the name can read it (GTK, Tk, python-xlib; not xclip or
            xsel, which only address PRIMARY, SECONDARY and CLIPBOARD). Use it with -P NAME on any command.
            --persistent keeps it across daemon restarts.
            """
        case "displays": return """
            usage: pb displays [list]
                   pb displays add DISPLAY
                   pb displays remove DISPLAY

            The X displays pasteboardd serves as one pasteboard (pasteboardd --display D, given once per
            display, or "displays" in its configuration): a copy on any of them pastes on every other,
            with every type the copying application offers and those derived from them. PRIMARY stays
            per display unless pasteboardd runs with --share-primary. list prints one display a line,
            NAME<TAB>STATE, STATE connected, connecting (not reached yet, retried) or disconnected (its
            server went away; retried until removed). add joins a display while pasteboardd runs (a
            Xephyr or VNC display just started); remove stops serving it (not the first one).
            """
        case "peer": return """
            usage: pb peer [list]
                   pb peer add SOCKET
                   pb peer remove SOCKET

            Shares CLIPBOARD and the named pasteboards (PRIMARY too with --share-primary) with another
            pasteboardd: the one listening at SOCKET, its remote.sock reached through a forward (ssh -L
            LOCAL:REMOTE-RUNTIME/pasteboard/remote.sock HOST, or pb ssh --peer HOST). A copy on either side
            is offered on the other at once; the bytes cross when something pastes; sensitive, local-only
            and secret content never crosses. add keeps the peer across restarts (in
            $XDG_STATE_HOME/pasteboard/peers) and retries it while it does not answer; remove forgets it.
            list prints one peer a line, SOCKET<TAB>STATE<TAB>LAST ERROR, STATE connected, connecting,
            disconnected (retried) or redundant (the same daemon is peered another way); daemons that
            connected to this one are listed as "(accepted) NAME". docs/remote.md.
            """
        case "watch": return """
            usage: pb watch [-p|-b|-P NAME]... [--json|-0] [COMMAND [ARGS...]]
                   pb watch --reads [-p|-b|-P NAME]... [--json|-0]

            Waits for changes (pushed by pasteboardd, no polling) and prints one record per change:
            pasteboard, changeCount, state, types, and for a picture its type, width×height and size.
            --json prints one JSON object per line, with who copied ("source": app and pid) and what
            the text is ("patterns": url, email, number, path; null until pasteboardd has read another
            application's copy, which a "kept" record with the same count then tells); -0 ends each
            record with NUL. With COMMAND, runs it once per change instead, with the new text on its
            standard input and CLIPBOARD_STATE (data, clear, nil, sensitive), CLIPBOARD_TYPE,
            PASTEBOARD_NAME, PASTEBOARD_CHANGE_COUNT, PASTEBOARD_SOURCE and PASTEBOARD_PATTERNS (comma
            separated) in its environment, as wl-paste --watch does. --reads prints one record per read
            of content pasteboardd serves instead: pasteboard, type asked for, reader (app, pid), time,
            and "refused" with the reason when readPolicy refused it (pasteboardd.conf(5)).
            Without -p/-b/-P, every pasteboard is watched.
            """
        case "history": return """
            usage: pb history [list] [--limit N] [--json]
                   pb history show N [-t TYPE]...
                   pb history copy N
                   pb history pick [--menu rofi|dmenu|fzf|auto | --menu-command COMMAND]
                   pb history delete N
                   pb history clear

            The clipboard history pasteboardd keeps (newest first, numbered from 0): every CLIPBOARD change
            whose content it read, never secret content. list prints number, time (UTC), size, types and a
            preview (the text, rich text's too, "image/png 1920×1080", "3 files: a.txt, …"). show writes
            entry N's content (text unless -t says otherwise); copy puts it back on the clipboard with all its
            types; clear also removes it from disk. pick shows one line per entry (number, age, preview) in a
            menu and copies back the one chosen: --menu auto (the default) takes rofi, else dmenu, else fzf
            when in a terminal; --menu-command runs any command (through /bin/sh) that reads lines on standard
            input and prints the chosen one.

              --menu MENU              rofi, dmenu, fzf or auto
              --menu-command COMMAND   a menu program and its arguments
            """
        case "pause": return """
            usage: pb pause

            Stops recording: pasteboardd reads nothing new, adds nothing to history and takes nothing over,
            until pb resume. What it already serves stays served.
            """
        case "resume": return "usage: pb resume\n\nStarts recording again after pb pause."
        case "ssh": return """
            usage: pb ssh [SSH-OPTIONS...] HOST [COMMAND...]

            Runs ssh with every argument as given (an interactive shell without COMMAND; ssh's exit
            status) and this pasteboardd's remote socket forwarded to HOST, where pb copies to and pastes
            from this machine's pasteboards: copy, paste, types, count, watch; never what was copied
            with --sensitive or --local-only. pb on HOST finds the forward when it has no display and no
            PASTEBOARD_SOCKET: the socket is /tmp/pasteboard-ssh-SESSION.sock (SESSION is random, named in
            LC_PASTEBOARD_SESSION, which a stock sshd accepts), removed when the session ends. sshd on HOST
            must allow forwarding (AllowTcpForwarding yes, AllowStreamLocalForwarding yes); ssh exits if it
            refuses (ExitOnForwardFailure). docs/remote.md has the ssh_config recipe without pb ssh.
            """
        case "help": return "usage: pb help [COMMAND]"
        case "pbcopy": return """
            usage: pbcopy [-pboard general|find|font|ruler|primary|NAME]

            Copies standard input to the pasteboard. Input starting with {\\rtf is offered as RTF plus text.
            """
        case "pbpaste": return """
            usage: pbpaste [-pboard general|find|font|ruler|primary|NAME] [-Prefer txt|rtf|ps]

            Writes the pasteboard's content to standard output (text unless -Prefer rtf finds RTF).
            """
        default: return overview
        }
    }
}
