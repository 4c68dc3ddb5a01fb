// Package mcp is the Model Context Protocol's vocabulary for every protocol
// version: types, method names, error codes, _meta keys, versions and era rules.
//
// One Go type serves all versions; members only newer versions define are
// omitted when unset, and where versions disagree on the wire the field's
// comment or a predicate in version.go says so.
//
// weft encodes and decodes the types with github.com/go-json-experiment/json
// (json/v2), whose tags (omitzero, inline) and MarshalJSONTo/UnmarshalJSONFrom
// methods define their wire form. encoding/json gives the same JSON: every
// type with json/v2 methods also has MarshalJSON/UnmarshalJSON methods that
// call json/v2, and the other types are plain structs whose tags mean the same
// to both. Decoding through those methods is json/v2's strict decoding
// (case-sensitive member names; duplicates and invalid UTF-8 rejected) under
// either package; encoding/json's own decoding of the plain structs is its
// usual lenient one. One difference remains: a nil map type (Meta,
// JSONObject, InputRequests, InputResponses) encoded on its own is null under
// encoding/json and {} under json/v2. Raw JSON members are
// encoding/json.RawMessage values.
package mcp
