package cli

import (
	"context"

	"github.com/weftmcp/weft/client"
)

// withSession connects to t in the protocol version out asks for, runs fn
// on the session and closes it.
func withSession(ctx context.Context, e *env, t target, out *outputFlags, opts client.Options, fn func(*client.Session) error) error {
	opts.ProtocolVersion = out.protocol
	s, err := connect(ctx, e, t, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}
