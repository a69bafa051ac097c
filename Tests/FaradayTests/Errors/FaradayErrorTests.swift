import Faraday
import Foundation
import HTTPTypes
import Testing

@Suite(.timeLimit(.minutes(1))) struct FaradayErrorTests {
    @Test(arguments: [
        (400, FaradayError.Code.badRequest), (401, .unauthorized), (403, .forbidden), (404, .resourceNotFound),
        (407, .proxyAuthenticationRequired), (408, .requestTimeout), (409, .conflict),
        (422, .unprocessableEntity), (429, .tooManyRequests), (418, .clientError), (500, .serverError),
        (503, .serverError),
    ])
    func statusesMapToNamedCodes(_ status: Int, _ code: FaradayError.Code) {
        #expect(FaradayError.Code.forStatus(HTTPResponse.Status(code: status)) == code)
    }

    @Test func successAndRedirectStatusesAreNotErrors() {
        for status in [200, 204, 301, 304] {
            #expect(FaradayError.Code.forStatus(HTTPResponse.Status(code: status)) == nil)
        }
    }

    @Test func codesCanBeSwitchedOn() {
        let error = FaradayError(.tooManyRequests, "slow down")
        let handled: String
        switch error.code {
        case .tooManyRequests: handled = "back off"
        case .serverError: handled = "retry"
        default: handled = "fail"
        }
        #expect(handled == "back off")
        #expect(error.code.isClientError)
        #expect(FaradayError(.callTimeout, "").isTimeout)
    }

    @Test func descriptionsHideCredentialsInTheURL() throws {
        let url = try #require(URL(string: "https://ada:hunter2@api.example.com/v1/x?access_token=s3cret&page=2"))
        let text = FaradayError(.readTimeout, "slow", method: .get, url: url).description
        #expect(!text.contains("hunter2") && !text.contains("s3cret"))
        #expect(text.contains("page=2") && text.contains("api.example.com/v1/x"))
    }
}
