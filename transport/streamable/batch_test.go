package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// A batch whose answer turns into an SSE stream (progress comes first) still
// answers its invalid elements, as events of that stream.
func TestBatchInvalidElementsAreAnsweredOnAnSSEStream(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20250326)
	batch := `[` + callBody("5", "progress", "") + `,{"jsonrpc":"2.0","id":6},42]`
	resp := do(t, "POST", url, legacyHeaders(sid), batch)
	wantStatus(t, resp, http.StatusOK)
	var got []string
	for _, ev := range events(t, resp) {
		if len(ev.Data) == 0 {
			continue
		}
		switch m := message(t, ev).(type) {
		case *jsonrpc.Response:
			code := int64(0)
			if m.Error != nil {
				code = m.Error.Code
			}
			got = append(got, fmt.Sprintf("%s:%d", m.ID.Raw(), code))
		case *jsonrpc.Request:
			got = append(got, m.Method)
		}
	}
	want := "6:-32600 null:-32600 notifications/progress notifications/progress 5:0"
	if strings.Join(got, " ") != want {
		t.Errorf("the stream carried %v; want %s", got, want)
	}
}

// A batch that carries a request and the notifications/cancelled for that
// same request is answered without it: the connection cancels the request,
// which then has no response, so the POST must not keep waiting for one.
func TestBatchCancellingItsOwnRequestIsAnsweredWithoutIt(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	sid := initSession(t, url, mcp.Version20250326)
	batch := "[" + callBody("7", "block", "") + "," + callBody("8", "echo", "x") +
		`,{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}]`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := postAsync(t, mustRequest(t, "POST", url, legacyHeaders(sid), batch).WithContext(ctx))
	if cause := <-f.ended; cause == nil {
		t.Fatal("the block tool was released, not cancelled")
	}
	r := <-done
	if r.err != nil {
		if errors.Is(r.err, context.DeadlineExceeded) {
			t.Fatalf("the POST of a batch whose request was cancelled never completed: it still awaits the cancelled request's response")
		}
		t.Fatal(r.err)
	}
	defer r.resp.Body.Close()
	wantStatus(t, r.resp, http.StatusOK)
	msg, err := jsonrpc.DecodeMessage(readAll(t, r.resp))
	b, _ := msg.(jsonrpc.Batch)
	var ids []string
	for _, m := range b {
		if resp, ok := m.(*jsonrpc.Response); ok {
			ids = append(ids, resp.ID.Raw())
		}
	}
	if err != nil || len(b) != 1 || fmt.Sprint(ids) != "[8]" {
		t.Errorf("the batch was answered with %#v (%v), want the echo's response alone", msg, err)
	}
}

// A batch refused for reusing the ID of a request in progress cancels
// nothing, even a request it names in a notifications/cancelled: the
// request keeps its stream and is answered.
func TestBatchRefusedForADuplicateIDCancelsNothing(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	sid := initSession(t, url, mcp.Version20250326)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := postAsync(t, mustRequest(t, "POST", url, legacyHeaders(sid), callBody("4", "block", "")).WithContext(ctx))
	<-f.started
	batch := "[" + callBody("4", "echo", "x") + `,{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}]`
	wantError(t, do(t, "POST", url, legacyHeaders(sid), batch), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
	close(f.release)
	if cause := <-f.ended; cause != nil {
		t.Fatalf("the block tool was cancelled (%v), want it released", cause)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.resp.Body.Close()
	if resp := wantResponse(t, r.resp); resp.Error != nil || !strings.Contains(string(resp.Result), "released") {
		t.Errorf("the request in progress was answered with %s %v, want the block tool's result", resp.Result, resp.Error)
	}
}

// postResult is the outcome of a request sent by postAsync.
type postResult struct {
	resp *http.Response
	err  error
}

// postAsync sends req on another goroutine; its outcome arrives on the
// channel returned.
func postAsync(t *testing.T, req *http.Request) <-chan postResult {
	t.Helper()
	done := make(chan postResult, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		done <- postResult{resp, err}
	}()
	return done
}
