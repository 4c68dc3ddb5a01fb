package streamable

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
)

// A refusal is written when the refused request's response reaches the
// stream, not when the handler refuses: until the server has answered, the
// request's id is still in use, and a client reading the refusal may reuse
// it at once.
func TestRefusalWaitsForTheResponse(t *testing.T) {
	rec := httptest.NewRecorder()
	st := newRespStream(&Handler{}, nil, rec, 1, false)
	refusal := &auth.InsufficientScopeError{Required: []string{"write"}}
	if !st.refuse(refusal) {
		t.Fatal("refuse did not take an insufficient-scope error on an undecided stream")
	}
	if !st.refuse(refusal) {
		t.Error("a second refuse reported the stream as not refused")
	}
	if err := st.deliver(&jsonrpc.Request{Method: "notifications/progress"}, false); err != nil {
		t.Fatalf("a notification before the refused response: %v", err)
	}
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 || len(rec.Header()) != 0 || rec.Flushed {
		t.Fatalf("the stream wrote before the response arrived: status %d, header %v, body %q", rec.Code, rec.Header(), rec.Body)
	}
	select {
	case <-st.done:
		t.Fatal("the stream completed before the response arrived")
	default:
	}
	resp := &jsonrpc.Response{ID: jsonrpc.Int64ID(5), Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "%v", refusal)}
	if err := st.deliver(resp, true); err != nil {
		t.Fatalf("delivering the refused response: %v", err)
	}
	if rec.Code != http.StatusForbidden {
		t.Errorf("status %d, want 403", rec.Code)
	}
	if c := rec.Header().Get("WWW-Authenticate"); !strings.Contains(c, `scope="write"`) {
		t.Errorf("WWW-Authenticate %q lacks the scope to step up to", c)
	}
	if strings.Contains(rec.Body.String(), "jsonrpc") {
		t.Errorf("the body carries the JSON-RPC response: %s", rec.Body)
	}
	select {
	case <-st.done:
	default:
		t.Error("the stream is not complete after its refusal")
	}
}

// Only the refusals auth.WriteError knows are taken, and only while the
// stream has sent nothing.
func TestRefuseDeclines(t *testing.T) {
	scope := &auth.InsufficientScopeError{Required: []string{"admin"}}
	if st := newRespStream(&Handler{}, nil, httptest.NewRecorder(), 1, false); st.refuse(errors.New("disk full")) {
		t.Error("refuse took an error that is no refusal")
	}
	if st := newRespStream(&Handler{}, nil, httptest.NewRecorder(), 2, true); st.refuse(scope) {
		t.Error("refuse took a batch's request")
	}
	st := newRespStream(&Handler{}, nil, httptest.NewRecorder(), 1, false)
	if err := st.deliver(&jsonrpc.Request{Method: "notifications/progress"}, false); err != nil {
		t.Fatal(err)
	}
	if st.refuse(scope) {
		t.Error("refuse took a stream that has switched to SSE")
	}
}

// A refused request that is cancelled before its response still answers
// with its refusal.
func TestAbandonedRefusalIsWritten(t *testing.T) {
	rec := httptest.NewRecorder()
	st := newRespStream(&Handler{}, nil, rec, 1, false)
	if !st.refuse(auth.ErrUnauthenticated) {
		t.Fatal("refuse did not take ErrUnauthenticated")
	}
	st.abandon()
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", rec.Code)
	}
}
