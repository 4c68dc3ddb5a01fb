package redis_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/weftmcp/weft/sessions"
)

// An Append whose script ran but whose reply was lost stores the message
// once and reports its number. The retried script would store it again,
// and the client would get the message twice under two event IDs.
func TestAnAppendWhoseReplyIsLostStoresTheMessageOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := newReplyDroppingStore(t)
	log := s.Messages()

	session := rand.Text()
	d.arm()
	n, err := log.Append(ctx, session, sessions.ToClient, []byte(`{"n":1}`))
	if !d.didFire() {
		t.Fatal("the reply was not dropped")
	}
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	msgs, err := log.Read(ctx, session, sessions.ToClient, 0)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if n != 1 || len(msgs) != 1 {
		t.Fatalf("Append returned %d and the box holds %d messages, want message 1 alone", n, len(msgs))
	}
	if n, err := log.Append(ctx, session, sessions.ToClient, []byte(`{"n":1}`)); err != nil || n != 2 {
		t.Fatalf("the next Append of the same data = %d, %v; want 2", n, err)
	}
}
