package redis_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/redis"
)

// replyDropper dials Redis; once armed, the next connection to send
// an EVALSHA reads Redis's whole reply to it (so the script has run),
// throws it away and fails as a dropped connection would.
type replyDropper struct {
	mu    sync.Mutex
	armed bool
	fired bool
}

// dropConn is a connection replyDropper dialled.
type dropConn struct {
	net.Conn
	d    *replyDropper
	mu   sync.Mutex
	drop bool
}

func (d *replyDropper) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &dropConn{Conn: conn, d: d}, nil
}

func (c *dropConn) Write(p []byte) (int, error) {
	if bytes.Contains(bytes.ToLower(p), []byte("evalsha")) {
		c.d.mu.Lock()
		if c.d.armed {
			c.d.armed, c.d.fired = false, true
			c.mu.Lock()
			c.drop = true
			c.mu.Unlock()
		}
		c.d.mu.Unlock()
	}
	return c.Conn.Write(p)
}

func (c *dropConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	drop := c.drop
	c.drop = false
	c.mu.Unlock()
	if drop {
		// The reply of a script is one short line (an integer or a
		// status string): reading its first bytes means the script ran.
		buf := make([]byte, 512)
		if _, err := c.Conn.Read(buf); err != nil {
			return 0, err
		}
		c.Conn.Close()
		return 0, io.EOF
	}
	return c.Conn.Read(p)
}

// arm makes the next EVALSHA's reply lost.
func (d *replyDropper) arm() {
	d.mu.Lock()
	d.armed, d.fired = true, false
	d.mu.Unlock()
}

// mustHaveDropped fails the test unless a reply was lost since arm.
func (d *replyDropper) mustHaveDropped(t *testing.T) {
	t.Helper()
	d.mu.Lock()
	fired := d.fired
	d.mu.Unlock()
	if !fired {
		t.Fatal("the reply was not dropped")
	}
}

// newReplyDroppingStore returns a Store on a client of its own whose
// replies d can drop.
func newReplyDroppingStore(t *testing.T) (*redis.Store, *replyDropper) {
	t.Helper()
	needRedis(t)
	d := &replyDropper{}
	opts := *redisOptions
	opts.Dialer = d.dial
	c := goredis.NewClient(&opts)
	t.Cleanup(func() { c.Close() })
	return newStoreOn(t, c, newPrefix(t)), d
}

// A Create whose script ran but whose reply was lost reports the task
// created. go-redis (MaxRetries 3 by default) sends the EVALSHA again, and
// the second run finds the task; reported as ErrExists, the Runtime's
// Start would abandon the run and tell the client the creation failed,
// while the task stayed stored, working, owned by this instance and
// counted against the quotas until its lease lapsed.
func TestACreateWhoseReplyIsLostReportsTheTaskCreated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := newReplyDroppingStore(t)

	rec := newTask()
	d.arm()
	err := s.Create(ctx, rec, tasks.Quota{})
	d.mustHaveDropped(t)
	stored, gerr := s.Get(ctx, rec.ID)
	if gerr != nil {
		t.Fatalf("Get after Create: %v", gerr)
	}
	if err != nil {
		t.Fatalf("Create returned %v, yet it stored the task (status %s, owner %s, version %d)",
			err, stored.Status, stored.Owner, stored.Version)
	}
}

// An Update whose script ran but whose reply was lost reports the write
// made. The retried script would find the version it wrote and answer
// "stale"; the Store would re-read the task, find it completed by this
// very write and return a *TerminalError, and the Runtime would discard
// the handler's result as if the task had finished before (no audit
// record, no transition, no local signal), or tell a client its cancel
// failed because the task was already cancelled.
func TestAnUpdateWhoseReplyIsLostReportsTheWriteMade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := newReplyDroppingStore(t)

	rec := newTask()
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	done := *rec
	done.Status, done.Result, done.UpdatedAt = tasks.StatusCompleted, []byte(`{}`), time.Now()
	d.arm()
	err := s.Update(ctx, &done)
	d.mustHaveDropped(t)
	stored, gerr := s.Get(ctx, rec.ID)
	if gerr != nil {
		t.Fatalf("Get after Update: %v", gerr)
	}
	if err != nil {
		t.Fatalf("Update returned %v, yet it wrote the task (status %s, version %d)", err, stored.Status, stored.Version)
	}
}

// A task stored before writes carried tokens (its hash without the token's
// field) is read and updated as before.
func TestATaskStoredWithoutAWriteTokenIsUpdated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	prefix := newPrefix(t)
	s := newStore(t, prefix)
	rec := newTask()
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := newClient(t).HDel(ctx, "{"+prefix+"}:task:"+rec.ID, "w").Err(); err != nil {
		t.Fatalf("HDEL: %v", err)
	}
	old, err := newStore(t, prefix).Get(ctx, rec.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	old.Status, old.Result, old.UpdatedAt = tasks.StatusCompleted, []byte(`{}`), time.Now()
	if err := s.Update(ctx, old); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got, err := s.Get(ctx, rec.ID); err != nil || got.Status != tasks.StatusCompleted || got.Version != 2 {
		t.Fatalf("after Update the task is %+v (%v); want completed at version 2", got, err)
	}
}

// A Delete whose script ran but whose reply was lost reports the task
// deleted. The retried script finds no task; reported as ErrNotFound, the
// caller would take a task it just deleted for one that was never there.
func TestADeleteWhoseReplyIsLostReportsTheTaskDeleted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := newReplyDroppingStore(t)

	rec := newTask()
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	d.arm()
	err := s.Delete(ctx, rec.ID)
	d.mustHaveDropped(t)
	if _, gerr := s.Get(ctx, rec.ID); !errors.Is(gerr, tasks.ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", gerr)
	}
	if err != nil {
		t.Fatalf("Delete returned %v, yet it deleted the task", err)
	}
	if err := s.Delete(ctx, rec.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("a second Delete of the task returned %v, want ErrNotFound", err)
	}
}

// A DeleteExpired whose script ran but whose reply was lost reports the
// tasks it deleted. The retried script finds them gone and returns none,
// so the sweep would audit no deletion of them.
func TestADeleteExpiredWhoseReplyIsLostReportsWhatItDeleted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := newReplyDroppingStore(t)

	rec := newTask()
	rec.ExpiresAt = rec.CreatedAt.Add(time.Minute)
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	done := *rec
	done.Status, done.Result, done.UpdatedAt = tasks.StatusCompleted, []byte(`{}`), time.Now()
	if err := s.Update(ctx, &done); err != nil {
		t.Fatalf("Update: %v", err)
	}
	d.arm()
	gone, err := s.DeleteExpired(ctx, rec.ExpiresAt.Add(time.Minute), 10)
	d.mustHaveDropped(t)
	if err != nil {
		t.Fatalf("DeleteExpired: %v", err)
	}
	if _, gerr := s.Get(ctx, rec.ID); !errors.Is(gerr, tasks.ErrNotFound) {
		t.Fatalf("Get after DeleteExpired: %v, want ErrNotFound", gerr)
	}
	want := tasks.DeletedTask{ID: rec.ID, Principal: rec.Principal, Method: rec.Method, Name: rec.Name, Status: tasks.StatusCompleted}
	if len(gone) != 1 || gone[0] != want {
		t.Fatalf("DeleteExpired reported %+v, yet it deleted %+v", gone, want)
	}
}
