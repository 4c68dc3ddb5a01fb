package redis_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/console"
	"github.com/weftmcp/weft/tasks"
)

// serveConsole serves a console over the runtime, store and bus on
// loopback and returns its URL.
func serveConsole(t *testing.T, rt *tasks.Runtime, store tasks.Store, bus tasks.Bus) string {
	t.Helper()
	c, err := console.New(console.Options{Runtime: rt, Store: store, Bus: bus})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: c, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// startInstance starts a Runtime on its own Store and Bus connections on
// the prefix, as one server of a cluster sharing a Redis.
func startInstance(t *testing.T, prefix, name string) (*tasks.Runtime, tasks.Store, tasks.Bus) {
	t.Helper()
	store, bus := newStore(t, prefix), newBus(t, prefix)
	rt, err := tasks.New(store, bus, tasks.WithInstanceID(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rt.Close(ctx)
	})
	return rt, store, bus
}

// TestConsoleOfOneInstanceCancelsATaskRunningOnAnother: in a cluster of
// two instances on one Redis, the console of instance B hears of a task
// started on instance A as it starts (over the Bus, on its event stream),
// lists it with A holding its lease, and its cancel stops the handler on A.
func TestConsoleOfOneInstanceCancelsATaskRunningOnAnother(t *testing.T) {
	needRedis(t)
	prefix := newPrefix(t)
	a, _, _ := startInstance(t, prefix, "instance-a")
	b, storeB, busB := startInstance(t, prefix, "instance-b")
	stopped := make(chan error, 1)
	work := func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-ctx.Done()
		stopped <- context.Cause(ctx)
		return tasks.Result{}, context.Cause(ctx)
	}
	a.Register("tools/call", "sleep", work, tasks.Policy{})
	b.Register("tools/call", "sleep", work, tasks.Policy{})
	consoleB := serveConsole(t, b, storeB, busB)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events := followEvents(t, ctx, consoleB)
	task, err := a.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "sleep", Params: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	heard := false
	for row := range events {
		if row.ID == task.ID && row.Owner == "instance-a" {
			heard = true
			break
		}
	}
	if !heard {
		t.Fatal("B's event stream ended without the task started on A")
	}

	var page struct {
		Tasks []struct{ ID, Status, Owner string }
	}
	getJSON(t, consoleB+"api/tasks?tool=sleep", &page)
	if len(page.Tasks) != 1 || page.Tasks[0].ID != task.ID || page.Tasks[0].Owner != "instance-a" || page.Tasks[0].Status != "working" {
		t.Fatalf("B's console lists %+v, want task %s working on instance-a", page.Tasks, task.ID)
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, consoleB+"api/tasks/"+task.ID+"/cancel", nil)
	req.Header.Set("X-Weft-Console-Csrf", csrfToken(t, consoleB))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("cancel from B's console: %d %s", resp.StatusCode, body)
	}
	select {
	case cause := <-stopped:
		if cause == nil {
			t.Error("the handler on A stopped without a cause")
		}
	case <-ctx.Done():
		t.Fatal("the handler on instance A never stopped after the cancel from B's console")
	}
	got, err := a.Get(ctx, "alice", task.ID)
	if err != nil || got.Status != tasks.StatusCancelled {
		t.Errorf("after the cancel, A reads the task as %v (%v), want cancelled", got.Status, err)
	}
}

// eventRow is the part of a console's "task" event the test reads.
type eventRow struct{ ID, Status, Owner string }

// followEvents reads the console's event stream, sending each task event's
// row until ctx ends; it returns once the stream has said hello.
func followEvents(t *testing.T, ctx context.Context, base string) <-chan eventRow {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the event stream: %s", resp.Status)
	}
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || lines.Text() != "event: hello" {
		t.Fatalf("the event stream began with %q, want the hello event", lines.Text())
	}
	rows := make(chan eventRow)
	go func() {
		defer resp.Body.Close()
		defer close(rows)
		event := ""
		for lines.Scan() {
			line := lines.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
			} else if data, ok := strings.CutPrefix(line, "data: "); ok && event == "task" {
				var r eventRow
				if json.Unmarshal([]byte(data), &r) == nil {
					select {
					case rows <- r:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	return rows
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// csrfToken reads the CSRF token from the console's page.
func csrfToken(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`<meta name="weft-csrf" content="([^"]+)">`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the console's page has no CSRF token: %s", page)
	}
	return string(m[1])
}
