import SkyliftCore
import Synchronization
import Testing

@Suite struct LoggerTests {
    @Test func linesBelowTheLevelAreDroppedAndNeverBuilt() {
        let capture = CapturingLogHandler()
        let logger = Logger(label: "t", level: .warning, handler: capture)
        let built = Mutex(0)
        func text(_ s: String) -> String {
            built.withLock { $0 += 1 }
            return s
        }
        logger.debug(text("debug"))
        logger.info(text("info"))
        logger.warning(text("warning"))
        logger.critical(text("critical"))
        #expect(capture.lines == ["warning", "critical"])
        #expect(capture.all.map(\.level) == [.warning, .critical])
        #expect(capture.all.allSatisfy { $0.label == "t" })
        #expect(built.withLock { $0 } == 2)
        #expect(logger.isEnabled(.error) && !logger.isEnabled(.notice))
    }

    @Test func aDisabledLoggerFormatsNothing() {
        let disabled = Logger.disabled(label: "access")
        let built = Mutex(0)
        for level in LogLevel.allCases {
            #expect(!disabled.isEnabled(level))
            disabled.log(level, { built.withLock { $0 += 1 }; return "x" }())
        }
        #expect(built.withLock { $0 } == 0)
    }

    @Test func levelsAreOrderedTraceToCritical() {
        #expect(LogLevel.allCases.map(\.description) == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        #expect(LogLevel.allCases == LogLevel.allCases.sorted())
    }

    @Test func metadataIsEscapedAndSecretKeysAreRedacted() {
        let capture = CapturingLogHandler()
        var logger = Logger(label: "t", level: .trace, handler: capture)
        logger.metadata = ["peer": "127.0.0.1", "path": "/a"]
        logger.info("done", metadata: ["path": "/b c\r\n", "Authorization": "Bearer s3cret", "access_token": "s3cret"])
        #expect(capture.lines == ["done Authorization=REDACTED access_token=REDACTED path=/b%20c%0D%0A peer=127.0.0.1"])
        #expect(!capture.lines.joined().contains("s3cret"))
    }

    @Test func lineHandlersGetOneLineWithoutNewline() {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "t") { line in lines.withLock { $0.append(line) } }
        logger.info("GET /x 200")
        logger.debug("hidden at info")
        #expect(lines.withLock { $0 } == ["GET /x 200"])
    }
}
