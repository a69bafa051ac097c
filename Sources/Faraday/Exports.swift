// HTTPTypes is the currency of Faraday's API (methods, statuses, header fields), so importing
// Faraday brings it along, as Hummingbird does.
@_exported import HTTPTypes
// swift-log's `Logger` is what ``HTTPLogger`` logs to, and `Logger.Handler` is the original Swift
// Faraday's name for its handler: importing Faraday brings swift-log along too, so that `Logger`
// is one type in files that import both.
@_exported import Logging
