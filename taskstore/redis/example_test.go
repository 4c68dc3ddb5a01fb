package redis_test

import (
	"context"
	"log"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/redis"
)

// A server whose tasks live in Redis: every instance started so on the
// same Redis and prefix serves, answers and cancels every task. The Store
// and the Bus share one client, so each write's script publishes its own
// signal to the other instances.
func ExampleNewBus() {
	ctx := context.Background()
	client := goredis.NewClient(&goredis.Options{Addr: "redis.internal:6379"})
	defer client.Close()
	store, err := redis.New(client, redis.WithPrefix("weft"))
	if err != nil {
		log.Fatal(err)
	}
	bus, err := redis.NewBus(ctx, client, redis.WithPrefix("weft"))
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
