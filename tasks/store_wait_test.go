package tasks_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
)

// holdingStore is a store that waits (its records are not a MemoryStore's
// shared ones) whose Create or Get, as hold names, waits until release is
// closed.
type holdingStore struct {
	tasks.Store
	hold    atomic.Value // string: "create", "get" or ""
	release chan struct{}
}

func (s *holdingStore) wait(op string) {
	if s.hold.Load() == op {
		<-s.release
	}
}

func (s *holdingStore) Create(ctx context.Context, rec *tasks.Record, quota tasks.Quota) error {
	s.wait("create")
	return s.Store.Create(ctx, rec, quota)
}

func (s *holdingStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	s.wait("get")
	return s.Store.Get(ctx, id)
}

// A request whose task call waits on a durable store lets the connection
// it came on read and serve its next request meanwhile (the Runtime says
// so with jsonrpc.MayWait): under testing/synctest, the other request is
// answered before the clock moves at all, where the connection's own watch
// would pass reading on only after a millisecond.
func TestAStoreCallLetsTheConnectionServeItsOtherRequests(t *testing.T) {
	for _, op := range []string{"create", "get"} {
		t.Run(op, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := &holdingStore{Store: tasks.NewMemoryStore(), release: make(chan struct{})}
				rt, err := tasks.New(store, tasks.NewMemoryBus(), tasks.WithLogger(slog.New(slog.DiscardHandler)),
					tasks.WithRecordCache(0)) // every Get reads the store
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := rt.Close(context.Background()); err != nil {
						t.Error(err)
					}
					// The executor's idle goroutines linger a while on the
					// bubble's clock before they end.
					time.Sleep(time.Hour)
				}()
				rt.Register("tools/call", "job", func(context.Context, *tasks.Exec) (tasks.Result, error) {
					return tasks.Result{Value: raw(`{}`)}, nil
				}, tasks.Policy{})
				start := func(ctx context.Context) (tasks.Task, error) {
					return rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job", Params: raw(`{}`)})
				}
				existing, err := start(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					switch req.Method {
					case "create":
						_, err := start(ctx)
						return "created", err
					case "get":
						_, err := rt.Get(ctx, "alice", existing.ID)
						return "got", err
					}
					return "pong", nil
				})
				clientSide, serverSide := transport.Pipe()
				server := jsonrpc.NewConn(serverSide, jsonrpc.ConnOptions{Handler: h})
				client := jsonrpc.NewConn(clientSide, jsonrpc.ConnOptions{})
				defer func() {
					client.Close()
					server.Close()
					<-client.Done()
					<-server.Done()
				}()

				release := sync.OnceFunc(func() { close(store.release) })
				defer release() // a failure below ends the held request too
				store.hold.Store(op)
				held := make(chan error, 1)
				go func() {
					var res string
					held <- client.Call(t.Context(), op, nil, &res)
				}()
				synctest.Wait() // the held request waits in the store
				began := time.Now()
				var res string
				if err := client.Call(t.Context(), "ping", nil, &res); err != nil {
					t.Fatal(err)
				}
				if waited := time.Since(began); waited > 0 {
					t.Errorf("ping was answered after %v while %s waited on the store; want at once (reading passed on before the store call)", waited, op)
				}
				release()
				if err := <-held; err != nil {
					t.Fatalf("%s: %v", op, err)
				}
			})
		})
	}
}
