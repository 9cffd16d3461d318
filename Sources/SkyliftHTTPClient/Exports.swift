// Callers build request headers and read response headers through the shared core type.
@_exported import struct SkyliftCore.HTTPHeaders
