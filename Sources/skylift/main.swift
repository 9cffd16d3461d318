import Foundation
import SkyliftCLI

// All logic lives in SkyliftCLI so tests can drive it; this file only bridges to the process.
// `buildCommit` is generated at build time by the CommitStamp plugin.
let status = await Skylift.main(Array(CommandLine.arguments.dropFirst()), commit: buildCommit)
exit(status)
