import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct JSONValueTests {
    @Test func literalsSubscriptsAndAccessors() {
        let json: JSON = ["name": "Ada", "age": 36, "ratio": 0.5, "tags": ["a", "b"], "ok": true, "none": nil]
        #expect(json["name"]?.string == "Ada")
        #expect(json["age"]?.int == 36)
        #expect(json["ratio"]?.double == 0.5)
        #expect(json["tags"]?[1]?.string == "b")
        #expect(json["tags"]?[5] == nil)
        #expect(json["ok"]?.bool == true)
        #expect(json["none"]?.isNull == true)
        #expect(json["missing"] == nil)
        #expect(JSON.int(1) == JSON.double(1.0))
    }

    @Test func roundTripsThroughCoding() throws {
        let json: JSON = ["big": 9_007_199_254_740_993, "list": [1, 2.5, "x", nil, false], "nested": ["a": ["b": []]]]
        let data = try JSONEncoder().encode(json)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == json)
        #expect(try JSONDecoder().decode(JSON.self, from: data)["big"]?.int == 9_007_199_254_740_993)
    }
}
