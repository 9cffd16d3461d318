import Foundation
import PackagePlugin

/// Embeds the git commit the tool is built from (for `skylift --version`) without needing git.
///
/// SwiftPM reuses its build plan while no source changes, so the commit cannot travel as an argument: the
/// command names the repository's files instead (HEAD, the branch's ref, packed-refs) as inputs, and the
/// build reruns `CommitStampTool` (which reads them) whenever a commit or checkout rewrites one. Outside a git
/// checkout the commit is "unknown".
@main struct CommitStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("CommitStamp.swift")
        let tool = try context.tool(named: "CommitStampTool").url
        guard let git = GitFolders(packageDirectory: context.package.directoryURL) else {
            return [.buildCommand(displayName: "Stamping commit (not a git checkout)", executable: tool,
                                  arguments: ["-", "-", output.path], outputFiles: [output])]
        }
        return [.buildCommand(displayName: "Stamping git commit", executable: tool,
                              arguments: [git.gitDirectory.path, git.commonDirectory.path, output.path],
                              inputFiles: git.watchedFiles, outputFiles: [output])]
    }
}

/// Where a checkout keeps HEAD and its branches: `.git` is a folder, or in a linked worktree a file saying
/// `gitdir: <path>`, whose `commondir` names the main repository's git folder.
struct GitFolders {
    var gitDirectory: URL
    var commonDirectory: URL

    init?(packageDirectory: URL) {
        let dotGit = packageDirectory.appendingPathComponent(".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue {
            gitDirectory = dotGit
        } else {
            guard let line = Self.read(dotGit), line.hasPrefix("gitdir: ") else { return nil }
            gitDirectory = URL(fileURLWithPath: String(line.dropFirst(8)), relativeTo: packageDirectory.appendingPathComponent("x"))
                .standardizedFileURL
        }
        let git = gitDirectory
        commonDirectory = Self.read(git.appendingPathComponent("commondir")).map {
            URL(fileURLWithPath: $0, relativeTo: git.appendingPathComponent("x")).standardizedFileURL
        } ?? git
    }

    /// The files a commit or checkout rewrites: HEAD, the branch HEAD names, packed-refs (those that exist).
    var watchedFiles: [URL] {
        var files = [gitDirectory.appendingPathComponent("HEAD"), commonDirectory.appendingPathComponent("packed-refs")]
        if let head = Self.read(files[0]), head.hasPrefix("ref: ") {
            files.append(commonDirectory.appendingPathComponent(String(head.dropFirst(5))))
        }
        return files.filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    static func read(_ file: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: file.path), data.count < 1 << 16 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
