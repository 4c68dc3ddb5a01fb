package postgres_test

import (
	"context"
	"log"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/postgres"
)

// A server whose tasks live in PostgreSQL: every instance started so on
// the same database serves, answers and cancels every task. The Store and
// the Bus are opened with the same connection string and schema, so they
// pair: each task write notifies its own signal, in its own statement.
func ExampleOpen() {
	ctx := context.Background()
	url := "postgres://weft@db.internal:5432/mcp"
	store, err := postgres.Open(ctx, url, postgres.WithSchema("weft"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	bus, err := postgres.OpenBus(ctx, url, nil, postgres.WithSchema("weft"))
	if err != nil {
		log.Fatal(err)
	}
	defer bus.Close()
	rt, err := tasks.New(store, bus, tasks.WithInstanceID("mcp-1"))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s := server.New(mcp.Implementation{Name: "worker", Version: "1.0.0"}, &server.Options{Tasks: rt})
	_ = s // register tools, then serve s (streamable.NewHandler)
}
