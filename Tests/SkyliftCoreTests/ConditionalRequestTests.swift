import Foundation
import SkyliftCore
import Testing

@Suite struct ConditionalRequestTests {
    static let modified = Date(timeIntervalSince1970: 1_700_000_000)
    static let current = ConditionalRequest.Validators(etag: "\"v1\"", lastModified: modified)
    static let atModified = HTTPDate.format(modified)
    static let before = HTTPDate.format(modified - 60)
    static let after = HTTPDate.format(modified + 60)

    func outcome(_ fields: [String: String], method: String = "GET",
                 current: ConditionalRequest.Validators? = Self.current) -> ConditionalRequest.Outcome {
        ConditionalRequest.evaluate(method: method, headers: HTTPHeaders(fields.map { (name: $0.key, value: $0.value) }),
                                    current: current)
    }

    @Test func eachFieldAlone() {
        #expect(outcome([:]) == .proceed(rangeApplies: true))
        #expect(outcome(["If-Match": "\"v1\""]) == .proceed(rangeApplies: true))
        #expect(outcome(["If-Match": "\"v0\", \"v2\""]) == .preconditionFailed)
        #expect(outcome(["If-Match": "W/\"v1\""]) == .preconditionFailed, "If-Match compares strongly")
        #expect(outcome(["If-Match": "*"], current: nil) == .preconditionFailed)
        #expect(outcome(["If-Unmodified-Since": Self.before]) == .preconditionFailed)
        #expect(outcome(["If-Unmodified-Since": Self.atModified]) == .proceed(rangeApplies: true))
        #expect(outcome(["If-None-Match": "W/\"v1\""]) == .notModified, "If-None-Match compares weakly")
        #expect(outcome(["If-None-Match": "*"], method: "PUT") == .preconditionFailed)
        #expect(outcome(["If-None-Match": "*"], method: "PUT", current: nil) == .proceed(rangeApplies: true))
        #expect(outcome(["If-Modified-Since": Self.atModified]) == .notModified)
        #expect(outcome(["If-Modified-Since": Self.before]) == .proceed(rangeApplies: true))
    }

    /// RFC 9110 §13.2.2: If-Match decides before If-None-Match, and each ETag field hides its date twin.
    @Test func evaluationOrder() {
        // Step 1 before step 3: a failed If-Match is 412 even when If-None-Match would say 304.
        #expect(outcome(["If-Match": "\"other\"", "If-None-Match": "\"v1\""]) == .preconditionFailed)
        // Step 2 before step 4: If-Unmodified-Since fails before If-Modified-Since could say 304.
        #expect(outcome(["If-Unmodified-Since": Self.before, "If-Modified-Since": Self.after]) == .preconditionFailed)
        // If-Match present: If-Unmodified-Since is not evaluated at all.
        #expect(outcome(["If-Match": "\"v1\"", "If-Unmodified-Since": Self.before]) == .proceed(rangeApplies: true))
        // If-None-Match present: If-Modified-Since is not evaluated at all, either way.
        #expect(outcome(["If-None-Match": "\"v0\"", "If-Modified-Since": Self.after]) == .proceed(rangeApplies: true))
        #expect(outcome(["If-None-Match": "\"v1\"", "If-Modified-Since": Self.before]) == .notModified)
        // If-Modified-Since only for GET and HEAD.
        #expect(outcome(["If-Modified-Since": Self.after], method: "HEAD") == .notModified)
        #expect(outcome(["If-Modified-Since": Self.after], method: "DELETE") == .proceed(rangeApplies: true))
        // Step 5 last: If-Range only once every precondition passed.
        #expect(outcome(["If-Range": "\"v0\"", "If-None-Match": "\"v1\""]) == .notModified)
        #expect(outcome(["If-Range": "\"v0\"", "If-Match": "\"v1\""]) == .proceed(rangeApplies: false))
    }

    @Test func ifRange() {
        #expect(outcome(["If-Range": "\"v1\""]) == .proceed(rangeApplies: true))
        #expect(outcome(["If-Range": "W/\"v1\""]) == .proceed(rangeApplies: false))
        #expect(outcome(["If-Range": Self.atModified]) == .proceed(rangeApplies: true))
        #expect(outcome(["If-Range": Self.after]) == .proceed(rangeApplies: false), "only the exact date holds")
        #expect(outcome(["If-Range": "yesterday"]) == .proceed(rangeApplies: false))
    }

