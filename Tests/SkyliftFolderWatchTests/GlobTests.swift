import Testing
@testable import SkyliftFolderWatch

@Suite struct GlobTests {
    @Test func runsOfStarsAreOneStar() throws {
        // The fuzzer's slow pattern: dozens of `**` in a row now compile to one token and still mean "anything".
        let many = try Glob(String(repeating: "**", count: 40) + "1**/y")
        #expect(many.matches("a/b/1c/y") && many.matches("1/y") && !many.matches("a/b/y"))
        #expect(try Glob("a***b").matches("a/x/b"))
        #expect(try !Glob("a*b").matches("a/x/b"))
        #expect(try Glob("a**b").matches("ab"))
    }

    @Test func starsStayInsideOneComponent() throws {
        let g = try Glob("*.jpg")
        #expect(g.matches("a.jpg"))
        #expect(g.matches(".jpg"))
        #expect(!g.matches("a.jpeg"))
        #expect(!g.matches("dir/a.jpg"))
        #expect(try Glob("raw/**").matches("raw/a/b/c.cr2"))
        #expect(try Glob("raw/*").matches("raw/x"))
        #expect(try !Glob("raw/*").matches("raw/x/y"))
    }

    @Test func questionMarksSetsAndEscapes() throws {
        #expect(try Glob("IMG_????.heic").matches("IMG_0042.heic"))
        #expect(try !Glob("IMG_????.heic").matches("IMG_42.heic"))
        #expect(try Glob("[a-c]x").matches("bx"))
        #expect(try !Glob("[!a-c]x").matches("bx"))
        #expect(try Glob("[!a-c]x").matches("dx"))
        #expect(try Glob("\\*").matches("*"))
        #expect(try !Glob("\\*").matches("a"))
        #expect(try Glob("é*").matches("étoile"))
    }

    @Test func unclosedSetIsRejectedByName() {
        #expect(throws: WatchError.badPattern("a[b")) { try Glob("a[b") }
    }

    @Test func manyStarsDoNotBlowUp() throws {
        let g = try Glob("*a*a*a*a*a*a*b")
        #expect(!g.matches(String(repeating: "a", count: 200)))
    }
}

@Suite struct IgnoreRulesTests {
    @Test func defaultsCoverDotfilesPartialsAndBackups() {
        let rules = IgnoreRules.standard
        for path in [".DS_Store", "a/.git", "x.part", "d/y.tmp", "z.crdownload", "notes.txt~", ".notes.txt.swp", "a.swp"] {
            #expect(rules.ignores(path, isDirectory: false), "\(path)")
        }
        for path in ["a.jpg", "dir/b.mov", "part", "tmp/x"] {
            #expect(!rules.ignores(path, isDirectory: false), "\(path)")
        }
        #expect(rules.ignores("photos/.thumbnails", isDirectory: true))
    }

    @Test func userPatternsByNameByPathAndFoldersOnly() throws {
        let rules = try IgnoreRules(["*.raw", "exports/cache", "build/"])
        #expect(rules.ignores("a/b/c.raw", isDirectory: false))
        #expect(rules.ignores("exports/cache", isDirectory: true))
        #expect(!rules.ignores("other/exports/cache", isDirectory: true))
        #expect(rules.ignores("x/build", isDirectory: true))
        #expect(!rules.ignores("x/build", isDirectory: false))
        #expect(rules.ignoresAnyComponent(of: ".hidden/a.jpg", isDirectory: false))
        #expect(!rules.ignoresAnyComponent(of: "shown/a.jpg", isDirectory: false))
    }

    @Test func withoutDefaultsDotfilesPass() throws {
        let rules = try IgnoreRules([], includeDefaults: false)
        #expect(!rules.ignores(".profile", isDirectory: false))
    }

    @Test func emptyOrBrokenPatternIsNamed() {
        #expect(throws: WatchError.badPattern("/")) { try IgnoreRules(["/"]) }
        #expect(throws: WatchError.badPattern("[x")) { try IgnoreRules(["[x"]) }
    }
}
