import Testing
@testable import VitrineConfig
import VitrineCore

@Suite("ConfigError and ConfigIssue: formatting")
struct ConfigErrorFormatTests {
    @Test func anIssueIsPathColonMessage() {
        #expect(ConfigIssue(path: "slides[3].duration", message: "must be greater than 0").description
            == "slides[3].duration: must be greater than 0")
        #expect(ConfigIssue(path: "", message: "the configuration is empty").description == "the configuration is empty")
    }

    @Test func anErrorIsOneLinePerIssuePrefixedWithTheFile() {
        let error = ConfigError(source: "/etc/vitrine/vitrine.yaml", issues: [
            ConfigIssue(path: "slides[3].duration", message: "must be greater than 0"),
            ConfigIssue(path: "", message: "the configuration is empty"),
        ])
        #expect(error.description == """
            /etc/vitrine/vitrine.yaml: slides[3].duration: must be greater than 0
            /etc/vitrine/vitrine.yaml: the configuration is empty
            """)
        let sourceless = ConfigError(source: nil, issues: error.issues)
        #expect(sourceless.description == "slides[3].duration: must be greater than 0\nthe configuration is empty")
    }

    @Test func parseCarriesTheSourceIntoTheError() {
        let error = configError("interval: 0", source: "kiosk.yaml")
        #expect(error?.source == "kiosk.yaml")
        #expect(error?.description == "kiosk.yaml: interval: must be greater than 0")
        #expect(configError("interval: 0")?.source == nil)
    }
}

@Suite("ConfigLoader: durations in the file")
struct DurationErrorTests {
    @Test func aZeroOrNegativeSlideDurationNamesItsSlide() {
        let fourSlides = { (duration: String) in
            "slides:\n  - a.jpg\n  - b.jpg\n  - path: c.jpg\n  - path: d.jpg\n    duration: \(duration)\n"
        }
        for duration in ["-2s", "0", "0s", "0ms", "-0.5", "-1m"] {
            #expect(issues(fourSlides(duration)) == ["slides[3].duration: must be greater than 0"], "\(duration)")
        }
        #expect(issues(fourSlides("86401")) == ["slides[3].duration: must be at most 86400s"])
        #expect(issues(fourSlides("later")) == ["slides[3].duration: \(durationSyntaxMessage) later"])
    }

    @Test func intervalLimits() {
        #expect(issues("interval: 0") == ["interval: must be greater than 0"])
        #expect(issues("interval: -5s") == ["interval: must be greater than 0"])
        #expect(issues("interval: 86401") == ["interval: must be at most 86400s"])
        #expect(issues("interval: 1441m") == ["interval: must be at most 86400s"])
    }

    @Test func transitionDurationLimits() {
        #expect(issues("transition: {duration: 0}") == ["transition.duration: must be greater than 0"])
        #expect(issues("transition: {duration: 10001ms}") == ["transition.duration: must be at most 10s"])
    }

    @Test func resumeDelayMayBeZeroButNotNegative() {
        #expect(issues("touch: {resumeDelay: 0}") == [])
        #expect(issues("touch: {resumeDelay: -1}") == ["touch.resumeDelay: must not be negative"])
        #expect(issues("touch: {resumeDelay: -250ms}") == ["touch.resumeDelay: must not be negative"])
        #expect(issues("touch: {resumeDelay: 3601s}") == ["touch.resumeDelay: must be at most 3600s"])
    }

    @Test func notADuration() {
        #expect(issues("interval: soon") == ["interval: \(durationSyntaxMessage) soon"])
        #expect(issues("interval: \"soon\"") == ["interval: \(durationSyntaxMessage) \"soon\""])
        #expect(issues("interval: 2d") == ["interval: \(durationSyntaxMessage) 2d"])
        #expect(issues("interval: 5 seconds") == ["interval: \(durationSyntaxMessage) 5 seconds"])
        #expect(issues("interval: [5]") == ["interval: \(durationSyntaxMessage) a list"])
        #expect(issues("interval: {seconds: 5}") == ["interval: \(durationSyntaxMessage) a mapping"])
        #expect(issues("interval:") == ["interval: \(durationSyntaxMessage) nothing (null)"])
        #expect(issues("interval: null") == ["interval: \(durationSyntaxMessage) nothing (null)"])
        #expect(issues("touch:\n  resumeDelay: ~\n") == ["touch.resumeDelay: \(durationSyntaxMessage) nothing (null)"])
    }

    @Test func aNumberTooLargeForAnyDurationIsAnErrorNotACrash() {
        #expect(issues("interval: 99999999999999999999") == ["interval: \(durationSyntaxMessage) 99999999999999999999"])
        #expect(issues("interval: 10000000000") == ["interval: \(durationSyntaxMessage) 10000000000"])
        #expect(issues("slides: [{path: a.jpg, duration: -99999999999999999999m}]")
            == ["slides[0].duration: \(durationSyntaxMessage) -99999999999999999999m"])
        // Large but representable: the range check speaks.
        #expect(issues("interval: 9000000000") == ["interval: must be at most 86400s"])
    }

    @Test func durationsTakeEveryDocumentedForm() throws {
        let forms: [(String, Duration)] = [
            ("5", .seconds(5)), ("0.4", .milliseconds(400)), ("400ms", .milliseconds(400)), ("5s", .seconds(5)),
            ("1.5s", .milliseconds(1500)), ("2m", .seconds(120)), ("2min", .seconds(120)), ("\"7\"", .seconds(7)),
            ("'250ms'", .milliseconds(250)),
        ]
        for (text, expected) in forms {
            #expect(try ConfigLoader.parse("interval: \(text)").interval == expected, "\(text)")
        }
    }
}

@Suite("ConfigLoader: wrong types")
struct WrongTypeTests {
    @Test func aStringWhereANumberBelongs() {
        #expect(issues("indicator:\n  diameter: \"14\"\n") == [#"indicator.diameter: must be a whole number, found "14""#])
        #expect(issues("indicator:\n  diameter: big\n") == ["indicator.diameter: must be a whole number, found big"])
        #expect(issues("indicator:\n  diameter: 14.5\n") == ["indicator.diameter: must be a whole number, found 14.5"])
        #expect(issues("output:\n  width: 0x500\n") == ["output.width: must be a whole number, found 0x500"])
        #expect(issues("output:\n  width:\n") == ["output.width: must be a whole number, found nothing (null)"])
        #expect(issues("decode:\n  maxPixels: [1]\n") == ["decode.maxPixels: must be a whole number, found a list"])
        #expect(issues("decode:\n  maxPixels: 99999999999999999999\n")
            == ["decode.maxPixels: must be a whole number, found 99999999999999999999"])
    }

    @Test func aListWhereAMappingBelongs() {
        #expect(issues("transition: [slide, 400ms]") == ["transition: must be a mapping of keys to values, found a list"])
        #expect(issues("indicator:\n  - visible: true\n") == ["indicator: must be a mapping of keys to values, found a list"])
        #expect(issues("touch: 3s") == ["touch: must be a mapping of keys to values, found 3s"])
        #expect(issues("output:") == ["output: must be a mapping of keys to values, found nothing (null)"])
        #expect(issues("decode: \"big\"") == [#"decode: must be a mapping of keys to values, found "big""#])
        #expect(issues("slides:\n  - [a.jpg, 3s]\n") == ["slides[0]: must be a mapping of keys to values, found a list"])
    }

    @Test func theDocumentItselfMustBeAMapping() {
        #expect(issues("- a.jpg\n- b.jpg\n") == ["must be a mapping of keys to values, found a list"])
        #expect(issues("hello") == ["must be a mapping of keys to values, found hello"])
        // A document with nothing in it is called empty, not a null of the wrong type.
        #expect(issues("---\n") == ["the configuration is empty"])
        #expect(issues("null") == ["the configuration is empty"])
        #expect(configError("[1, 2]", source: "f.yaml")?.description == "f.yaml: must be a mapping of keys to values, found a list")
    }

    @Test func slidesMustBeAList() {
        #expect(issues("slides: a.jpg") == ["slides: must be a list, found a.jpg"])
        #expect(issues("slides: {path: a.jpg}") == ["slides: must be a list, found a mapping"])
        #expect(issues("slides:") == ["slides: must be a list, found nothing (null)"])
    }

    @Test func booleans() {
        #expect(issues("autoplay: yes") == ["autoplay: must be true or false, found yes"])
        #expect(issues("loop: 1") == ["loop: must be true or false, found 1"])
        #expect(issues("autoplay: \"true\"") == [#"autoplay: must be true or false, found "true""#])
        #expect(issues("indicator: {visible: off}") == ["indicator.visible: must be true or false, found off"])
        #expect(issues("loop: [true]") == ["loop: must be true or false, found a list"])
    }

    @Test func strings() {
        #expect(issues("placeholder: [a.jpg]") == ["placeholder: must be a string, found a list"])
        #expect(issues("placeholder:") == ["placeholder: must be a string, found nothing (null)"])
        #expect(issues("output: {preview: {path: x}}") == ["output.preview: must be a string, found a mapping"])
        #expect(issues("slides:\n  - path:\n") == ["slides[0].path: must be a string, found nothing (null)"])
        #expect(issues("slides:\n  - path: [a.jpg]\n") == ["slides[0].path: must be a string, found a list"])
    }

    @Test func keysMustBePlainStrings() {
        #expect(issues("? [a, b]\n: 1\n") == ["keys must be plain strings, found a list"])
        #expect(issues("transition:\n  ? {a: 1}\n  : cut\n") == ["transition: keys must be plain strings, found a mapping"])
    }
}

@Suite("ConfigLoader: unknown keys")
struct UnknownKeyTests {
    static let topLevelKeys = "api, autoplay, background, channel, decode, fit, indicator, interval, kenBurns, loop, onImageError, output, outputs, placeholder, plays, power, schedule, showAddress, slides, sync, touch, transition"

    @Test func aNearMissGetsADidYouMeanHint() {
        #expect(issues("intervall: 5") == [#"intervall: unknown key (did you mean "interval"?)"#])
        #expect(issues("Interval: 5") == [#"Interval: unknown key (did you mean "interval"?)"#])
        #expect(issues("autoPlay: true") == [#"autoPlay: unknown key (did you mean "autoplay"?)"#])
        #expect(issues("onImageErorr: skip") == [#"onImageErorr: unknown key (did you mean "onImageError"?)"#])
    }

    @Test func aFarMissListsTheKnownKeys() {
        #expect(issues("colour_scheme: dark") == ["colour_scheme: unknown key (known keys: \(Self.topLevelKeys))"])
    }

    @Test func nestedUnknownKeysNameTheirFullPath() {
        #expect(issues("transition:\n  typ: cut\n") == [#"transition.typ: unknown key (did you mean "type"?)"#])
        #expect(issues("transition:\n  kind: cut\n") == ["transition.kind: unknown key (known keys: duration, easing, type)"])
        #expect(issues("indicator:\n  colour: \"#FFF\"\n") == [#"indicator.colour: unknown key (did you mean "color"?)"#])
        #expect(issues("touch:\n  resume_delay: 2s\n") == [#"touch.resume_delay: unknown key (did you mean "resumeDelay"?)"#])
        #expect(issues("decode:\n  cache: 5\n") == ["decode.cache: unknown key (known keys: cacheSlides, maxPixels, maxVideoBitrate)"])
        #expect(issues("output:\n  size: 800x600\n") == ["output.size: unknown key (known keys: card, connector, display, height, mode, modesetting, planeMemory, planes, preview, rotation, width)"])
        #expect(issues("slides:\n  - path: a.jpg\n  - path: b.jpg\n    duraton: 3s\n")
            == [#"slides[1].duraton: unknown key (did you mean "duration"?)"#])
        #expect(issues("slides:\n  - path: a.jpg\n    image: b.jpg\n")
            == ["slides[0].image: unknown key (known keys: action, attractOnly, duration, fit, kenBurns, loop, path)"])
    }

    @Test func theHintIsTheSameEveryTime() {
        // "foot" is as close to "fit" as to "loop": the hint must not depend on hashing order.
        for _ in 0..<50 {
            #expect(issues("foot: 1") == [#"foot: unknown key (did you mean "fit"?)"#])
        }
    }

    @Test func editDistanceIsLevenshteinIgnoringCase() {
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("abc", "") == 3)
        #expect(editDistance("Interval", "interval") == 0)
        #expect(editDistance("intervall", "interval") == 1)
    }
}

@Suite("ConfigLoader: choices")
struct ChoiceErrorTests {
    @Test func invalidEnumValuesListTheOptions() {
        #expect(issues("fit: fill") == ["fit: must be one of contain, cover, stretch, found fill"])
        #expect(issues("slides:\n  - path: a.jpg\n    fit: Cover\n") == ["slides[0].fit: must be one of contain, cover, stretch, found Cover"])
        #expect(issues("onImageError: ignore") == ["onImageError: must be one of placeholder, skip, found ignore"])
        #expect(issues("transition: {type: fade}") == ["transition.type: must be one of slide, crossfade, cut, found fade"])
        #expect(issues("transition: {easing: ease}")
            == ["transition.easing: must be one of linear, ease-in, ease-out, ease-in-out, found ease"])
        #expect(issues("transition: {easing: easeOut}")
            == ["transition.easing: must be one of linear, ease-in, ease-out, ease-in-out, found easeOut"])
        #expect(issues("indicator: {position: center}") == [
            "indicator.position: must be one of bottom-center, bottom-left, bottom-right, top-center, top-left, top-right, found center",
        ])
        #expect(issues("output: {display: x11}") == ["output.display: must be one of auto, drm, headless, found x11"])
        #expect(issues("fit: [cover]") == ["fit: must be one of contain, cover, stretch, found a list"])
        #expect(issues("fit:") == ["fit: must be one of contain, cover, stretch, found nothing (null)"])
    }

    @Test func quotedChoicesAreFine() throws {
        let c = try ConfigLoader.parse("fit: \"cover\"\noutput: {display: 'drm'}\n")
        #expect(c.fit == .cover)
        #expect(c.output.display == .drm)
    }
}

@Suite("ConfigLoader: colours")
struct ColourErrorTests {
    @Test func anUnquotedColourIsACommentAndGetsTheQuotingHint() {
        let hint = "\(colourMessage) nothing (null) (quote the colour: an unquoted # starts a YAML comment)"
        #expect(issues("background: #000000\n") == ["background: \(hint)"])
        #expect(issues("indicator:\n  color: #FFFFFF70\n  currentColor: #FFF\n")
            == ["indicator.color: \(hint)", "indicator.currentColor: \(hint)"])
    }

    @Test func badColours() {
        #expect(issues("background: \"#12345\"") == ["background: \(colourMessage) \"#12345\""])
        #expect(issues("background: \"#GGGGGG\"") == ["background: \(colourMessage) \"#GGGGGG\""])
        #expect(issues("background: \"#1234567\"") == ["background: \(colourMessage) \"#1234567\""])
        #expect(issues("background: \"##000000\"") == ["background: \(colourMessage) \"##000000\""])
        #expect(issues("background: \"\"") == ["background: \(colourMessage) \"\""])
        #expect(issues("background: red") == ["background: \(colourMessage) red"])
        #expect(issues("indicator: {currentColor: [255, 255, 255]}") == ["indicator.currentColor: \(colourMessage) a list"])
        // A quoted "null" is a string, not a comment: no quoting hint.
        #expect(issues(#"background: "null""#) == [#"background: \#(colourMessage) "null""#])
    }
}

@Suite("ConfigLoader: integer ranges")
struct IntegerRangeTests {
    @Test(arguments: [
        ("indicator: {diameter: 0}", "indicator.diameter: must be between 1 and 512, found 0"),
        ("indicator: {diameter: 513}", "indicator.diameter: must be between 1 and 512, found 513"),
        ("indicator: {spacing: -1}", "indicator.spacing: must be between 0 and 1024, found -1"),
        ("indicator: {spacing: 1025}", "indicator.spacing: must be between 0 and 1024, found 1025"),
        ("indicator: {margin: -1}", "indicator.margin: must be between 0 and 4096, found -1"),
        ("indicator: {margin: 4097}", "indicator.margin: must be between 0 and 4096, found 4097"),
        ("output: {width: 15}", "output.width: must be between 16 and 16384, found 15"),
        ("output: {width: 16385}", "output.width: must be between 16 and 16384, found 16385"),
        ("output: {height: 0}", "output.height: must be between 16 and 16384, found 0"),
        ("output: {height: 20_000}", "output.height: must be between 16 and 16384, found 20000"),
        ("decode: {maxPixels: 0}", "decode.maxPixels: must be between 1 and 1000000000, found 0"),
        ("decode: {maxPixels: 1_000_000_001}", "decode.maxPixels: must be between 1 and 1000000000, found 1000000001"),
        ("decode: {cacheSlides: 2}", "decode.cacheSlides: must be between 3 and 64, found 2"),
        ("decode: {cacheSlides: 65}", "decode.cacheSlides: must be between 3 and 64, found 65"),
        ("decode: {maxVideoBitrate: 0}", "decode.maxVideoBitrate: must be between 1 and 1000, found 0"),
        ("decode: {maxVideoBitrate: 1001}", "decode.maxVideoBitrate: must be between 1 and 1000, found 1001"),
    ])
    func outOfRange(text: String, message: String) {
        #expect(issues(text) == [message])
    }
}

@Suite("ConfigLoader: slides")
struct SlideErrorTests {
    @Test func aSlideWithoutAPathReportsOnlyThat() {
        #expect(issues("slides:\n  - duration: 3s\n    fit: cover\n") == ["slides[0].path: is required"])
        #expect(issues("slides:\n  - a.jpg\n  - {}\n") == ["slides[1].path: is required"])
    }

    @Test func aSlideWithoutAPathStillHasItsOtherKeysChecked() {
        #expect(issues("slides:\n  - duration: 0\n    fit: fill\n    image: a.jpg\n") == [
            "slides[0].path: is required",
            "slides[0].duration: must be greater than 0",
            "slides[0].fit: must be one of contain, cover, stretch, found fill",
            "slides[0].image: unknown key (known keys: action, attractOnly, duration, fit, kenBurns, loop, path)",
        ])
        #expect(issues("slides:\n  - path: \"\"\n    duration: -1\n") == [
            "slides[0].duration: must be greater than 0",
            "slides[0].path: must not be empty",
        ])
    }

    @Test func emptyOrNullPaths() {
        #expect(issues("slides:\n  - path: \"\"\n") == ["slides[0].path: must not be empty"])
        #expect(issues("slides:\n  - a.jpg\n  - \"\"\n") == ["slides[1]: must not be empty"])
        #expect(issues("slides:\n  - a.jpg\n  -\n") == ["slides[1]: must be a string, found nothing (null)"])
        #expect(issues("slides:\n  - \"a\\0b.jpg\"\n") == ["slides[0]: must not contain a NUL character"])
        #expect(issues("slides:\n  - path: \"a\\0b.jpg\"\n") == ["slides[0].path: must not contain a NUL character"])
    }

    @Test func badSlidesDoNotStopTheOthers() throws {
        let error = configError("slides:\n  - a.jpg\n  - \"\"\n  - c.jpg\n  - path: d.jpg\n    fit: sideways\n")
        #expect(error?.issues == [
            ConfigIssue(path: "slides[1]", message: "must not be empty"),
            ConfigIssue(path: "slides[3].fit", message: "must be one of contain, cover, stretch, found sideways"),
        ])
    }
}

@Suite("ConfigLoader: documents that are not configurations")
struct DocumentErrorTests {
    @Test(arguments: ["", "\n\n   \n", "# just a comment\n", "# vitrine.yaml\n# nothing yet\n"])
    func anEmptyDocument(text: String) {
        #expect(issues(text) == ["the configuration is empty"])
        #expect(configError(text, source: "empty.yaml")?.description == "empty.yaml: the configuration is empty")
    }

    @Test func yamlSyntaxErrorsGiveLineAndColumn() {
        #expect(issues("slides:\n  - path: a.jpg\n interval: 5\n") == [
            "syntax error at line:column 3:2: did not find expected key (while parsing a block mapping at line:column 1:1)",
        ])
        #expect(issues("interval: 5\nfit: a: b\n") == [
            "syntax error at line:column 2:7: mapping values are not allowed in this context",
        ])
        #expect(issues("background: \"#000\nfit: cover\n") == [
            "syntax error at line:column 3:1: found unexpected end of stream (while scanning a quoted scalar at line:column 1:13)",
        ])
        #expect(issues("\tinterval: 5\n") == [
            "syntax error at line:column 1:1: found character that cannot start any token (while scanning for the next token at line:column 1:1)",
        ])
        #expect(issues("slides: [a.jpg, b.jpg\ninterval: 5\n") == [
            "syntax error at line:column 2:9: did not find expected ',' or ']' (while parsing a flow sequence at line:column 1:9)",
        ])
        #expect(issues("interval: 5\n---\ninterval: 6\n") == [
            "syntax error at line:column 2:1: but found another document (expected a single document in the stream at line:column 1:1)",
        ])
    }

    @Test func jsonSyntaxErrorsGiveLineAndColumnToo() {
        let found = issues("{\n  \"interval\": 5,\n  \"loop\": true\n")
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("syntax error at line:column 4:1: ") == true, "\(found)")
    }

    @Test func aSyntaxErrorIsOneLineWithoutAKeyPath() {
        let error = configError("a: b: c\n", source: "k.yaml")
        #expect(error?.issues.count == 1)
        #expect(error?.issues.first?.path == "")
        #expect(error?.description.contains("\n") == false)
        #expect(error?.description == "k.yaml: syntax error at line:column 1:5: mapping values are not allowed in this context")
    }

    @Test func duplicateKeysAreRefusedWithTheirPlace() {
        #expect(issues("interval: 5\nloop: true\ninterval: 6\n") == [
            #"syntax error at line:column 1:1: duplicate key "interval" in the same mapping"#,
        ])
        #expect(issues("loop: true\ntransition:\n  type: cut\n  duration: 1s\n  type: slide\n") == [
            #"syntax error at line:column 3:3: duplicate key "type" in the same mapping"#,
        ])
        #expect(issues(#"{"interval": 5, "fit": "cover", "interval": 6, "fit": "contain"}"#) == [
            #"syntax error at line:column 1:17: duplicate key "fit", "interval" in the same mapping"#,
        ])
    }
}

@Suite("ConfigLoader: every problem at once")
struct AllErrorsTests {
    static let text = """
        slides:
          - path: a.jpg
            duration: 0
          - fit: fill
          - ""
          - path: d.jpg
            duraton: 3s
        interval: soon
        background: #000000
        transition:
          type: fade
          kind: cut
        indicator:
          diameter: 0
          color: "#12345"
        touch:
          resumeDelay: -1s
        output:
          width: 10
          display: x11
        decode:
          cacheSlides: 100
        autoplay: yes
        intervall: 5
        """

    static let expected = [
        "slides[0].duration: must be greater than 0",
        "slides[1].path: is required",
        "slides[1].fit: must be one of contain, cover, stretch, found fill",
        "slides[2]: must not be empty",
        #"slides[3].duraton: unknown key (did you mean "duration"?)"#,
        "interval: \(durationSyntaxMessage) soon",
        "autoplay: must be true or false, found yes",
        "background: \(colourMessage) nothing (null) (quote the colour: an unquoted # starts a YAML comment)",
        "transition.type: must be one of slide, crossfade, cut, found fade",
        "transition.kind: unknown key (known keys: duration, easing, type)",
        "indicator.diameter: must be between 1 and 512, found 0",
        "indicator.color: \(colourMessage) \"#12345\"",
        "touch.resumeDelay: must not be negative",
        "output.display: must be one of auto, drm, headless, found x11",
        "output.width: must be between 16 and 16384, found 10",
        "decode.cacheSlides: must be between 3 and 64, found 100",
        #"intervall: unknown key (did you mean "interval"?)"#,
    ]

    @Test func everyProblemIsReportedInOneGo() {
        #expect(issues(Self.text) == Self.expected)
    }

    @Test func theErrorPrefixesEveryLineWithTheFile() {
        let error = configError(Self.text, source: "/etc/vitrine/vitrine.yaml")
        #expect(error?.description == Self.expected.map { "/etc/vitrine/vitrine.yaml: \($0)" }.joined(separator: "\n"))
    }
}

@Suite("ConfigLoader: placeholder path")
struct PlaceholderPathTests {
    @Test func anEmptyPlaceholderPathIsRejected() {
        do {
            _ = try ConfigLoader.parse("placeholder: \"\"")
            Issue.record("an empty placeholder path was accepted")
        } catch {
            #expect(error.issues == [ConfigIssue(path: "placeholder", message: "must not be empty")])
        }
    }
}
