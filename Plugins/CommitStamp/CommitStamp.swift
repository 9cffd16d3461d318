import Foundation
import PackagePlugin

/// Embeds the git commit the tool is built from (for `skylift --version`) without needing git: reads
/// `.git/HEAD` and the ref it names (loose or packed; linked worktrees too). SwiftPM evaluates build-tool
/// plugins on every build and reruns a command when its arguments change, so the stamp follows each commit
/// and costs nothing when HEAD has not moved. Outside a git checkout the commit is "unknown".
@main struct CommitStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let commit = GitHead(packageDirectory: context.package.directoryURL).shortCommit ?? "unknown"
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("CommitStamp.swift")
        return [.buildCommand(displayName: "Stamping commit \(commit)",
                              executable: try context.tool(named: "CommitStampTool").url,
                              arguments: [commit, output.path],
                              outputFiles: [output])]
    }
}

/// The commit HEAD points at, read from the repository's files.
struct GitHead {
    var packageDirectory: URL

    var shortCommit: String? {
        guard let gitDirectory, let head = read(gitDirectory.appendingPathComponent("HEAD")) else { return nil }
        let commit: String?
        if head.hasPrefix("ref: ") {
            let ref = String(head.dropFirst(5))
            commit = read(gitDirectory.appendingPathComponent(ref))
                ?? read(commonDirectory(gitDirectory).appendingPathComponent(ref))
                ?? packedRef(ref, in: commonDirectory(gitDirectory))
        } else {
            commit = head
        }
        guard let commit, [40, 64].contains(commit.count), commit.allSatisfy(\.isHexDigit) else { return nil }
        return String(commit.prefix(7))
    }

    /// `.git` is a folder, or in a linked worktree a file saying `gitdir: <path>`.
    private var gitDirectory: URL? {
        let dotGit = packageDirectory.appendingPathComponent(".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return dotGit }
        guard let line = read(dotGit), line.hasPrefix("gitdir: ") else { return nil }
        return URL(fileURLWithPath: String(line.dropFirst(8)), relativeTo: packageDirectory.appendingPathComponent("x")).standardizedFileURL
    }

    /// Where branches live: a linked worktree's `commondir` names the main repository's git folder.
    private func commonDirectory(_ gitDirectory: URL) -> URL {
        guard let relative = read(gitDirectory.appendingPathComponent("commondir")) else { return gitDirectory }
        return URL(fileURLWithPath: relative, relativeTo: gitDirectory.appendingPathComponent("x")).standardizedFileURL
    }

    private func packedRef(_ ref: String, in directory: URL) -> String? {
        guard let text = read(directory.appendingPathComponent("packed-refs")) else { return nil }
        for line in text.split(separator: "\n") where line.hasSuffix(" " + ref) {
            return String(line.prefix { $0 != " " })
        }
        return nil
    }

    private func read(_ file: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: file.path), data.count < 1 << 20 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
