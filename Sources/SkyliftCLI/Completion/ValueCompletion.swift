/// What shell completion offers for an option's value or a positional argument.
public enum ValueCompletion: Equatable, Sendable {
    /// Nothing to offer (a URL, a number, a token).
    case none
    case files
    case directories
    /// One of these words.
    case words([String])

    /// Derived from a help placeholder, so a new option gets completion by naming its value well:
    /// `DIR` completes folders, `FILE` files, anything else nothing.
    public init(placeholder: String) {
        switch placeholder {
        case "DIR": self = .directories
        case "FILE", "FILE...": self = .files
        default: self = .none
        }
    }
}
