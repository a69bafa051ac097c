// Decodes one 222 KB JSON document (2,000 records of strings, numbers, arrays and objects)
// ROUNDS times with Faraday's JSONParser, compiled on its own (see run.sh).
import Foundation

var records: [String] = []
for index in 0..<2000 {
    let name = #""name":"record \#(index) \u00e9","score":\#(Double(index) / 7)"#
    records.append(#"{"id":\#(index),\#(name),"tags":["a","b",null,true],"nested":{"x":-\#(index)}}"#)
}
let body = Data(("[" + records.joined(separator: ",") + "]").utf8)
let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20
var count = 0
for _ in 0..<rounds {
    if case .array(let elements)? = try? JSONParser.parse(body) { count += elements.count }
}
print(count, body.count)
