import Foundation
import Testing

@testable import Faraday

/// RFC 6570 against uri-templates/uritemplate-test (Apache-2.0, vendored in
/// Resources/uritemplate-test): every case of every file, the negative tests included (a template
/// that must fail fails, to parse or to expand).
@Suite struct URITemplateSuiteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let template: String
        let variables: [String: URITemplate.Value]
        /// The acceptable expansions; empty when the template must fail.
        let expected: [String]

        var testDescription: String { "\(file): \(template)" }
    }

    static let folder = TestResources.url("uritemplate-test")

    static let cases: [Case] = {
        let files = [
            "spec-examples.json", "spec-examples-by-section.json", "extended-tests.json", "negative-tests.json",
        ]
        return files.flatMap { file -> [Case] in
            guard let data = try? Data(contentsOf: folder.appending(path: file)),
                case .object(let groups) = try? JSONDecoder().decodeJSONValue(from: data)
            else { return [] }
            return groups.values.flatMap { group -> [Case] in
                guard case .object(let members) = group, case .object(let raw)? = members["variables"],
                    case .array(let testcases)? = members["testcases"]
                else { return [] }
                let variables = raw.compactMapValues(value)
                return testcases.compactMap { testcase -> Case? in
                    guard case .array(let pair) = testcase, pair.count == 2, case .string(let template) = pair[0] else {
                        return nil
                    }
                    let expected: [String] =
                        switch pair[1] {
                        case .string(let one): [one]
                        case .array(let many): many.compactMap(\.string)
                        default: []  // false: the template must fail
                        }
                    return Case(file: file, template: template, variables: variables, expected: expected)
                }
            }
        }
    }()

    /// A variable's value: strings and numbers as text, arrays as lists, objects as pairs.
    static func value(_ json: JSON) -> URITemplate.Value? {
        switch json {
        case .string(let text): .string(text)
        case .int(let number): .string(String(number))
        case .double(let number): .string(String(number))
        case .array(let items): .list(items.compactMap { text($0) })
        case .object(let members):
            .pairs(
                members.sorted { $0.key < $1.key }.compactMap { name, value in
                    text(value).map { URITemplate.Value.Pair(name, $0) }
                }
            )
        default: nil
        }
    }

    static func text(_ json: JSON) -> String? {
        switch json {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        default: nil
        }
    }

    @Test func everyFileIsRead() {
        #expect(Self.cases.count == 64 + 117 + 53 + 36)
        #expect(Set(Self.cases.map(\.file)).count == 4)
    }

    @Test(arguments: cases)
    func everyCasePasses(_ testCase: Case) {
        let expansion = Result { () throws(FaradayError) in
            try URITemplate(testCase.template).expand(testCase.variables)
        }
        switch (expansion, testCase.expected.isEmpty) {
        case (.failure(let error), true):
            #expect(error.code == .invalidRequest)
        case (.success(let text), true):
            Issue.record("\(testCase.template) must fail, and expanded to \(text)")
        case (.failure(let error), false):
            Issue.record("\(testCase.template) failed: \(error.message)")
        case (.success(let text), false):
            #expect(testCase.expected.contains(text), "\(testCase.template) → \(text), expected \(testCase.expected)")
        }
    }
}
