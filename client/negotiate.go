package client

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// negotiate settles the protocol version with the server.
func (s *Session) negotiate(ctx context.Context) error {
	switch v := s.opts.ProtocolVersion; {
	case v == "":
		return s.discoverEra(ctx)
	case mcp.IsModern(v):
		return s.discover(ctx, v, true)
	default:
		return s.initialize(ctx, v)
	}
}

// discoverEra probes with server/discover at the newest version, as the
// stdio binding recommends: a discover result means a modern server; a
// modern error means a modern server that lists what it speaks, and the
// client retries once with the newest version both speak; any other error,
// a result that is no discover result (a legacy server answering every
// method, say), or no answer within Options.ProbeTimeout, means a legacy
// server, which gets the initialize handshake.
func (s *Session) discoverEra(ctx context.Context) error {
	res, err := s.probe(ctx, mcp.LatestVersion)
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		if slices.Contains(res.SupportedVersions, mcp.LatestVersion) {
			return s.settleModern(mcp.LatestVersion, res)
		}
		return s.useListed(ctx, res.SupportedVersions, "its server/discover result")
	case ctx.Err() != nil:
		return fmt.Errorf("client: connecting: %w", ctx.Err())
	case errors.Is(err, jsonrpc.ErrClosed):
		return fmt.Errorf("client: connecting: the connection ended during the server/discover probe: %w", err)
	case errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeUnsupportedProtocolVersion:
		supported, err := listedVersions(rpcErr)
		if err != nil {
			return err
		}
		return s.useListed(ctx, supported, "its unsupported-version error")
	case errors.As(err, &rpcErr) && mcp.IsModernErrorCode(rpcErr.Code):
		return fmt.Errorf("client: connecting: the modern server refused server/discover: %w", rpcErr)
	case errors.Is(err, errMalformedDiscover):
		s.client.logger.Warn("client: the server answered server/discover with a result that is not a discover result; taking the server as legacy", "error", err)
		return s.initialize(ctx, mcp.LatestLegacyVersion)
	}
	s.client.logger.Debug("client: the server/discover probe failed; taking the server as legacy", "error", err)
	return s.initialize(ctx, mcp.LatestLegacyVersion)
}

// useListed connects with the newest version in listed that the client
// speaks: the one retry a modern server's list allows.
func (s *Session) useListed(ctx context.Context, listed []string, where string) error {
	v := newestShared(listed)
	switch {
	case v == "":
		return fmt.Errorf("client: connecting: the server speaks %v (from %s), and this client speaks none of them (it speaks %v)",
			listed, where, mcp.SupportedVersions())
	case mcp.IsModern(v):
		return s.discover(ctx, v, false)
	}
	return s.initialize(ctx, v)
}

// listedVersions returns the versions a -32022 (unsupported protocol
// version) error lists in data.supported.
func listedVersions(rpcErr *jsonrpc.Error) ([]string, error) {
	var data mcp.UnsupportedVersionData
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || len(data.Supported) == 0 {
		return nil, fmt.Errorf("client: connecting: the server refused the protocol version, and its error lists no versions to retry with: %w", rpcErr)
	}
	return data.Supported, nil
}

// newestShared returns the newest version in listed this client speaks, or "".
func newestShared(listed []string) string {
	best := ""
	for _, v := range listed {
		if mcp.IsSupported(v) && v > best {
			best = v
		}
	}
	return best
}

// probe sends the era probe: server/discover at version v, bounded by
// Options.ProbeTimeout. An abandoned probe sends no notifications/cancelled.
func (s *Session) probe(ctx context.Context, v string) (*mcp.DiscoverResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ProbeTimeout)
	defer cancel()
	s.probing.Store(true)
	defer s.probing.Store(false)
	return s.sendDiscover(ctx, v)
}

