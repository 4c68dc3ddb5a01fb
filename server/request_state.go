package server

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
)

// stateFormat versions the requestState payload; a token of another format
// is rejected like a tampered one.
const stateFormat = 1

// statePayload is what a requestState carries between the rounds of a multi
// round-trip request. It is signed (see sealer), not encrypted: the client
// can read it, so it holds nothing the client may not see. It binds the
// principal, the method and a digest of the params, so it cannot be replayed
// by someone else or on another request, and it expires.
type statePayload struct {
	Format    int                       `json:"f"`
	Principal string                    `json:"p,omitempty"`
	Method    string                    `json:"m"`
	Digest    []byte                    `json:"d"`
	Expires   int64                     `json:"x"` // Unix milliseconds
	Answers   map[string]recordedAnswer `json:"a,omitempty"`
	Handler   jsontext.Value            `json:"h,omitzero"` // the handler's own state (Request.SetRoundState)
}

// recordedAnswer is a client's answer to one question: the method it
// answered (empty when it came in inputResponses and has not been matched to
// a question yet) and the raw result.
type recordedAnswer struct {
	Method string         `json:"m,omitempty"`
	Result jsontext.Value `json:"r"`
}

// sealState returns the requestState for the next round of r.
func (s *Server) sealState(r *Request) (string, error) {
	digest, err := r.round.paramsDigest(r.params)
	if err != nil {
		return "", err
	}
	p := statePayload{
		Format:    stateFormat,
		Principal: r.principal,
		Method:    r.method,
		Digest:    digest,
		Expires:   s.now().Add(s.stateTTL).UnixMilli(),
		Answers:   r.round.used,
		Handler:   r.round.next,
	}
	raw, err := json.Marshal(&p)
	if err != nil {
		return "", fmt.Errorf("server: encoding requestState: %w", err)
	}
	return s.states.seal(raw), nil
}

// openState verifies a requestState presented on r and returns its payload.
// Every failure is -32602 with a message that says which check failed.
func (s *Server) openState(r *Request, token string) (*statePayload, error) {
	raw, ok := s.states.open(token)
	var p statePayload
	if !ok || json.Unmarshal(raw, &p) != nil || p.Format != stateFormat {
		return nil, invalidParams("requestState failed its integrity check: it was altered, or issued by a server with another " +
			"state key (instances serving the same clients must share Options.StateKey, for example from their sessions.Store); retry the request without requestState and inputResponses")
	}
	if now := s.now().UnixMilli(); now > p.Expires {
		return nil, invalidParams("requestState expired at %s; retry the request without requestState and inputResponses",
			time.UnixMilli(p.Expires).UTC().Format(time.RFC3339))
	}
	if p.Principal != r.principal {
		return nil, invalidParams("requestState was issued to another principal; it cannot be used by this one")
	}
	if p.Method != r.method {
		return nil, invalidParams("requestState was issued for %s, not %s; send it only on a retry of the request it came from", p.Method, r.method)
	}
	digest, err := r.round.paramsDigest(r.params)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(digest, p.Digest) {
		return nil, invalidParams("requestState was issued for other params of %s; a retry must repeat the original params "+
			"(only inputResponses and requestState may be added)", r.method)
	}
	return &p, nil
}

// paramsDigest returns the SHA-256 of params in canonical form (RFC 8785)
// without the members that legitimately change between rounds: _meta,
// inputResponses and requestState. It is computed once per request.
func (rd *round) paramsDigest(params []byte) ([]byte, error) {
	if rd.digest != nil {
		return rd.digest, nil
	}
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf)
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	if len(params) > 0 {
		dec := jsontext.NewDecoder(bytes.NewReader(params))
		if _, err := dec.ReadToken(); err != nil {
			return nil, invalidParams("params are not a JSON object: %v", err)
		}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, invalidParams("params are not a valid JSON object: %v", err)
			}
			name := tok.String() // before the next read voids the token
			val, err := dec.ReadValue()
			if err != nil {
				return nil, invalidParams("params are not a valid JSON object: %v", err)
			}
			switch name {
			case "_meta", "inputResponses", "requestState":
				continue
			}
			if err := enc.WriteToken(jsontext.String(name)); err != nil {
				return nil, err
			}
			if err := enc.WriteValue(val); err != nil {
				return nil, err
			}
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	canon := jsontext.Value(buf.Bytes())
	if err := canon.Canonicalize(); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "canonicalizing params for requestState: %v", err)
	}
	sum := sha256.Sum256(canon)
	rd.digest = sum[:]
	return rd.digest, nil
}
