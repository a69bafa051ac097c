import Benchmark
import Faraday
import Foundation

/// The cookie jar with 1,000 cookies (25 on each of 40 sites): the `Cookie` header for a request,
/// and storing a response's `Set-Cookie`.
func cookieBenchmarks() {
    let jar = CookieJar()
    for site in 0..<40 {
        guard let url = URL(string: "https://www\(site).example.com/") else { continue }
        jar.store(setCookieHeaders: (0..<25).map { "c\($0)=value\($0); Path=/; Max-Age=86400" }, from: url)
    }
    let target = URL(string: "https://www7.example.com/account/orders") ?? Echo.url

    Benchmark("Cookies/Cookie header, 1,000 cookies in the jar") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(jar.cookieHeader(for: target)) }
    }
    Benchmark("Cookies/store one Set-Cookie, 1,000 cookies in the jar") { benchmark in
        for index in benchmark.scaledIterations {
            jar.store(setCookieHeaders: ["session=\(index); Path=/; Secure; HttpOnly"], from: target)
        }
    }
}
