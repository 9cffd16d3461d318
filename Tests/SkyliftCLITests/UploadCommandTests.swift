import Foundation
import Testing

@Suite struct UploadCommandTests {
    @Test func uploadHelp() async {
        let r = await runSkylift(["upload", "--help"])
        #expect(r.status == 0)
        #expect(r.out == """
        usage: skylift upload FILE... --to URL [--token-file FILE | --token TOKEN] [--header-file FILE] [--header 'NAME: VALUE']... [--jobs N] [--parts N] [--state DIR] [--json] [--force] [--verify] [--cancel] [--wait-for-space DURATION] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]

        Stream files to a cloud folder with no temporary copy. Skylift asks the folder URL
        (OPTIONS) what it speaks: tus when offered (resumable, per-part checksums), else WebDAV
        PUT (missing folders are created). An s3://bucket/prefix/ destination gets multipart
        uploads (credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE, endpoint
        from --s3-endpoint or AWS_ENDPOINT_URL). Resume state is written before the first byte;
        running the same command again after a crash continues from the server's offset.
        Exits 0 only when the server confirmed every file. --cancel gives up unfinished uploads
        instead: the server's partial upload is removed (tus DELETE, S3 AbortMultipartUpload)
        and the resume state forgotten. A server out of space (507) stops the file with what it
        kept (never sent again: the same command continues from there once space is freed),
        unless --wait-for-space is given: then it is tried again after 1, 2, 4... minutes (at
        most 15 apart) until space returns or DURATION is spent.

        options:
          --to URL                   destination folder URL or s3://bucket/prefix/ (required)
          --jobs N                   files uploaded at once (default: 2)
          --cancel                   abort the unfinished uploads of FILE... to --to instead of uploading
          --token TOKEN              send 'Authorization: Bearer TOKEN' (default: $SKYLIFT_TOKEN)
          --token-file FILE          read the token from FILE (mode 0600; unlike --token, not visible in ps)
          --header 'NAME: VALUE'     send this header with every request to the destination (repeatable)
          --header-file FILE         more headers, one 'NAME: VALUE' per line of FILE (mode 0600)
          --state DIR                resume state (default: $XDG_STATE_HOME/skylift)
          --json                     print one JSON object per event instead of progress lines
          --force                    upload even when the destination already holds the same content
          --verify                   read the object back (or use a server digest) and compare SHA-256
          --part-size SIZE           tus PATCH size if the server lacks block-checksum, e.g. 16M (default: 64M), or S3 part (at least 5M; default: sized to the file)
          --parts N                  parts of one file in flight: S3 multipart (default: 4), tus concatenation where offered (default: 1)
          --wait-for-space DURATION  when the server is out of space (507), wait up to DURATION (e.g. 2h) for space instead of stopping
          --ca-cert FILE             trust an HTTPS server whose certificate is in FILE (PEM) or signed by one there
          --pin-sha256 PIN           trust the HTTPS server with this public key, as 'serve' prints (sha256//BASE64)
          --s3-endpoint URL          S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)
          --s3-addressing MODE       path, virtual or auto: bucket in the URL path or host (default: auto)
          --help                     show this help and exit

        examples:
          skylift upload clip.mp4 --to http://127.0.0.1:8421/dav/photos/ --token "$TOKEN"
          SKYLIFT_TOKEN=... skylift upload *.mov --to https://cloud.example/files/ --jobs 4 --json
          skylift upload clip.mp4 --to https://192.168.1.20:8421/dav/ --token-file ~/.config/skylift/token --pin-sha256 sha256//BASE64
          skylift upload clip.mp4 --to s3://media/raw/ --s3-endpoint http://127.0.0.1:9000 --s3-addressing path

