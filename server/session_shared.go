package server

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/transport"
)

// A legacy session whose stream is a transport.SharedSession lives in a
// store that several instances share: initialize stores what it
// negotiated, logging/setLevel and resources/(un)subscribe store what they
// set, and the level and subscriptions are read from the stored state the
// transport refreshes on each request. A session another instance started
// comes with its stored state, from which it is served without a new
// initialize.

// share notes the stream's shared state and, when the session was started
// elsewhere, takes it over: it is initialized as the stored record says.
func (ss *Session) share() error {
	rec := ss.stored()
	if rec == nil {
		return nil
	}
	var caps mcp.ClientCapabilities
	var client mcp.Implementation
	if len(rec.Capabilities) > 0 {
		if err := json.Unmarshal(rec.Capabilities, &caps); err != nil {
			return fmt.Errorf("server: the stored capabilities of session %s are unreadable: %w", rec.ID, err)
		}
	}
	if len(rec.ClientInfo) > 0 {
		if err := json.Unmarshal(rec.ClientInfo, &client); err != nil {
			return fmt.Errorf("server: the stored client info of session %s is unreadable: %w", rec.ID, err)
		}
	}
	declared := ss.srv.capabilities(rec.Version)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.phase, ss.version, ss.caps, ss.client = phaseReady, rec.Version, caps, client
	ss.takenOver = true
	ss.noteListChangedLocked(declared)
	return nil
}

// tookOver calls the TakeOver hook of a session taken over from the
// store, before the first of its requests here is served.
func (ss *Session) tookOver() {
	ss.mu.Lock()
	taken := ss.takenOver
	ss.mu.Unlock()
	if taken {
		ss.begin(ss.srv.opts.Sessions.TakeOver)
	}
}

// stored returns the session's state in the shared store, or nil when it
// has none.
func (ss *Session) stored() *sessions.Record {
	sh := ss.shared()
	if sh == nil {
		return nil
	}
	return sh.Stored()
}

// shared returns the session's stream as a transport.SharedSession, or nil
// when it is not one.
func (ss *Session) shared() transport.SharedSession {
	sh, _ := ss.stream.(transport.SharedSession)
	return sh
}

// establish stores a session initialize has just negotiated, when it is
// shared.
func (ss *Session) establish(ctx context.Context, p *mcp.InitializeParams, version string) error {
	sh := ss.shared()
	if sh == nil {
		return nil
	}
	caps, err := json.Marshal(p.Capabilities)
	if err != nil {
		return err
	}
	client, err := json.Marshal(p.ClientInfo)
	if err != nil {
		return err
	}
	if err := sh.Established(ctx, version, caps, client); err != nil {
		return storeError(err)
	}
	return nil
}

// storeError is the answer to a request whose change to the session could
// not be stored.
func storeError(err error) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "the session's state could not be stored, so the change was not made; retry: %v", err)
}
