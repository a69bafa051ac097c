// HTTPTypes is the currency of Faraday's API (methods, statuses, header fields), so importing
// Faraday brings it along, as Hummingbird does.
@_exported import HTTPTypes