        """)
    }

    @Test func copyHelp() async {
        let r = await runSkylift(["copy", "--help"])
        #expect(r.status == 0)
        #expect(r.out == """
        usage: skylift copy SOURCE DEST [--source-header 'NAME: VALUE']... [--token-file FILE | --token TOKEN] [--header-file FILE] [--header 'NAME: VALUE']... [--parts N] [--state DIR] [--json] [--force] [--verify] [--cancel] [--wait-for-space DURATION] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]

        Copy SOURCE (a local path, an http(s) URL or s3://bucket/key, read with ranged GETs)
        into the folder DEST (as for upload: tus when offered, else WebDAV PUT; s3://bucket/prefix/
        for a multipart upload). Bytes go from source to destination as they are read; nothing
        is stored locally. Resumable like upload.

        options:
          --source-header 'NAME: VALUE'
                                        send this header with every request to SOURCE (repeatable)
          --cancel                      abort the unfinished copy of SOURCE to DEST instead of copying
          --token TOKEN                 send 'Authorization: Bearer TOKEN' (default: $SKYLIFT_TOKEN)
          --token-file FILE             read the token from FILE (mode 0600; unlike --token, not visible in ps)
          --header 'NAME: VALUE'        send this header with every request to the destination (repeatable)
          --header-file FILE            more headers, one 'NAME: VALUE' per line of FILE (mode 0600)
          --state DIR                   resume state (default: $XDG_STATE_HOME/skylift)
          --json                        print one JSON object per event instead of progress lines
          --force                       upload even when the destination already holds the same content
          --verify                      read the object back (or use a server digest) and compare SHA-256
          --part-size SIZE              tus PATCH size if the server lacks block-checksum, e.g. 16M (default: 64M), or S3 part (at least 5M; default: sized to the file)
          --parts N                     parts of one file in flight: S3 multipart (default: 4), tus concatenation where offered (default: 1)
          --wait-for-space DURATION     when the server is out of space (507), wait up to DURATION (e.g. 2h) for space instead of stopping
          --ca-cert FILE                trust an HTTPS server whose certificate is in FILE (PEM) or signed by one there
          --pin-sha256 PIN              trust the HTTPS server with this public key, as 'serve' prints (sha256//BASE64)
          --s3-endpoint URL             S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)
          --s3-addressing MODE          path, virtual or auto: bucket in the URL path or host (default: auto)
          --help                        show this help and exit

        examples:
          skylift copy https://media.example/raw/clip.mp4 http://127.0.0.1:8421/dav/archive/ --source-header 'Authorization: Bearer ...'
          skylift copy ./clip.mp4 http://127.0.0.1:8421/dav/archive/
          skylift copy s3://media/raw/clip.mp4 s3://archive/2026/ --s3-endpoint http://127.0.0.1:9000

        """)
    }

    @Test func badInputIsOneLineNamingTheCulprit() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.mp4").path
        let loop = dir.appendingPathComponent("loop.mp4").path, dangling = dir.appendingPathComponent("dangling.mp4").path
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: "loop.mp4")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "gone.mp4")
        let cases: [([String], Int32, String)] = [
            (["upload", loop, "--to", "http://127.0.0.1:9/"], 1, "skylift upload: \(loop): cannot read: its symbolic links loop (ELOOP)\n"),
            (["upload", dangling, "--to", "http://127.0.0.1:9/"], 1,
             "skylift upload: \(dangling): cannot read: a symbolic link to a file that does not exist\n"),
            (["copy", loop, "http://127.0.0.1:9/x/"], 1, "skylift copy: \(loop): cannot read: its symbolic links loop (ELOOP)\n"),
            (["upload", "a.mp4"], 2, "skylift upload: missing --to URL (the destination folder)\n"),
            (["upload", "a.mp4", "--to", "ftp://host/x/"], 2, "skylift upload: bad value 'ftp://host/x/' for '--to': expected an http(s) folder URL or s3://bucket/prefix/\n"),
            (["upload", "a.mp4", "--to", "http://127.0.0.1:9/", "--header", "NoColon"], 2,
             "skylift upload: option '--header' needs 'NAME: VALUE' with a valid name and no control characters\n"),
            (["upload", "a.mp4", "--to", "http://127.0.0.1:9/", "--jobs", "0"], 2,
             "skylift upload: bad value '0' for '--jobs': expected a whole number from 1 to 64\n"),
            (["upload", "a.mp4", "--to", "http://127.0.0.1:9/", "--parts", "65"], 2,
             "skylift upload: bad value '65' for '--parts': expected a whole number from 1 to 64\n"),
            (["copy", missing, "http://127.0.0.1:9/x/", "--parts", "0"], 2,
             "skylift copy: bad value '0' for '--parts': expected a whole number from 1 to 64\n"),
            (["upload", missing, "--to", "http://127.0.0.1:9/"], 1, "skylift upload: \(missing): no such file\n"),
            (["upload", dir.path, "--to", "http://127.0.0.1:9/"], 1, "skylift upload: \(dir.path): is a directory, not a file\n"),
            (["copy", missing, "http://127.0.0.1:9/x/"], 1, "skylift copy: \(missing): no such file\n"),
        ]
        for (args, status, err) in cases {
            let r = await runSkylift(args)
            #expect(r.status == status, "\(args)")
            #expect(r.err == err)
        }
    }
}
