// A proxy configuration names its connection caps and deadlines in the HTTP layer's type.
@_exported import struct SkyliftHTTPServer.HTTPLimits
