package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// legacyAsker asks the client of a legacy session: every question becomes a
// server-to-client request on the connection, sent with the handler's
// context so a transport can route it onto the originating request's stream.
type legacyAsker struct {
	session *Session
}

func (a legacyAsker) ask(ctx context.Context, r *Request, qs []*question) error {
	for _, q := range qs {
		if q.method == mcp.MethodElicitationCreate && !mcp.SupportsElicitation(r.version) {
			return fmt.Errorf("server: elicitation does not exist in protocol version %s (it arrived in %s)", r.version, mcp.Version20250618)
		}
		if !r.caps.Covers(q.required) {
			return fmt.Errorf("server: %s needs the client capability %s, which the client did not declare in initialize",
				q.method, capabilityText(q.required))
		}
	}
	for _, q := range qs {
		answer, err := a.send(ctx, r, q)
		if err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				// The client's refusal is the handler's failure, not a protocol
				// error of the request being served: do not let it pass as one.
				return fmt.Errorf("server: the client answered %s with error %d: %s", q.method, je.Code, je.Message)
			}
			return fmt.Errorf("server: asking the client (%s): %w", q.method, err)
		}
		q.answer = answer
	}
	return nil
}

// send sends one question through Options.AskMiddleware and returns the
// client's answer.
func (a legacyAsker) send(ctx context.Context, r *Request, q *question) (jsontext.Value, error) {
	return r.passAsk(ctx, q, a.call)
}

// call sends a question as a request on the session's connection.
func (a legacyAsker) call(ctx context.Context, ask *AskRequest) (jsontext.Value, error) {
	var answer jsontext.Value
	err := a.session.conn.Call(ctx, ask.Method, ask.Params, &answer)
	return answer, err
}

// capabilityText renders capabilities for an error message, e.g. {"sampling":{}}.
func capabilityText(c mcp.ClientCapabilities) string {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("%+v", c)
	}
	return string(b)
}
