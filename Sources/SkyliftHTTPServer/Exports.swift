// Handlers read and write header fields through the shared core type.
@_exported import struct SkyliftCore.HTTPHeaders
