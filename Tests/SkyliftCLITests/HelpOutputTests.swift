import Foundation
import SkyliftCLI
import Synchronization
import TestProbes
import Testing

/// Runs the tool in-process with captured output.
func runSkylift(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, out: String, err: String) {
    let out = Mutex(""), err = Mutex("")
    let context = CommandContext(environment: environment,
                                 output: TextSink { s in out.withLock { $0 += s } },
                                 errors: TextSink { s in err.withLock { $0 += s } },
                                 isTerminal: false)
    let status = await Skylift.main(arguments, context: context)
    return (status, out.withLock { $0 }, err.withLock { $0 })
}

@Suite struct HelpOutputTests {
    @Test func topLevelHelp() async {
        let r = await runSkylift(["--help"])
        #expect(r.status == 0)
        #expect(r.out == """
        usage: skylift <command> [options]

        Skylift moves large media between devices and cloud storage.

        commands:
          serve        serve a folder as the embedded cloud (WebDAV, tus, ranged GET)
          proxy        play cloud media in any player through a local caching proxy
          upload       upload files to a cloud folder, resumably (tus, WebDAV or S3)
          copy         stream a file, an http(s) or an s3:// object into a cloud folder, with no local copy
          download     bring cloud folders and files back, resumably, checked against served digests
          watch        upload every file of a folder once it has stopped changing
          status       show the watch queue and the store's last scrub
          scrub        re-read the stored files and check them against their digests
          share        make, list or revoke read-only links to a file or folder of the embedded cloud
          signin       print a one-time sign-in link for the web app of a running skylift serve
          service      install or remove a systemd user service running watch, serve or proxy
          completions  print shell completion for bash, zsh or fish

        Run 'skylift <command> --help' for a command's options.

        """)
        let bare = await runSkylift([])
        #expect(bare.status == 2)
        #expect(bare.err == r.out)
    }

    @Test func shareHelp() async {
        let expected = """
        usage: skylift share PATH [--expires 7d] [--root DIR | --store s3://BUCKET/PREFIX/] [--url URL] | share --list | share --revoke ID

        Make a read-only link to PATH (a file or folder of the store, e.g. /movies/trip.mp4). The
        link carries its expiry and is signed with the server's secret; it opens the file (with
        ranges, so players can seek) or the folder's browse page, and nothing else. An expired
        link answers 410, a revoked one 403. Links are kept in the store's state folder, so a
        running `skylift serve` on the same --root honours them at once; with --store they are
        kept in the bucket, for every `skylift serve --store` instance on it.

        options:
          --expires DURATION           lifetime: 30m, 12h, 7d (default: 7d, at most a year)
          --root DIR                   the served folder (default: $XDG_DATA_HOME/skylift/store)
          --store s3://BUCKET/PREFIX/  the S3 store a serve --store serves, instead of a folder
          --url URL                    the server's address for the printed link (default: http://127.0.0.1:8421)
          --list                       list the links: id, expiry, path
          --revoke ID                  revoke the link with this id
          --s3-endpoint URL            S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)
          --s3-addressing MODE         path, virtual or auto: bucket in the URL path or host (default: auto)
          --help                       show this help and exit

        examples:
          skylift share /movies/trip.mp4 --expires 2d
          skylift share /photos/2026/ --url http://192.168.1.20:8421
          skylift share --list
          skylift share --revoke 3f9c2a7d10b4e685
          skylift share /films/trip.mp4 --store s3://media/cloud/ --url https://cloud.lan

