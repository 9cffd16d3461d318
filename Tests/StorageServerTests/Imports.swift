import SkyliftCore

typealias SkyliftCoreDate = HTTPDate
