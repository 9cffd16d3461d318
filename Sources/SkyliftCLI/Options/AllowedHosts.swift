import SkyliftCore

/// `--allow-host NAME` (repeatable) of `proxy` and `serve`: the `Host` names answered besides loopback ones.
enum AllowedHosts {
    /// The one declaration of `--allow-host`, stored at `key`; each command words its help.
    static func declaration<Options>(help: String, _ key: WritableKeyPath<Options, [String]> & Sendable) -> OptionDeclaration<Options> {
        .repeated(option, "NAME", help: help, key)
    }

    static let option = "--allow-host"

    /// The policy: loopback, every `--allow-host` name, and the listen address itself when it is one
    /// specific address (clients that reach it by that address are not a rebinding page: such a page
    /// would carry its own name). Wildcards (`0.0.0.0`, `::`) admit nothing by themselves.
    static func policy(_ allowed: [String], listen: ListenAddress, command: String) throws(UsageError) -> HostPolicy {
        var names: [String] = []
        for given in allowed {
            guard HostPolicy.normalizedName(given) != nil else {
                throw .badValue(command: command, option: option, value: given, expected: "a host name or IP address without a port")
            }
            names.append(given)
        }
        if !["0.0.0.0", "::", "[::]"].contains(listen.host) { names.append(listen.host) }
        return HostPolicy(allowing: names)
    }
}
