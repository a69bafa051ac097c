// Proxies: a proxy per connection, the environment's as curl reads it, and hosts that go direct.
// snippet.hide
import Faraday
import FaradayAsyncHTTPClient
import Foundation

// snippet.show

// snippet.explicit
var options = RequestOptions()
options.proxy = ProxyConfiguration(
    all: .http(host: "proxy.corp.example", port: 3128, username: "me", password: "s3cret"),
    noProxy: "localhost, .internal.example, 10.0.0.0/8"
)
let api = try Connection(url: "https://api.example.com", options: options) { builder in
    builder.adapter = AsyncHTTPClientAdapter()
}

// snippet.environment
// http_proxy, https_proxy, all_proxy and no_proxy, read as curl reads them; nil when none is set.
var fromEnvironment = RequestOptions()
fromEnvironment.proxy = ProxyConfiguration.fromEnvironment()

// snippet.errors
do {
    _ = try await api.get("catalog").value
} catch {
    // A 407 from the proxy, before the origin was reached: `error` is a FaradayError.
    if error.code == .proxyAuthenticationRequired { print("the proxy wants other credentials") }
}
