import Foundation
import SkyliftCLI

// All logic lives in SkyliftCLI so tests can drive it; this file only bridges to the process.
let status = await Skylift.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