// discover settles a modern version v with server/discover. With retry, a
// -32022 (unsupported protocol version) answer that lists v is retried
// once, as the transports binding has clients do with a version from the
// list; v is pinned, so a list without it fails.
func (s *Session) discover(ctx context.Context, v string, retry bool) error {
	res, err := s.sendDiscover(ctx, v)
	var rpcErr *jsonrpc.Error
	if retry && errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeUnsupportedProtocolVersion {
		supported, lerr := listedVersions(rpcErr)
		if lerr != nil {
			return lerr
		}
		if !slices.Contains(supported, v) {
			return fmt.Errorf("client: connecting: the server speaks %v, not %s, which Options.ProtocolVersion pins; pin one of those or leave it empty to discover: %w",
				supported, v, rpcErr)
		}
		s.client.logger.Debug("client: the server refused server/discover at a version it lists; retrying once", "version", v)
		res, err = s.sendDiscover(ctx, v)
	}
	if err != nil {
		return fmt.Errorf("client: connecting with %s: %w", v, err)
	}
	if !slices.Contains(res.SupportedVersions, v) {
		return fmt.Errorf("client: connecting: the server answered server/discover at %s but lists only %v", v, res.SupportedVersions)
	}
	return s.settleModern(v, res)
}

// errMalformedDiscover is wrapped by the error of a server/discover answer
// that is not a discover result: not an object of the right shape, or one
// listing no supportedVersions.
var errMalformedDiscover = errors.New("the server/discover result is malformed")

// sendDiscover sends server/discover with the _meta of version v.
func (s *Session) sendDiscover(ctx context.Context, v string) (*mcp.DiscoverResult, error) {
	meta, err := s.client.modernMeta(v, false)
	if err != nil {
		return nil, err
	}
	var raw stdjson.RawMessage
	if err := s.request(ctx, mcp.MethodServerDiscover, &mcp.DiscoverParams{Meta: meta}, &raw, nil); err != nil {
		return nil, err
	}
	var res mcp.DiscoverResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%w: %w", errMalformedDiscover, err)
	}
	if len(res.SupportedVersions) == 0 {
		return nil, fmt.Errorf("%w: it lists no supportedVersions", errMalformedDiscover)
	}
	return &res, nil
}

// settleModern records a modern session at version v from a discover result.
func (s *Session) settleModern(v string, res *mcp.DiscoverResult) error {
	meta, err := s.client.modernMeta(v, false)
	if err != nil {
		return err
	}
	taskMeta, err := s.client.modernMeta(v, true)
	if err != nil {
		return err
	}
	info, _ := res.Meta.ServerInfo() // a should: absent leaves it empty
	s.state.Store(&negotiated{
		version:      v,
		modern:       true,
		serverInfo:   info,
		capabilities: res.Capabilities,
		instructions: res.Instructions,
		meta:         meta,
		taskMeta:     taskMeta,
	})
	return nil
}

// initialize performs the legacy handshake offering version v: initialize,
// then notifications/initialized. The server may answer with another
// version; the client accepts any legacy version it speaks.
func (s *Session) initialize(ctx context.Context, v string) error {
	params := &mcp.InitializeParams{
		ProtocolVersion: v,
		Capabilities:    s.opts.capabilities(v),
		ClientInfo:      s.client.impl,
	}
	var res mcp.InitializeResult
	if err := s.request(ctx, mcp.MethodInitialize, params, &res, nil); err != nil {
		return fmt.Errorf("client: connecting: initialize: %w", err)
	}
	got := res.ProtocolVersion
	if !mcp.IsSupported(got) || !mcp.IsLegacy(got) {
		return fmt.Errorf("client: connecting: the server answered initialize with protocol version %q, which this client does not speak in the handshake (it speaks %v)",
			got, slices.DeleteFunc(mcp.SupportedVersions(), mcp.IsModern))
	}
	s.state.Store(&negotiated{
		version:      got,
		serverInfo:   res.ServerInfo,
		capabilities: res.Capabilities,
		instructions: res.Instructions,
	})
	if err := s.notify(ctx, mcp.NotificationInitialized, &mcp.InitializedNotificationParams{}); err != nil {
		return fmt.Errorf("client: connecting: sending notifications/initialized: %w", err)
	}
	return nil
}
