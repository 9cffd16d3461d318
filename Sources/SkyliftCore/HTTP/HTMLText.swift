/// Text from outside (file names, paths, messages) made safe inside HTML, both as element content and as a
/// quoted attribute value (double or single quotes).
public enum HTMLText {
    /// `text` escaped as an XML attribute value (``XMLTree/escape(_:attribute:)``: `&`, `<`, `>`, `"`, and
    /// CR, LF and tab as character references), and `'` as `&#39;`.
    public static func escaped(_ text: String) -> String {
        XMLTree.escape(text, attribute: true).replacingOccurrences(of: "'", with: "&#39;")
    }
}
