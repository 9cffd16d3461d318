/// Which protocol a ``Remote`` speaks. The raw value is the name resume records and upload events carry.
public enum RemoteKind: String, Sendable, Codable, CaseIterable {
    case tus, webdav, s3
}
