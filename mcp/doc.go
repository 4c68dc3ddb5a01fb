// Package mcp is the Model Context Protocol's vocabulary for every protocol
// version: types, method names, error codes, _meta keys, versions and era rules.
//
// One Go type serves all versions; members only newer versions define are
// omitted when unset, and where versions disagree on the wire the field's
// comment or a predicate in version.go says so. Encode and decode the types
// with github.com/go-json-experiment/json, not encoding/json: polymorphic and
// order-keeping types implement its MarshalJSONTo/UnmarshalJSONFrom methods
// and tags use its omitzero and inline semantics. Raw JSON members are
// encoding/json.RawMessage values.
package mcp