        """
        let r = await runSkylift(["share", "--help"])
        #expect(r.status == 0)
        #expect(r.out == expected)
        let wrong = await runSkylift(["share", "/x", "--expires", "forever"])
        #expect(wrong.status == 2)
        #expect(wrong.err.contains("bad value 'forever' for '--expires'"))
    }

    @Test func serveHelp() async {
        let expected = """
        usage: skylift serve [--root DIR | --store s3://BUCKET/PREFIX/] [--listen HOST:PORT] [--token-file FILE | --token TOKEN | --no-auth] [--allow-host NAME]... [--tls-cert FILE --tls-key FILE | --tls-self-signed] [--tus-expiry SECONDS] [--digests LIST] [--thumbnail-cache SIZE] [--thumbnail-jobs N] [--max-connections N] [--max-connections-per-address N] [--header-timeout SECONDS] [--body-timeout SECONDS] [--keepalive-timeout SECONDS] [--s3-endpoint URL] [--s3-addressing MODE] [--quiet]

        Serve a folder as the embedded cloud: WebDAV at /dav/, tus uploads at /uploads/<id>,
        ranged GET/HEAD on every file. The token comes from --token-file, --token or
        $SKYLIFT_TOKEN; without any, a random token is created on first start, kept next to
        the store (mode 0600) and printed with the URL. With --no-auth only requests for
        loopback names and addresses (and --allow-host names) are answered, so web pages
        cannot reach the store by DNS rebinding; with a token, --allow-host restricts too.
        With --tls-self-signed a certificate is made on first start and kept next to the store
        (<store>.tls-cert.pem, key in <store>.tls-key.pem, mode 0600); its SHA-256 fingerprint
        and the public-key pin clients pass to --pin-sha256 are printed at start.
        The SHA-256 of every file written is recorded with it (in an extended attribute) and
        served as Repr-Digest and in PROPFIND; --digests sha256,sha1,md5 also keeps the SHA-1
        and MD5 that ownCloud clients such as `rclone check` compare.
        The web app's thumbnails (libvips; poster frames of videos through ffmpeg when it is on
        PATH) are cached in <store>/.skylift-thumbs, at most --thumbnail-cache bytes (default
        512M), and made --thumbnail-jobs at a time (default: the number of cores, 2 to 8).
        With --store s3://bucket/prefix/ the files of that S3 store (as `skylift scrub` reads
        one) are served instead: WebDAV class 1 and 2 under /dav/, tus uploads, the web app
        and share links, with locks, properties, upload state, sessions and links kept in
        the bucket, so any instance on it answers alike; thumbnails of images are cached
        in $XDG_CACHE_HOME/skylift/thumbs, the timeline dates photos by when they were
        stored, and poster frames of videos answer 501 there for now. It needs
        --token-file, --token, $SKYLIFT_TOKEN or --no-auth, and --tls-cert/--tls-key for TLS.

        options:
          --root DIR                    folder to serve (default: $XDG_DATA_HOME/skylift/store)
          --store s3://BUCKET/PREFIX/   serve this S3 store instead of a folder
          --listen HOST:PORT            address to listen on (default: 127.0.0.1:8421)
          --token TOKEN                 require this bearer token (default: $SKYLIFT_TOKEN, else a saved one)
          --token-file FILE             read the token from FILE (mode 0600; unlike --token, not visible in ps)
          --no-auth                     serve without any authentication (loopback Host names only)
          --allow-host NAME             also answer requests whose Host is NAME (then only those and loopback) (repeatable)
          --tls-cert FILE               serve HTTPS with this PEM certificate (chain); needs --tls-key
          --tls-key FILE                private key (PEM, unencrypted, mode 0600) of --tls-cert
          --tls-self-signed             serve HTTPS with a certificate made once and kept next to the store
          --tus-expiry SECONDS          drop unfinished tus uploads after this long (default: 86400)
          --digests LIST                digests to keep, from sha256,sha1,md5 (default: sha256; sha256 is always kept)
          --thumbnail-cache SIZE        most bytes of cached thumbnails, e.g. 512M, 2G (default: 512M)
          --thumbnail-jobs N            thumbnails made at once (default: the number of cores, 2 to 8)
          --max-connections N           connections held at once; at the cap the oldest idle one is closed (default: 10000)
          --max-connections-per-address N
                                        connections held from one client address (default: 1000)
          --header-timeout SECONDS      time to send a complete request head (default: 60)
          --body-timeout SECONDS        time a request body may pause (default: 60)
          --keepalive-timeout SECONDS   time an idle connection is kept between requests (default: 75)
          --s3-endpoint URL             S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)
          --s3-addressing MODE          path, virtual or auto: bucket in the URL path or host (default: auto)
          --quiet                       no access log on stderr
          --help                        show this help and exit

        examples:
          skylift serve
          skylift serve --root ~/media --listen 0.0.0.0:8421 --token-file ~/.config/skylift/token --tls-self-signed
          skylift serve --store s3://media/cloud/ --s3-endpoint http://127.0.0.1:7480 --token-file ~/.config/skylift/token

        """
        for args in [["serve", "--help"], ["serve", "-h"], ["help", "serve"], ["serve", "--root", "x", "--help"]] {
            let r = await runSkylift(args)
            #expect(r.status == 0)
            #expect(r.out == expected)
        }
    }

    @Test func serviceAndCompletionsHelp() async {
        let service = await runSkylift(["service", "--help"])
        #expect(service.status == 0)
        #expect(service.out == """
        usage: skylift service install|uninstall watch|serve|proxy [ARGS...]

        Write a systemd user unit (in $XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user)
        that runs `skylift watch|serve|proxy ARGS...` with Restart=on-failure and this shell's XDG
        folders, then print the systemctl line that starts it now and at every login. ARGS are
        checked as the command checks them; paths become absolute. Secrets never go into the
        unit: --token and --header are refused (use --token-file, --header-file), and tokens or
        AWS keys in the environment are not copied. Units are named skylift-serve.service,
        skylift-proxy.service and skylift-watch-<DIR escaped as by systemd-escape --path>.service.
        `service uninstall` with the same arguments removes the unit.

        options:
          --help      show this help and exit

        examples:
          skylift service install watch ~/Pictures --settle 5
          skylift service install serve --root ~/media --token-file ~/.config/skylift/token
          skylift service uninstall watch ~/Pictures

        """)
        // `service install KIND --help` is the service's help too: KIND's arguments are not run.
        #expect(await runSkylift(["service", "install", "watch", "--help"]).out == service.out)
        let completions = await runSkylift(["completions", "--help"])
        #expect(completions.status == 0)
        #expect(completions.out == """
        usage: skylift completions bash|zsh|fish

        Print a completion script for the shell, generated from the same option lists as --help:
        commands, every option, folders for DIR, files for FILE, and fixed choices.

        options:
          --help      show this help and exit

        examples:
          skylift completions bash > ~/.local/share/bash-completion/completions/skylift
          skylift completions zsh > ~/.zfunc/_skylift     # with fpath+=(~/.zfunc) before compinit
          skylift completions fish > ~/.config/fish/completions/skylift.fish

        """)
    }

    @Test func usageErrorsNameTheFlagAndExit2() async {
        let cases: [([String], String)] = [
            (["serve", "--bogus"], "skylift serve: unknown option '--bogus' (see 'skylift serve --help')\n"),
            (["serve", "--listen", "1.2.3"], "skylift serve: bad value '1.2.3' for '--listen': expected HOST:PORT, e.g. 127.0.0.1:8421 or [::1]:8421\n"),
            (["serve", "--token", "a", "--no-auth"], "skylift serve: options '--token' and '--no-auth' cannot be used together\n"),
            (["serve", "--listen"], "skylift serve: option '--listen' needs a value\n"),
            (["serve", "--tus-expiry", "soon"], "skylift serve: bad value 'soon' for '--tus-expiry': expected seconds from 1.0 to 31536000.0\n"),
            (["nope"], "skylift: unknown command 'nope' (see 'skylift --help')\n"),
        ]
        for (args, message) in cases {
            let r = await runSkylift(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.err == message)
            #expect(r.out.isEmpty)
        }
    }

    @Test func serveRefusesMissingRootAndTokenFile() async throws {
        let r = await runSkylift(["serve", "--root", "/nonexistent/skylift-root"])
        #expect(r.status == 1)
        #expect(r.err == "skylift serve: --root /nonexistent/skylift-root does not exist\n")
        let scratch = try TempFolder("token-file"), dir = scratch.url
        let t = await runSkylift(["serve", "--root", dir.path, "--token-file", dir.appendingPathComponent("missing").path])
        #expect(t.status == 1)
        #expect(t.err == "skylift serve: token file \(dir.path)/missing: open failed: No such file or directory\n")
    }
}
