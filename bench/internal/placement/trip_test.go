package placement

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestATripWritesInsideItsPlaceAndIsMeasured(t *testing.T) {
	ctx := t.Context()
	written := map[string]func(*Placement) (string, error){
		"redis": func(p *Placement) (string, error) {
			client, err := p.redisClient()
			if err != nil {
				return "", err
			}
			defer client.Close()
			return client.Get(ctx, "{"+p.Scope+"}:floor-task").Result()
		},
		"postgres": func(p *Placement) (string, error) {
			conn, err := p.postgresConn(ctx)
			if err != nil {
				return "", err
			}
			defer conn.Close(ctx)
			var record string
			err = conn.QueryRow(ctx, `SELECT record FROM `+pgx.Identifier{p.Scope, "floor"}.Sanitize()+` WHERE id = 'task'`).Scan(&record)
			return record, err
		},
	}
	for kind, read := range written {
		t.Run(kind, func(t *testing.T) {
			p := place(t, kind)
			trip, err := p.OpenTrip(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cost, err := trip.Measure(ctx, 0, 50*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if cost.Trips < 1 || cost.CPUPerTrip <= 0 {
				t.Errorf("Measure = %+v, want trips made and CPU spent on them", cost)
			}
			if err := trip.Close(); err != nil {
				t.Error(err)
			}
			if got, err := read(p); err != nil || got != tripRecord {
				t.Fatalf("after the trips the place holds %d bytes (%v), want the %d-byte record", len(got), err, len(tripRecord))
			}
			if err := p.Remove(ctx); err != nil {
				t.Fatal(err)
			}
			if got, err := read(p); err == nil {
				t.Errorf("Remove left the trip's record (%d bytes) behind", len(got))
			}
		})
	}
	for _, kind := range []string{"memory", "sqlite"} {
		if _, err := place(t, kind).OpenTrip(ctx); err == nil {
			t.Errorf("OpenTrip on the %s store, which runs inside the server, made a trip", kind)
		}
	}
}

// BenchmarkStoreRoundTrip measures Trip (the floor under a durable task's
// life) with the benchmark's own loop: cpu-µs/op is user and system time of
// the whole process over the loop.
//
//	go test ./internal/placement -run '^$' -bench StoreRoundTrip -count 3
func BenchmarkStoreRoundTrip(b *testing.B) {
	for _, kind := range []string{"redis", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			p, err := New(b.Context(), kind, "")
			if err != nil {
				b.Skip(err) // the placement tests fail in CI without the service
			}
			b.Cleanup(func() { p.Remove(context.Background()) })
			trip, err := p.OpenTrip(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			defer trip.Close()
			if _, err := trip.Measure(b.Context(), 0, 0); err != nil { // loads scripts and plans
				b.Fatal(err)
			}
			before, err := ProcessCPU()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := trip.Make(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			after, err := ProcessCPU()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(after-before)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
		})
	}
}