    /// Hostile or missing validators: nothing traps, unknown dates are ignored, no validator means no match.
    @Test func badDatesAndMissingValidators() {
        for bad in ["yesterday", "", "Sun, 99 Nov 1994 08:49:37 GMT", String(repeating: "9", count: 500)] {
            #expect(outcome(["If-Unmodified-Since": bad]) == .proceed(rangeApplies: true))
            #expect(outcome(["If-Modified-Since": bad]) == .proceed(rangeApplies: true))
        }
        let bare = ConditionalRequest.Validators(etag: nil, lastModified: nil)
        #expect(outcome(["If-Match": "\"v1\""], current: bare) == .preconditionFailed)
        #expect(outcome(["If-None-Match": "\"v1\""], current: bare) == .proceed(rangeApplies: true))
        #expect(outcome(["If-Modified-Since": Self.after], current: bare) == .proceed(rangeApplies: true))
        #expect(outcome(["If-Unmodified-Since": Self.before], current: bare) == .proceed(rangeApplies: true))
        // A far-future modification time compares as the latest date an HTTP date can say.
        let future = ConditionalRequest.Validators(etag: nil, lastModified: Date(timeIntervalSince1970: 1e15))
        #expect(outcome(["If-Modified-Since": HTTPDate.format(Date(timeIntervalSince1970: 1e15))], current: future) == .notModified)
    }
}

@Suite struct RangedResponseTests {
    func answer(_ range: String?, length: Int64 = 100, rangeApplies: Bool = true) -> RangedResponse {
        RangedResponse(requestHeaders: HTTPHeaders(range.map { [(name: "Range", value: $0)] } ?? []),
                       rangeApplies: rangeApplies, length: length, contentType: "video/mp4", boundary: "B")
    }

    @Test func wholeSingleAndUnsatisfiable() {
        let whole = answer(nil)
        #expect(whole.status == 200 && whole.body == .whole(ByteRange(offset: 0, length: 100)))
        #expect(whole.headers["Content-Type"] == "video/mp4" && whole.headers["Content-Range"] == nil)
        #expect(answer("bytes=0-9", rangeApplies: false).status == 200)
        let one = answer("bytes=10-19")
        #expect(one.status == 206 && one.body == .single(ByteRange(offset: 10, length: 10)))
        #expect(one.headers["Content-Range"] == "bytes 10-19/100")
        let none = answer("bytes=100-")
        #expect(none.status == 416 && none.body == .unsatisfiable)
        #expect(none.headers["Content-Range"] == "bytes */100" && none.headers["Content-Type"] == nil)
    }

    @Test func multipartLayout() throws {
        let two = answer("bytes=0-1,50-52")
        #expect(two.status == 206)
        #expect(two.headers["Content-Type"] == "multipart/byteranges; boundary=B")
        guard case let .multipart(parts, length) = two.body else { Issue.record("not multipart"); return }
        let text = "--B\r\nContent-Type: video/mp4\r\nContent-Range: bytes 0-1/100\r\n\r\n"
        let middle = "\r\n--B\r\nContent-Type: video/mp4\r\nContent-Range: bytes 50-52/100\r\n\r\n"
        #expect(parts == [.text(Array(text.utf8)), .range(ByteRange(offset: 0, length: 2)),
                          .text(Array(middle.utf8)), .range(ByteRange(offset: 50, length: 3)),
                          .text(Array("\r\n--B--\r\n".utf8))])
        #expect(length == Int64(text.utf8.count + middle.utf8.count + "\r\n--B--\r\n".utf8.count + 5))
    }

    @Test func maxRangesAndOverlapsGetTheWhole() {
        let many = "bytes=" + (0 ..< RangePlan.maxRanges + 1).map { "\($0)-\($0)" }.joined(separator: ",")
        #expect(answer(many).status == 200)
        let spaced = "bytes=" + (0 ..< RangePlan.maxRanges).map { "\($0 * 3)-\($0 * 3)" }.joined(separator: ",")
        #expect(answer(spaced, length: 1000).status == 206)
        #expect(answer("bytes=0-,0-,0-").status == 200)
        // Adjacent ranges are coalesced into one part.
        #expect(answer("bytes=0-9,10-19").body == .single(ByteRange(offset: 0, length: 20)))
    }

    @Test func layoutTooLongForInt64IsSentWhole() {
        let huge = Int64.max - 10
        let r = answer("bytes=0-\(huge / 2),\(huge / 2 + 2)-", length: huge)
        #expect(r.status == 200 && r.body == .whole(ByteRange(offset: 0, length: huge)))
    }
}
