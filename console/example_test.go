package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/console"
	"github.com/weftmcp/weft/tasks"
)

// The console mounted under /console/ of an application's own mux, over
// the Runtime, Store and Bus its MCP server uses. Serve that mux on an
// address apart from the MCP endpoint, on loopback, since no token is
// required here.
func Example() {
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	rt, err := tasks.New(store, bus)
	if err != nil {
		panic(err)
	}
	defer rt.Close(context.Background())
	release := make(chan struct{})
	defer close(release) // before Close, which waits for the handler
	rt.Register("tools/call", "sleep", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-release
		return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
	}, tasks.Policy{})

	c, err := console.New(console.Options{Runtime: rt, Store: store, Bus: bus})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/console/", http.StripPrefix("/console", c))
	srv := httptest.NewServer(mux) // in an application: http.ListenAndServe("127.0.0.1:8081", mux)
	defer srv.Close()

	rt.Start(context.Background(), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "sleep"})
	resp, err := http.Get(srv.URL + "/console/api/tasks")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var page struct {
		Tasks []struct{ Tool, Principal, Status string }
	}
	json.NewDecoder(resp.Body).Decode(&page)
	fmt.Println(resp.Status, page.Tasks)
	// Output: 200 OK [{sleep alice working}]
}

// With a Verifier, every request needs an access token granting the admin
// scope: in the Authorization header, or in the cookie the page's sign-in
// sets. Here a function stands for the verifier of a real authorization
// server (auth.NewJWTVerifier).
func ExampleOptions_verifier() {
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	rt, err := tasks.New(store, bus)
	if err != nil {
		panic(err)
	}
	defer rt.Close(context.Background())
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*auth.TokenInfo, error) {
		if token != "operator-token" {
			return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{Subject: "ops", Scopes: []string{"tasks:admin"}}, nil
	})
	c, err := console.New(console.Options{Runtime: rt, Store: store, Bus: bus, Verifier: verifier, AdminScope: "tasks:admin"})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(c)
	defer srv.Close()

	for _, token := range []string{"", "operator-token"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/totals", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	// Output:
	// 401 Unauthorized
	// 200 OK
}

// An AuditRecorder wraps the handler of the Runtime's logger, so that the
// console shows each task's audit events; every record still reaches the
// handler it wraps.
func ExampleNewAuditRecorder() {
	audit := console.NewAuditRecorder(slog.NewTextHandler(os.Stderr, nil), 0, 0)
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	rt, err := tasks.New(store, bus, tasks.WithLogger(slog.New(audit)))
	if err != nil {
		panic(err)
	}
	defer rt.Close(context.Background())
	rt.Register("tools/call", "echo", func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	task, _ := rt.Start(context.Background(), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "echo"})
	rt.Wait(context.Background(), "alice", task.ID)

	if _, err := console.New(console.Options{Runtime: rt, Store: store, Bus: bus, Audit: audit}); err != nil {
		panic(err)
	}
	for _, e := range audit.Events(task.ID) {
		fmt.Println(e.Event)
	}
	// Output:
	// created
	// completed
}
