package mcp

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
)

// ResultType says how to read a modern result. Extensions may add values.
type ResultType string

// Result types.
const (
	// ResultComplete is a final result. An absent resultType (every legacy
	// result) means the same.
	ResultComplete ResultType = "complete"
	// ResultInputRequired is an InputRequiredResult: answer its input
	// requests and retry the request.
	ResultInputRequired ResultType = "input_required"
	// ResultTask is the tasks extension's CreateTaskResult (ExtCreateTaskResult).
	ResultTask ResultType = "task"
)

// IsComplete reports whether t is a final result: "complete", or absent as
// from a legacy peer.
func (t ResultType) IsComplete() bool { return t == "" || t == ResultComplete }

// Result is the base of every result. Modern results carry resultType (and
// usually _meta[MetaServerInfo]); legacy results carry neither, so an empty
// ResultType is omitted. On its own it is the empty result (ping, the tasks
// extension's tasks/update and tasks/cancel acks, a closing
// subscriptions/listen result).
type Result struct {
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// ResultBase returns the base fields, so code generic over result types can
// set resultType and _meta (every result type embeds Result).
func (r *Result) ResultBase() *Result { return r }

// EmptyResult is a result that carries no data.
type EmptyResult = Result

// CacheScope says who may reuse a cached result.
type CacheScope string

// Cache scopes.
const (
	// CachePublic: no user-specific data; any client or shared cache may
	// reuse the result across authorization contexts.
	CachePublic CacheScope = "public"
	// CachePrivate: reusable only within the same authorization context.
	CachePrivate CacheScope = "private"
)

// CacheableResult holds the caching hints that modern list results,
// resources/read and server/discover must carry. Results hold it through a
// pointer field named Cache, nil for legacy peers so neither member appears.
type CacheableResult struct {
	// TTLMs is how long, in milliseconds, the result may be considered fresh;
	// 0 means immediately stale. It is always encoded, 0 included.
	TTLMs int64 `json:"ttlMs"`
	// CacheScope is who may reuse it.
	CacheScope CacheScope `json:"cacheScope"`
}

// ResultTypeOf reads the kind of a raw result without decoding all of it:
// its resultType member, or, when that is absent, ResultTask for a legacy
// (2025-11-25) CreateTaskResult recognised by its top-level "task" member and
// ResultComplete otherwise. A client decodes the result into the type the
// answer names.
func ResultTypeOf(raw []byte) (ResultType, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.ReadToken()
	if err != nil {
		return "", fmt.Errorf("result is not valid JSON: %w", err)
	}
	if tok.Kind() != '{' {
		return "", fmt.Errorf("result is a JSON %s, want an object", jsonkind.Name(tok.Kind()))
	}
	legacyTask := false
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return "", fmt.Errorf("result is not a valid JSON object: %w", err)
		}
		switch name.String() {
		case "resultType":
			val, err := dec.ReadToken()
			if err != nil {
				return "", fmt.Errorf("result is not a valid JSON object: %w", err)
			}
			if val.Kind() != '"' {
				return "", fmt.Errorf("result's resultType is a JSON %s, want a string", jsonkind.Name(val.Kind()))
			}
			return ResultType(val.String()), nil
		case "task":
			legacyTask = true
		}
		if err := dec.SkipValue(); err != nil {
			return "", fmt.Errorf("result is not a valid JSON object: %w", err)
		}
	}
	if legacyTask {
		return ResultTask, nil
	}
	return ResultComplete, nil
}
