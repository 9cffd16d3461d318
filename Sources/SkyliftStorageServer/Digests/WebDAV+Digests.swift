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
}
