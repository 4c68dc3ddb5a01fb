package oauthclient

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/weftmcp/weft/auth"
)

// Transport returns an http.RoundTripper that sends requests through base
// (nil means http.DefaultTransport) with the MCP endpoint's access token in
// the Authorization header: a Bearer token as such, a DPoP-bound one with
// the DPoP scheme and a fresh proof (RFC 9449 section 7), sent again once
// with the server's nonce when it asks for one (use_dpop_nonce, section
// 9). When the server answers 401 it discovers the
// authorization server, obtains a token and retries once; when it answers
// 403 with error="insufficient_scope" it authorizes again for the union of
// the scopes requested before and those challenged, and retries once. A 403
// for scopes already requested is returned as is, so a server that will
// never be satisfied cannot cause an authorization loop. Requests that
// already carry an Authorization header pass through untouched.
//
// The request body is replayed for the retry: through Request.GetBody when
// set (as http.NewRequest sets it for in-memory bodies), otherwise by
// buffering the body in memory first.
func (c *Client) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{c: c, base: base}
}

type transport struct {
	c    *Client
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	getBody, err := replayable(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	ep := t.c.endpointFor(req.URL)
	tok := t.c.token(ctx, ep)
	reauthorized, steppedUp, nonced := false, false, false
	for {
		resp, err := t.send(req, getBody, tok)
		if err != nil {
			return nil, err
		}
		fresh := tok != nil && tok.TokenType == TokenTypeDPoP && t.c.dpop.noteNonce(req.URL, resp.Header)
		ch, challenged := tokenChallenge(resp.Header)
		switch {
		case resp.StatusCode == http.StatusUnauthorized && fresh && !nonced && ch.Params[auth.ParamError] == errorUseDPoPNonce:
			discard(resp)
			nonced = true
		case resp.StatusCode == http.StatusUnauthorized && !reauthorized:
			if !challenged && len(resp.Header.Values("WWW-Authenticate")) > 0 {
				return resp, nil // another scheme: not ours to answer
			}
			discard(resp)
			if tok, err = t.c.reauthorize(ctx, ep, tok, ch); err != nil {
				return nil, fmt.Errorf("%s %s needs authorization: %w", req.Method, req.URL.Redacted(), err)
			}
			reauthorized = true
		case resp.StatusCode == http.StatusForbidden && !steppedUp:
			if !challenged || ch.Params[auth.ParamError] != auth.ErrorInsufficientScope {
				return resp, nil
			}
			next, err := t.c.stepUp(ctx, ep, tok, ch)
			if errors.Is(err, errFutile) {
				return resp, nil
			}
			discard(resp)
			if err != nil {
				return nil, fmt.Errorf("%s %s needs more scopes: %w", req.Method, req.URL.Redacted(), err)
			}
			tok, steppedUp = next, true
		default:
			return resp, nil
		}
	}
}

// send sends a copy of req with tok (none when nil) and a fresh body.
func (t *transport) send(req *http.Request, getBody func() (io.ReadCloser, error), tok *Token) (*http.Response, error) {
	r := req.Clone(req.Context())
	if getBody != nil {
		body, err := getBody()
		if err != nil {
			return nil, fmt.Errorf("replay the request body: %w", err)
		}
		r.Body = body
	}
	switch {
	case tok == nil:
	case tok.TokenType != TokenTypeDPoP:
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	case t.c.dpop == nil:
		return nil, fmt.Errorf("the token for %s is DPoP-bound, but DPoP is disabled (Config.DisableDPoP)", req.URL.Redacted())
	default:
		proof, err := t.c.dpop.proof(r.Method, r.URL, tok.AccessToken, t.c.now())
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", TokenTypeDPoP+" "+tok.AccessToken)
		r.Header.Set(headerDPoP, proof)
	}
	return t.base.RoundTrip(r)
}

// tokenChallenge returns the response's Bearer or DPoP challenge (a
// server taking DPoP-bound tokens may challenge with either scheme).
func tokenChallenge(h http.Header) (auth.Challenge, bool) {
	for _, c := range auth.ParseChallenges(h.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, TokenTypeBearer) || strings.EqualFold(c.Scheme, TokenTypeDPoP) {
			return c, true
		}
	}
	return auth.Challenge{}, false
}

// replayable returns a function giving a fresh copy of req's body for each
// attempt, or nil when req has no body.
func replayable(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		req.Body.Close() // each attempt reads its own copy
		return req.GetBody, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("buffer the request body: %w", err)
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, nil
}

// discard drains a little of a response being replaced, so its connection
// can be reused, and closes it.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
