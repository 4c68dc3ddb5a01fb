package sessions_test

import (
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/sessions/sessiontest"
)

func TestMemoryStoreContract(t *testing.T) {
	sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return sessions.NewMemoryStore() })
}

func TestMemoryMessageLogContract(t *testing.T) {
	sessiontest.TestMessageLog(t, func(t *testing.T) sessions.MessageLog { return sessions.NewMemoryMessageLog() })
}

// A server instance that tells the subscribers of a URI reads them a page
// at a time, whichever instance they subscribed through.
func ExampleMemoryStore_Subscribers() {
	ctx := context.Background()
	store := sessions.NewMemoryStore()
	now := time.Now()
	for _, id := range []string{"s3", "s1", "s5", "s2", "s4"} {
		store.Create(ctx, &sessions.Record{ID: id, Version: "2025-11-25", CreatedAt: now, LastSeen: now})
		store.Subscribe(ctx, id, "file:///notes.txt", now)
	}
	store.Unsubscribe(ctx, "s2", "file:///notes.txt", now)
	store.End(ctx, "s4", "") // DELETE: an ended session is no one's subscriber

	for after := ""; ; {
		page, err := store.Subscribers(ctx, "file:///notes.txt", after, 2)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(page)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1]
	}
	// Output:
	// [s1 s3]
	// [s5]
}
