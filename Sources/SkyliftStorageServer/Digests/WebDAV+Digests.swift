import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftSystem

/// Digest properties in PROPFIND: Skylift's own (`repr-digest`, the `Repr-Digest` header's value) and
/// ownCloud's `oc:checksums`, which ownCloud and Nextcloud clients read (rclone's webdav backend with
/// vendor owncloud compares its SHA1 and MD5; vendor nextcloud its SHA1). Only on request: allprop
/// leaves them out, as RFC 4918 §9.1 allows for properties defined elsewhere.
extension WebDAV {
    static let skyliftNamespace = "urn:skylift"
    static let ownCloudNamespace = "http://owncloud.org/ns"
    static let reprDigestProperty = PropertyName(namespace: skyliftNamespace, name: "repr-digest")
    static let checksumsProperty = PropertyName(namespace: ownCloudNamespace, name: "checksums")

    /// The value of a digest property for the file at `path` (as `stat` describes it); nil when the name is
    /// not one, the resource is a folder, or no record describes the file as it is.
    func digestProperty(_ name: PropertyName, _ path: StoragePath, _ stat: FileStat) -> XMLTree? {
        guard name == Self.reprDigestProperty || name == Self.checksumsProperty, stat.kind == .file,
              let record = currentRecord(path, stat) else { return nil }
        if name == Self.reprDigestProperty {
            return XMLTree(XMLName(namespace: Self.skyliftNamespace, local: "repr-digest", prefix: "S"), [],
                           text: RangedGet.reprDigest(record))
        }
        // ownCloud's form: one oc:checksum holding "TYPE:hex" words separated by spaces.
        var words: [String] = []
        if let sha1 = record.sha1 { words.append("SHA1:" + sha1.hexString) }
        if let md5 = record.md5 { words.append("MD5:" + md5.hexString) }
        words.append("SHA256:" + record.sha256.hexString)
        let checksum = XMLTree(XMLName(namespace: Self.ownCloudNamespace, local: "checksum", prefix: "oc"), [],
                               text: words.joined(separator: " "))
        return XMLTree(XMLName(namespace: Self.ownCloudNamespace, local: "checksums", prefix: "oc"), [checksum])
    }

    /// The record of the file a GET of `path` would serve, opened through the folder descriptors (never by
    /// path string), when it still describes that file and `stat`.
    private func currentRecord(_ path: StoragePath, _ stat: FileStat) -> DigestRecord? {
        guard let entry = FileTree.entry(path), let file = try? entry.target.openFile() else { return nil }
        defer { file.close() }
        guard let now = try? file.status(path: path.relative), FileStat(now) == stat else { return nil }
        return digests.load(fd: file, stat: stat)
    }
}
