package server

import (
	"bytes"
	stdjson "encoding/json"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
)

// FuzzTaskResultEncoding holds encodeTaskResult to json.Marshal: for the
// four task results, with any strings, timestamps, TTL and poll interval,
// one _meta member or none (the server's info, or any value) and a raw
// result, the hand encoding either gives json.Marshal's bytes or leaves
// the result to it; and it leaves nothing to it that it covers (one _meta
// member at most, no input requests or error) and json.Marshal encodes.
func FuzzTaskResultEncoding(f *testing.F) {
	f.Add(uint8(1), "T1", "completed", "", "2026-11-28T01:46:08Z", "2026-11-28T01:46:09.5Z", int64(3600000), true, int64(1000), true,
		uint8(1), "", "", string(mcp.ResultComplete), `{"content":[{"type":"text","text":"hi"}],"isError":false}`, true)
	f.Add(uint8(0), "T\xff", "working", "half\u2028way", "c", "u", int64(0), false, int64(0), false,
		uint8(0), "", "", string(mcp.ResultTask), ``, false)
	f.Add(uint8(2), "T3", "working", "", "c", "u", int64(-5), true, int64(0), true,
		uint8(2), mcp.MetaModelImmediateResponse, `"started"`, "", ``, false)
	f.Add(uint8(3), "T4", "failed", "it \"broke\"", "c", "u", int64(1), true, int64(7), false,
		uint8(2), "k\x80", ` { "a" : [1, 2] } `, "x", ``, false)
	f.Add(uint8(1), "T5", "completed", "", "c", "u", int64(1), true, int64(1), true,
		uint8(2), "k", `{"a":1,"a":2}`, string(mcp.ResultComplete), "{\n \"a\" : 1 }", true)
	f.Add(uint8(1), "T6", "completed", "", "c", "u", int64(1), true, int64(1), true,
		uint8(0), "", "", string(mcp.ResultComplete), `{"a":1,"a":2}`, true)
	f.Add(uint8(1), "T7", "completed", "", "c", "u", int64(1), true, int64(1), true,
		uint8(0), "", "", string(mcp.ResultComplete), `{"a":`, true)
	s := New(mcp.Implementation{Name: "fuzz \u00e9", Version: "1"}, nil)
	f.Fuzz(func(t *testing.T, kind uint8, id, status, message, created, updated string, ttl int64, hasTTL bool, poll int64, hasPoll bool,
		metaMode uint8, metaKey, metaValue, resultType, taskResult string, hasResult bool) {
		base := mcp.Result{ResultType: mcp.ResultType(resultType)}
		switch metaMode % 3 {
		case 1:
			base.Meta = mcp.Meta{mcp.MetaServerInfo: s.serverInfo}
		case 2:
			base.Meta = mcp.Meta{metaKey: stdjson.RawMessage(metaValue)}
		}
		millis := func(v int64, has bool) *int64 {
			if !has {
				return nil
			}
			return &v
		}
		ext := mcp.ExtTask{TaskID: id, Status: mcp.TaskStatus(status), StatusMessage: message, CreatedAt: created, LastUpdatedAt: updated,
			TTLMs: millis(ttl, hasTTL), PollIntervalMs: millis(poll, hasPoll)}
		legacy := mcp.Task{TaskID: id, Status: mcp.TaskStatus(status), StatusMessage: message, CreatedAt: created, LastUpdatedAt: updated,
			TTL: millis(ttl, hasTTL), PollInterval: millis(poll, hasPoll)}
		var res any
		switch kind % 4 {
		case 0:
			res = &mcp.ExtCreateTaskResult{Result: base, ExtTask: ext}
		case 1:
			get := &mcp.ExtGetTaskResult{Result: base, DetailedTask: mcp.DetailedTask{ExtTask: ext}}
			if hasResult {
				get.TaskResult = stdjson.RawMessage(taskResult)
			}
			res = get
		case 2:
			res = &mcp.CreateTaskResult{Result: base, Task: legacy}
		case 3:
			res = &mcp.GetTaskResult{Result: base, Task: legacy}
		}
		want, werr := json.Marshal(res)
		enc, ok := s.encodeTaskResult(res)
		emptyRaw := (metaMode%3 == 2 && metaValue == "") || (kind%4 == 1 && hasResult && taskResult == "")
		switch {
		case ok && werr != nil:
			t.Fatalf("encoded by hand %s, but json.Marshal fails: %v", enc.Text(), werr)
		case ok && !bytes.Equal(enc.Text(), want):
			t.Fatalf("by hand:\n%s\njson.Marshal:\n%s", enc.Text(), want)
		case !ok && werr == nil && !emptyRaw:
			t.Fatalf("left to json.Marshal, which encodes it: %s", want)
		}
	})
}

// BenchmarkEncodeTaskResult times a completed extension task's tasks/get
// result, as the server stamps it, encoded by hand and by json.Marshal.
func BenchmarkEncodeTaskResult(b *testing.B) {
	s := New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
	ttl, poll := int64(3_600_000), int64(1000)
	res := &mcp.ExtGetTaskResult{
		Result: mcp.Result{ResultType: mcp.ResultComplete, Meta: mcp.Meta{mcp.MetaServerInfo: s.serverInfo}},
		DetailedTask: mcp.DetailedTask{
			ExtTask: mcp.ExtTask{TaskID: "QZJ5N2XKJ4WQ7V4TQKXH6ZP3AM", Status: mcp.TaskCompleted,
				CreatedAt: "2026-11-28T01:46:08.123Z", LastUpdatedAt: "2026-11-28T01:46:08.124Z", TTLMs: &ttl, PollIntervalMs: &poll},
			TaskResult: stdjson.RawMessage(`{"content":[{"type":"text","text":"hello, world"}],"structuredContent":{"echo":"hello, world"},"isError":false}`),
		},
	}
	b.Run("by=hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := s.encodeTaskResult(res); !ok {
				b.Fatal("left to json.Marshal")
			}
		}
	})
	b.Run("by=json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
