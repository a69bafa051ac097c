// Parameter sets: several groups of parameters, each with its encoding, merged by HTTPTransport's
// rules. The comments show what each request carries.
// snippet.hide
import Faraday
import Foundation

let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(Multipart.Handler())
    builder.adapter = URLSessionAdapter()
}
let api = API(connection: connection)
let reportURL = URL(filePath: "/tmp/q3.pdf")
let imageData = Data()
var request = try connection.makeRequest(method: .post, "search?kept=yes")
// snippet.show

// snippet.overview
connection.post("employees") { request in
    try request.apply([
        ParameterSet(["first_name": "John"], encoding: .url),
        ParameterSet(["salary": 100_000], encoding: .json),
    ])
}
// POST /employees?first_name=John   {"salary":100000}

// snippet.sameEncoding
try request.apply([
    ParameterSet(["name": "John"], encoding: .json),
    ParameterSet(["dob": "12/12/12"], encoding: .json),
])
// {"dob":"12/12/12","name":"John"}

// snippet.laterWins
try request.apply([
    ParameterSet(["page": 1, "q": "swift"], encoding: .url),
    ParameterSet(["page": 2], encoding: .url),
])
// ?page=2&q=swift

// snippet.base
let base = Endpoint<Void>(parameters: [ParameterSet(["client": "ios", "v": 1], encoding: .json)], decoder: .none)
var update = Endpoint(.post, "profile", decoder: .none, base: base)
update.parameters.append(ParameterSet(["v": 2], encoding: .json))
// {"client":"ios","v":2}

// snippet.url
// URL https://api.example.com/search?kept=yes
try request.apply([ParameterSet(["limit": 10, "exact": true], encoding: .url)])
// ?kept=yes&limit=10&exact=true

// snippet.mixed
try request.apply([
    ParameterSet(["a": 1], encoding: .json),
    ParameterSet(["b": 2], encoding: .propertyList),
])
// Content-Type: application/x-plist, a property list with b = 2

// snippet.multipart
var upload = api.post(.multipart([.file("doc", at: reportURL)]), to: "documents")
upload.parameters = [
    ParameterSet(["title": "Q3"], encoding: .propertyList),  // becomes a "title" part
    ParameterSet(["ignored": true], encoding: .json),  // dropped
]

// snippet.data
request.body = .bytes(imageData)
try request.apply([
    ParameterSet(["album": 7], encoding: .url),  // ?album=7
    ParameterSet(["caption": "x"], encoding: .json),  // dropped: the body is the image
])

// snippet.custom
let csv = ParameterSet.Encoding.custom("csv") { request, set in
    request.body = .text(set.names.map { "\($0),\(set[$0]?.description ?? "")" }.joined(separator: "\n"))
    request.headers[.contentType] = "text/csv"
}
try request.apply([ParameterSet(["a": 1], encoding: csv), ParameterSet(["b": 2], encoding: csv)])
// a,1
// b,2
// snippet.end
