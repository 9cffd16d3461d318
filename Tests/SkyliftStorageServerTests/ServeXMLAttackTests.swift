import Foundation
import Testing
import TestProbes

/// XML external entities and other hostile XML against the real `skylift serve` process: every body with a
/// DOCTYPE is refused with 400, the named file is never opened, the named URL never contacted, nothing of the
/// file comes back (not in the answer, not in a later PROPFIND, not in a lock owner), and the process lives on.
@Suite struct ServeXMLAttackTests {
    static func lockinfo(_ owner: String, prolog: String = "") -> String {
        prolog + "<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype>"
            + "<D:owner>\(owner)</D:owner></D:lockinfo>"
    }

    static func proppatch(_ value: String, prolog: String = "") -> String {
        prolog + "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop><Z:note>\(value)</Z:note></D:prop>"
            + "</D:set></D:propertyupdate>"
    }

    @Test func doctypeBodiesAreRefusedAndNothingIsLoaded() throws {
        let secret = try SecretFile()
        let listener = try LoopbackListener()
        #if os(Linux)
        let opens = try FileOpenWatch(secret.url.path)
        #endif
        let served = try ServedRoot()
        try Data("x".utf8).write(to: served.root.appendingPathComponent("doc.txt"))
        let entities = "<?xml version=\"1.0\"?><!DOCTYPE D:x [<!ENTITY file SYSTEM \"\(secret.url.absoluteString)\">"
            + "<!ENTITY net SYSTEM \"http://127.0.0.1:\(listener.port)/leak\"><!ENTITY plain \"\(secret.marker)\">]>"
        var answers: [ServedRoot.Answer] = []
        for (method, xml) in [
            ("PROPPATCH", Self.proppatch("&file;&net;&plain;", prolog: entities)),
            ("LOCK", Self.lockinfo("&file;&net;&plain;", prolog: entities)),
            ("PROPFIND", entities + "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:getetag/></D:prop></D:propfind>"),
            ("PROPFIND", "<!DOCTYPE D:propfind SYSTEM \"http://127.0.0.1:\(listener.port)/dtd\"><D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>"),
        ] {
            let answer = try served.send(method, "doc.txt", xml: xml, headers: ["Depth": "0"])
            #expect(answer.status == 400, "\(method): \(answer.status) \(answer.body)")
            #expect(answer.body.contains("DOCTYPE"), "\(method): \(answer.body)")
            answers.append(answer)
        }
        // The same attack in UTF-16, where a byte search for "<!DOCTYPE" would see nothing.
        var utf16: [UInt8] = [0xFE, 0xFF]
        for unit in (entities.replacingOccurrences(of: "<?xml version=\"1.0\"?>", with: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>")
                     + Self.proppatch("&file;")).utf16 {
            utf16 += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        answers.append(try served.send("PROPPATCH", "doc.txt", body: utf16))
        #expect(answers.last?.status == 400, "\(answers.last?.body ?? "")")
        // Billion laughs and deep nesting: refused before they grow.
        let laughs = "<!DOCTYPE D:x [<!ENTITY a \"aaaaaaaaaa\">" + (1...9).map { "<!ENTITY a\($0) \"" + String(repeating: "&a\($0 == 1 ? "" : String($0 - 1));", count: 10) + "\">" }.joined()
            + "]>" + Self.proppatch("&a9;")
        answers.append(try served.send("PROPPATCH", "doc.txt", xml: laughs))
        #expect(answers.last?.status == 400)
        let deep = Self.proppatch(String(repeating: "<Z:n>", count: 5000) + String(repeating: "</Z:n>", count: 5000))
        answers.append(try served.send("PROPPATCH", "doc.txt", xml: deep))
        #expect(answers.last?.status == 400 && answers.last?.body.contains("deeper") == true, "\(answers.last?.body ?? "")")

        // Nothing was stored or locked, and a full PROPFIND and lock discovery show nothing of the file.
        let after = try served.send("PROPFIND", "doc.txt", headers: ["Depth": "0"])
        #expect(after.status == 207 && !after.body.contains("urn:z") && !after.body.contains("activelock"), "\(after.body)")
        answers.append(after)
        for answer in answers { #expect(!answer.body.contains(secret.marker)) }
        #if os(Linux)
        #expect(!opens.touched, "serve opened \(secret.url.path)")
        #endif
        #expect(!listener.wasContacted, "serve connected to 127.0.0.1:\(listener.port)")
        #expect(served.isAnswering)
    }

    @Test func deadPropertiesAreCappedPerResource() throws {
        let served = try ServedRoot()
        try Data("x".utf8).write(to: served.root.appendingPathComponent("doc.txt"))
        // Properties live in an extended attribute: ext4 keeps all of a file's in one 4 KiB block, others up to
        // 64 KiB; past either, the set is refused with 507 and the stored one stays.
        let first = try served.send("PROPPATCH", "doc.txt", xml: Self.proppatch(String(repeating: "v", count: 2 << 10)))
        #expect(first.status == 207 && first.body.contains("200 OK"), "\(first.body)")
        let value = String(repeating: "v", count: 60 << 10)
        let second = try served.send("PROPPATCH", "doc.txt", xml: Self.proppatch(value).replacingOccurrences(of: "Z:note", with: "Z:more"))
        #expect(second.status == 207 && second.body.contains("507 Insufficient Storage"), "\(second.body)")
        let names = try served.send("PROPFIND", "doc.txt", xml: "<D:propfind xmlns:D=\"DAV:\"><D:propname/></D:propfind>",
                                    headers: ["Depth": "0"])
        #expect(names.body.contains("note") && !names.body.contains("more"), "\(names.body)")
        #expect(served.isAnswering)
    }

    @Test func ordinaryBodiesStillWork() throws {
        let served = try ServedRoot()
        try Data("x".utf8).write(to: served.root.appendingPathComponent("doc.txt"))
        let value = "<Z:part xml:lang=\"en\" Z:kind=\"a&amp;b\">1 &lt; 2 <![CDATA[<raw>]]></Z:part>"
        let set = try served.send("PROPPATCH", "doc.txt", xml: "<?xml version=\"1.0\" encoding=\"utf-8\"?>" + Self.proppatch(value))
        #expect(set.status == 207 && set.body.contains("200 OK"), "\(set.body)")
        let get = try served.send("PROPFIND", "doc.txt", xml: "<D:propfind xmlns:D=\"DAV:\"><D:prop><Q:note xmlns:Q=\"urn:z\"/></D:prop></D:propfind>",
                                  headers: ["Depth": "0"])
        #expect(get.status == 207 && get.body.contains("1 &lt; 2 &lt;raw&gt;") && get.body.contains("kind=\"a&amp;b\""), "\(get.body)")
        let lock = try served.send("LOCK", "doc.txt", xml: Self.lockinfo("<D:href>mailto:me@example.org</D:href>"))
        #expect(lock.status == 200 && lock.body.contains("mailto:me@example.org"), "\(lock.body)")
        #expect(served.isAnswering)
    }
}
