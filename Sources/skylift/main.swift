import Foundation
import SkyliftCLI

// All logic lives in SkyliftCLI so tests can drive it; this file only bridges to the process.
// `buildCommit` is generated at build time by the CommitStamp plugin.
let arguments = Array(CommandLine.arguments.dropFirst())
// First, before the command does anything: signal handlers, so a SIGTERM during start-up is kept, not fatal.
Skylift.prepareProcess(arguments)
let status = await Skylift.main(arguments, commit: buildCommit)
exit(status)
