import Faraday
import Testing

@Suite(.timeLimit(.minutes(1))) struct ParamsEncoderTests {
    @Test func nestedEncodesDictionariesAndArraysWithBrackets() {
        let params: Params = ["a": ["b": "c"], "list": ["1", "2"], "q": "x y"]
        #expect(NestedParamsEncoder().encode(params) == "a%5Bb%5D=c&list%5B%5D=1&list%5B%5D=2&q=x+y")
        #expect(NestedParamsEncoder(arrayIndices: true).encode(["a": ["x", "y"]]) == "a%5B0%5D=x&a%5B1%5D=y")
        #expect(NestedParamsEncoder(spaceEncoding: .percent20).encode(["q": "x y"]) == "q=x%20y")
        #expect(NestedParamsEncoder(sortsParams: true).encode(["b": "1", "a": "2"]) == "a=2&b=1")
    }

    @Test func nestedDecodesBracketsRawOrEscaped() throws {
        let decoded = try NestedParamsEncoder().decode("a[b]=c&list[]=1&list%5B%5D=2&q=x+y&r=x%20y")
        #expect(decoded == ["a": ["b": "c"], "list": ["1", "2"], "q": "x y", "r": "x y"])
        #expect(try NestedParamsEncoder().decode("a[0]=x&a[1]=y") == ["a": ["x", "y"]])
        #expect(
            try NestedParamsEncoder().decode("a[][b]=1&a[][c]=2&a[][b]=3") == [
                "a": [["b": "1", "c": "2"], ["b": "3"]]
            ]
        )
        #expect(try NestedParamsEncoder().decode("?a=1&a=2") == ["a": "2"])
    }

    @Test func flatRepeatsNamesBothWays() throws {
        #expect(FlatParamsEncoder().encode(["a": ["1", "2"], "b": "x"]) == "a=1&a=2&b=x")
        #expect(try FlatParamsEncoder().decode("a=1&a=2&b=x") == ["a": ["1", "2"], "b": "x"])
        #expect(try FlatParamsEncoder().decode("a=1&a=2&a=3") == ["a": ["1", "2", "3"]])
    }

    @Test(arguments: [
        ["q": "swift & more = fun", "empty": ""] as Params,
        ["a": ["b": ["c": "deep"]], "list": ["1", "2"], "u": "caf\u{E9} \u{1F600}"],
        ["matrix": [["x": "1", "y": "2"], ["x": "3"]]],
    ])
    func nestedRoundTrips(_ params: Params) throws {
        for encoder in [NestedParamsEncoder(), NestedParamsEncoder(arrayIndices: true, spaceEncoding: .percent20)] {
            #expect(try encoder.decode(encoder.encode(params)) == params)
        }
    }

    @Test(arguments: [["a": ["1", "2"], "b": "x y"] as Params, ["q": "%&=+?#"]])
    func flatRoundTrips(_ params: Params) throws {
        #expect(try FlatParamsEncoder().decode(FlatParamsEncoder().encode(params)) == params)
    }

    @Test func hostileQueriesGiveErrorsNotCrashes() throws {
        #expect(throws: FaradayError.self) { try NestedParamsEncoder().decode("a=1&a[b]=2") }
        #expect(throws: FaradayError.self) { try NestedParamsEncoder().decode("a[]=1&a[b]=2") }
        let deep = "a" + String(repeating: "[x]", count: 100) + "=1"
        #expect(throws: FaradayError.self) { try NestedParamsEncoder().decode(deep) }
        // Malformed pieces are read literally, never trapped on.
        #expect(
            try NestedParamsEncoder().decode("a[=1&%zz=%&[b]=2&c]=3&=4&&") == [
                "a[": "1", "%zz": "%", "[b]": "2", "c]": "3", "": "4",
            ]
        )
        #expect(try FlatParamsEncoder().decode("%FF%FE=%C3") == ["\u{FFFD}\u{FFFD}": "\u{FFFD}"])
    }

    @Test func paramsSubscriptReplacesInPlace() {
        var params: Params = ["a": "1", "b": "2"]
        params.append("3", forName: "a")
        params["a"] = "9"
        #expect(params.entries.map(\.name) == ["a", "b"])
        #expect(params["a"] == "9")
        params["a"] = nil
        #expect(params == ["b": "2"])
    }
}
