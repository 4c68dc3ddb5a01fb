package adversarial

import (
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// legacyStatus is the HTTP status a case gets in a legacy session at v: 400
// when the body is refused as a whole, 202 when nothing is owed, else 200
// with the answers.
func (c badInput) legacyStatus(v string) int {
	want, _ := c.wantFor(v)
	switch {
	case c.whole || c.batch && !mcp.AllowsBatch(v):
		return http.StatusBadRequest
	case len(want) == 0:
		return http.StatusAccepted
	}
	return http.StatusOK
}

// modernWant is what a case gets as a modern POST: its status and answers.
// The body must be one request or notification, so a batch or a response
// is refused with 400 and -32600; -32601 is 404 and the other refusals of
// malformed requests are 400.
func (c badInput) modernWant() (int, []answer) {
	v := mcp.Version20260728
	want, _ := c.wantFor(v)
	switch {
	case c.response:
		return http.StatusBadRequest, []answer{{jsonrpc.CodeInvalidRequest, `"unasked"`}}
	case c.whole || c.batch:
		return http.StatusBadRequest, want
	case len(want) == 0:
		return http.StatusAccepted, nil
	}
	switch want[0].code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound, want
	case jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams:
		return http.StatusBadRequest, want
	}
	return http.StatusOK, want
}

// TestStreamableLegacySessionAnswersBadInputAndKeepsServing posts the
// corpus in a legacy session: each case gets its status and answers, the
// session serves a valid request right after it, and calls in flight in
// another legacy session and as a modern request complete unaffected.
func TestStreamableLegacySessionAnswersBadInputAndKeepsServing(t *testing.T) {
	hf := startHTTP(t)
	for _, v := range []string{mcp.Version20250326, mcp.Version20251125} {
		t.Run(v, func(t *testing.T) {
			legacy := startLegacyBystander(t, hf, "legacy-"+v)
			modern := startModernBystander(t, hf, "modern-"+v)
			s := openLegacy(t, hf, v)
			for _, c := range corpus {
				t.Run(c.name, func(t *testing.T) {
					e := s.post(t, strings.NewReader(c.body(v)))
					if want := c.legacyStatus(v); e.status != want {
						t.Errorf("status %d, want %d (body %.300s)", e.status, want, e.body)
					}
					c.check(t, v, e.reply(t))
					s.alive(t)
				})
			}
			legacy.finish(t, hf)
			modern.finish(t, hf)
		})
	}
}

// TestStreamableModernAnswersBadInputAndKeepsServing posts the corpus as
// 2026-07-28 requests, with the headers a client mirrors from the body:
// each case gets its status and answers, a valid request right after it is
// served, and calls in flight complete unaffected.
func TestStreamableModernAnswersBadInputAndKeepsServing(t *testing.T) {
	hf := startHTTP(t)
	legacy := startLegacyBystander(t, hf, "legacy")
	modern := startModernBystander(t, hf, "modern")
	c := newHTTPClient(t)
	for _, bad := range corpus {
		t.Run(bad.name, func(t *testing.T) {
			body := bad.body(mcp.Version20260728)
			e := do(t, c, http.MethodPost, hf.url+"/mcp", modernHeaders(body), strings.NewReader(body))
			status, want := bad.modernWant()
			if e.status != status {
				t.Errorf("status %d, want %d (body %.300s)", e.status, status, e.body)
			}
			expect := bad
			expect.want, expect.wantAt, expect.batch = want, nil, false
			expect.check(t, mcp.Version20260728, e.reply(t))
			modernAlive(t, c, hf.url+"/mcp")
		})
	}
	legacy.finish(t, hf)
	modern.finish(t, hf)
}
