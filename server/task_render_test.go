package server

import (
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// TestAppendLegacyTaskEncodesAsTheTask checks that the hand-written
// encoding of notifications/tasks/status params gives exactly the bytes
// json.Marshal gives for the rendered task, across what a task can hold:
// status messages needing escapes, a tool error shown as failed, no TTL,
// no poll interval, durations under a millisecond, distinct times.
func TestAppendLegacyTaskEncodesAsTheTask(t *testing.T) {
	created := time.Date(2026, 11, 26, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	toolError := []byte(`{"content":[{"type":"text","text":"no \"such\" file <a&b>"}],"isError":true}`)
	for _, task := range []tasks.Task{
		{ID: "T1", Status: tasks.StatusWorking, CreatedAt: created, UpdatedAt: created, TTL: time.Hour, PollInterval: time.Second},
		{ID: "T2", Status: tasks.StatusInputRequired, StatusMessage: "needs \"you\" <now> & \u2028 \x01 é", CreatedAt: created,
			UpdatedAt: created.Add(1500 * time.Millisecond), PollInterval: 50 * time.Millisecond},
		{ID: "T3", Status: tasks.StatusCompleted, IsError: true, Result: toolError, CreatedAt: created, UpdatedAt: created.Add(time.Minute),
			TTL: time.Microsecond, PollInterval: time.Microsecond},
		{ID: "T4", Status: tasks.StatusCompleted, Result: []byte(`{"content":[]}`), CreatedAt: created, UpdatedAt: created},
		{ID: "T5", Status: tasks.StatusCancelled, StatusMessage: "The task was cancelled by request.", CreatedAt: time.Unix(0, 0),
			UpdatedAt: time.Unix(1, 999999999), TTL: 90 * time.Second},
	} {
		want, err := json.Marshal(&mcp.TaskStatusNotificationParams{Task: legacyTask(task)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendLegacyTask([]byte("prefix"), task)
		if err != nil {
			t.Fatalf("task %s: %v", task.ID, err)
		}
		if string(got) != "prefix"+string(want) {
			t.Errorf("task %s:\n got %s\nwant prefix%s", task.ID, got, want)
		}
	}
	if _, err := appendLegacyTask(nil, tasks.Task{ID: "bad\xff"}); err == nil {
		t.Error("a task ID that is not UTF-8 was encoded; json.Marshal refuses it")
	}
}

// TestAppendWireTimeMatchesTheLayout checks the hand-written timestamp
// against time.AppendFormat with wireTimeLayout: zones other than UTC,
// fractions that must be cut (not rounded) to the millisecond, every
// field's padding, and years the fixed width cannot hold.
func TestAppendWireTimeMatchesTheLayout(t *testing.T) {
	east, west := time.FixedZone("E", 13*3600+45*60), time.FixedZone("W", -11*3600)
	times := []time.Time{
		time.Date(2026, 11, 26, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, east),
		time.Date(2026, 12, 31, 22, 0, 0, 999_999, west),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(999, 3, 9, 9, 9, 9, 90_000_000, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, west), // 10000 in UTC
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(0, 0),
		time.Now(),
	}
	for i := range 1000 { // a spread of instants, from 1970 to the year 9892
		times = append(times, time.Unix(int64(i)*250_000_007, int64(i)*1_234_567%1e9))
	}
	for _, at := range times {
		want := at.UTC().AppendFormat([]byte("x"), wireTimeLayout)
		if got := appendWireTime([]byte("x"), at); string(got) != string(want) {
			t.Errorf("%v: got %s, want %s", at, got, want)
		}
	}
}

// BenchmarkAppendWireTime measures one task timestamp's rendering.
func BenchmarkAppendWireTime(b *testing.B) {
	at := time.Date(2026, 11, 26, 23, 59, 59, 999_999_999, time.UTC)
	buf := make([]byte, 0, len(wireTimeLayout))
	for b.Loop() {
		buf = appendWireTime(buf[:0], at)
	}
}
