package client

import (
	"context"
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/mcp"
)

// Call sends a request of any method, such as one an extension defines
// (on the server, added with server.AddMethod), and returns its result,
// decoded into an R. params is a pointer to a struct that embeds
// mcp.RequestParams (nil sends the zero params); it is not modified. R
// embeds mcp.Result. The request is made as every request of the session
// is: a modern session adds its _meta, CallOptions such as WithProgress
// apply, it passes through Options.Middleware, and an error answer is
// returned as the *jsonrpc.Error the server sent (-32601 when the server
// does not serve the method). Session.Call does the same for params and
// results of any type.
//
//	res, err := client.Call[EchoResult](ctx, session, "com.example/echo", &EchoParams{Text: "hi"})
func Call[R, P any, RP resultPtr[R], PP paramsPtr[P]](ctx context.Context, s *Session, method string, params PP, opts ...CallOption) (RP, error) {
	var res R
	if err := call[P, R, PP, RP](ctx, s, method, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// Call sends a request of any method with params, any value that encodes
// as a JSON object (nil sends none), and decodes its result into result,
// a pointer (a *json.RawMessage takes it raw; nil drops it). It is
// client.Call for types that do not embed mcp.RequestParams and
// mcp.Result: the session adds the _meta a modern request carries to the
// encoded object, and the result holds the members of the server's
// answer, resultType and _meta included.
func (s *Session) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	var p anyParams
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("client: %s: encoding the params (%T): %w", method, params, err)
		}
		if jsontext.Value(raw).Kind() != '{' {
			return fmt.Errorf("client: %s: the params must encode as a JSON object; %T encodes as %s", method, params, raw)
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("client: %s: the params cannot be sent: %w", method, err)
		}
	}
	var res anyResult
	if err := call(ctx, s, method, &p, &res, opts); err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	raw, err := json.Marshal(&res)
	if err != nil {
		return fmt.Errorf("client: %s: re-encoding the result: %w", method, err)
	}
	if r, ok := result.(*stdjson.RawMessage); ok {
		*r = raw
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("client: %s: decoding the result into %T: %w", method, result, err)
	}
	return nil
}

// anyParams are params of any shape: _meta, and every other member as it
// is.
type anyParams struct {
	mcp.RequestParams
	Members map[string]jsontext.Value `json:",inline"`
}

// anyResult is a result of any shape: _meta and resultType, and every
// other member as it is.
type anyResult struct {
	mcp.Result
	Members map[string]jsontext.Value `json:",inline"`
}
