package redis_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
)

// TestFieldValuesOfEveryLengthFormReachTheHash writes records whose
// values take each MessagePack string form a field list uses (fixstr up
// to 31 bytes, str 16 up to 65,535, str 32 beyond), with bytes that are
// not UTF-8 and NULs among them, through a creation and two updates, the
// second of which deletes an optional field the first set; the hash and
// Get must hold every value byte for byte.
func TestFieldValuesOfEveryLengthFormReachTheHash(t *testing.T) {
	ctx := context.Background()
	prefix := newPrefix(t)
	s := newStore(t, prefix)
	c := newClient(t)
	odd := "\x00\xff\xc0 \"é\x00"
	for _, n := range []int{0, 31, 32, 65535, 65536, 70000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			id := "len-" + strconv.Itoa(n)
			long := strings.Repeat("x", max(n-len(odd), 0)) + odd[:min(n, len(odd))]
			result := json.RawMessage(`"` + strings.Repeat("r", max(n-2, 0)) + `"`)
			rec := &tasks.Record{ID: id, Principal: "p" + long, Method: "tools/call", Name: long,
				Params: json.RawMessage(`{}`), Status: tasks.StatusWorking, StatusMessage: long,
				CreatedAt: time.Date(2026, 11, 27, 9, 0, 0, 5, time.UTC), Policy: tasks.Policy{MaxRuns: 3}}
			if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
				t.Fatalf("Create: %v", err)
			}
			h, err := c.HGetAll(ctx, "{"+prefix+"}:task:"+id).Result()
			if err != nil {
				t.Fatalf("HGETALL: %v", err)
			}
			if h["name"] != long || h["status_message"] != long || h["principal"] != "p"+long ||
				h["max_runs"] != "3" || h["created_at"] != "2026-11-27T09:00:00.000000005Z" {
				t.Fatalf("after Create the hash holds name %q (%d bytes), max_runs %q, created_at %q",
					clip(h["name"]), len(h["name"]), h["max_runs"], h["created_at"])
			}

			// An update that asks for input and holds a lease.
			got, err := s.Get(ctx, id)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			key := "k" + long
			got.Status, got.Owner = tasks.StatusInputRequired, "o"+long
			got.LeaseExpiresAt, got.UpdatedAt = got.CreatedAt.Add(time.Minute), got.CreatedAt.Add(time.Second)
			got.Inputs = []tasks.Input{{Key: key, Request: result}}
			if err := s.Update(ctx, got); err != nil {
				t.Fatalf("Update: %v", err)
			}
			back, err := s.Get(ctx, id)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if back.Owner != got.Owner || !back.LeaseExpiresAt.Equal(got.LeaseExpiresAt) || len(back.Inputs) != 1 ||
				back.Inputs[0].Key != key || string(back.Inputs[0].Request) != string(result) || back.Inputs[0].Response != nil {
				t.Fatalf("after an update Get returns owner of %d bytes, lease %v, inputs %d",
					len(back.Owner), back.LeaseExpiresAt, len(back.Inputs))
			}

			// A failure that gives the lease up: its fields go, the error's come.
			back.Status, back.Owner, back.LeaseExpiresAt = tasks.StatusFailed, "", time.Time{}
			back.Inputs[0].Response = json.RawMessage(`{"answer":` + strconv.Quote(long) + `}`)
			back.Error = &jsonrpc.Error{Code: -32000, Message: long, Data: result}
			if err := s.Update(ctx, back); err != nil {
				t.Fatalf("second Update: %v", err)
			}
			h, err = c.HGetAll(ctx, "{"+prefix+"}:task:"+id).Result()
			if err != nil {
				t.Fatalf("HGETALL: %v", err)
			}
			if _, ok := h["lease_expires_at"]; ok {
				t.Errorf("the lease's time is still in the hash after an update without it: %q", h["lease_expires_at"])
			}
			if h["owner"] != "" || h["error_code"] != "-32000" || h["error_message"] != long ||
				h["error_data"] != string(result) || h["input.0.response"] != string(back.Inputs[0].Response) ||
				h["input.0.key"] != key || h["status"] != "failed" || h["inputs"] != "1" {
				t.Errorf("after the failure the hash holds owner %q, error %q %q (%d data bytes), inputs %q",
					clip(h["owner"]), h["error_code"], clip(h["error_message"]), len(h["error_data"]), h["inputs"])
			}
		})
	}
}

// clip shortens a long value for a failure message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
