import SkyliftCore
import Testing

/// The bounded table the caches share: answers kept, replaced, forgotten, and a start-over past the bound.
struct BoundedMemoTests {
    @Test func keepsReplacesForgetsAndStartsOverPastItsCapacity() {
        let memo = BoundedMemo<String, Int>(capacity: 3)
        memo.remember(1, for: "a")
        memo.remember(2, for: "b")
        memo.remember(3, for: "c")
        memo.remember(30, for: "c")
        #expect(memo["a"] == 1 && memo["c"] == 30, "replacing a key at the bound keeps the others")
        memo.forget("b")
        #expect(memo["b"] == nil)
        memo.remember(2, for: "b")
        memo.remember(4, for: "d")
        #expect(memo["a"] == nil && memo["c"] == nil && memo["d"] == 4, "a new key past the bound starts over")
    }
}
