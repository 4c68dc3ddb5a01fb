package interop_test

import (
	"bufio"
	"context"
	stdjson "encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// browserSession is a headless Chromium driven over the DevTools protocol
// on a pipe (--remote-debugging-pipe: JSON messages ending in a NUL byte,
// written to the browser's fd 3 and read from its fd 4), with one page
// attached. The protocol is a handful of calls here, so no library.
type browserSession struct {
	t       *testing.T
	ctx     context.Context
	toPipe  *os.File
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	session string // the page's flat session ID
}

type cdpReply struct {
	Result stdjson.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts Chromium (as the project requires it to run on a
// closed network: headless, no sandbox, no GPU, no background traffic, a
// fresh profile) and attaches to a new blank page of the given size.
func startBrowser(t *testing.T, ctx context.Context, width, height int) *browserSession {
	t.Helper()
	browser := chromium(t)
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", fmt.Sprintf("--window-size=%d,%d", width, height), "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW} // fds 3 and 4
	cmd.Stderr = logTo(t, "chromium: ")
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	b := &browserSession{t: t, ctx: ctx, toPipe: toBrowserW, waiting: make(map[int]chan cdpReply)}
	readDone := make(chan struct{})
	go b.read(fromBrowserR, readDone)
	t.Cleanup(func() {
		b.callSession("", "Browser.close", nil, nil)
		toBrowserW.Close()
		if err := cmd.Wait(); err != nil {
			t.Logf("chromium ended: %v", err)
		}
		<-readDone
	})
	var target struct{ TargetID string }
	b.callSession("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.callSession("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	return b
}

// read hands each reply to its caller until the browser closes the pipe;
// events are not needed here and are dropped.
func (b *browserSession) read(r *os.File, done chan<- struct{}) {
	defer close(done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m struct {
			ID *int `json:"id"`
			cdpReply
		}
		if err := stdjson.Unmarshal(msg[:len(msg)-1], &m); err != nil || m.ID == nil {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[*m.ID]
		delete(b.waiting, *m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// call sends a command to the page and decodes its result into out.
func (b *browserSession) call(method string, params, out any) error {
	return b.callSession(b.session, method, params, out)
}

func (b *browserSession) callSession(session, method string, params, out any) error {
	return b.send(b.ctx, session, method, params, out)
}

// send sends a command and awaits its reply until ctx ends.
func (b *browserSession) send(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := stdjson.Marshal(msg)
	if _, err := b.toPipe.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: writing to chromium: %w", method, err)
	}
	select {
	case reply, ok := <-ch:
		switch {
		case !ok:
			return fmt.Errorf("%s: chromium closed its pipe", method)
		case reply.Error != nil:
			return fmt.Errorf("%s: %s (%d)", method, reply.Error.Message, reply.Error.Code)
		case out != nil:
			return stdjson.Unmarshal(reply.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// navigate opens the URL in the page.
func (b *browserSession) navigate(url string) {
	b.t.Helper()
	var nav struct{ ErrorText string }
	if err := b.call("Page.navigate", map[string]any{"url": url}, &nav); err != nil || nav.ErrorText != "" {
		b.t.Fatalf("navigating to %s: %v %s", url, err, nav.ErrorText)
	}
}

// eval evaluates the expression in the page, awaiting a promise, and
// decodes its value into out; an exception is an error.
func (b *browserSession) eval(expr string, out any) error {
	return b.evalWithin(b.ctx, expr, out)
}

// evalWithin is eval awaiting the page until ctx ends.
func (b *browserSession) evalWithin(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value stdjson.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.send(ctx, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		return fmt.Errorf("%s %s", e.Text, e.Exception.Description)
	}
	if out != nil && res.Result.Value != nil {
		return stdjson.Unmarshal(res.Result.Value, out)
	}
	return nil
}

// do runs a statement in the page, failing the test if it throws.
func (b *browserSession) do(js string) {
	b.t.Helper()
	if err := b.eval("(() => {"+js+"})()", nil); err != nil {
		b.t.Fatalf("in the page, %s: %v", js, err)
	}
}

// waitFor waits, on the page's DOM mutations (no polling), until the
// JavaScript expression is truthy, and returns its value as a string. A
// navigation that replaces the page while it waits is waited out.
func (b *browserSession) waitFor(what, cond string) string {
	b.t.Helper()
	expr := `new Promise((resolve) => {
  const check = () => { try { const v = (` + cond + `); if (v) { resolve(String(v)); return true; } } catch (e) {} return false; };
  if (check()) return;
  const mo = new MutationObserver(() => { if (check()) mo.disconnect(); });
  mo.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
})`
	for {
		var v string
		err := b.eval(expr, &v)
		if err == nil {
			return v
		}
		if b.ctx.Err() != nil {
			b.t.Fatalf("waiting for %s: %v; the page shows:\n%s", what, err, b.seen())
		}
		// The page's execution context was replaced or not made yet
		// ("Execution context was destroyed", "Cannot find default
		// execution context", "Inspected target navigated or closed"):
		// wait in the new one.
		if msg := err.Error(); !strings.Contains(msg, "context") && !strings.Contains(msg, "navigated") {
			b.t.Fatalf("waiting for %s: %v", what, err)
		}
	}
}

// seen returns what the page shows, for a failure's message: its text,
// the open dialogs' included, read with a few seconds of its own once the
// test's deadline has passed.
func (b *browserSession) seen() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var text string
	if err := b.evalWithin(ctx, `document.body.innerText`, &text); err != nil {
		return fmt.Sprintf("(could not read the page: %v)", err)
	}
	return text
}

// screenshot returns a PNG of the page.
func (b *browserSession) screenshot() []byte {
	b.t.Helper()
	var shot struct{ Data []byte }
	if err := b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": false}, &shot); err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	return shot.Data
}
