package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/weftmcp/weft/bench/internal/placement"
)

// floorTripsPerLife is how many store round trips a durable task's life
// cannot do without when it is alone in flight: the write of its creation
// (where the concurrency quota is enforced) and the write of its outcome
// (docs/decisions.md, "One store write for a quick task: not built"). With
// many in flight the writes of different tasks share trips, so no floor is
// drawn there.
const floorTripsPerLife = 2

// tripRun is the bare client's round trip to one store, measured in one
// round (placement.Trip).
type tripRun struct {
	Round int
	Store string
	Cost  placement.TripCost
}

// tripStores are the stores whose round trips are measured: those the
// server reaches over the network.
var tripStores = []string{"redis", "postgres"}

// measureTripFloors measures, in this process, the bare client's round
// trip to each of stores that runs as a server of its own, for warmup
// then window, each in a place of its own removed afterwards.
func measureTripFloors(ctx context.Context, stores []string, warmup, window time.Duration, round int) ([]tripRun, error) {
	var runs []tripRun
	for _, store := range tripStores {
		if !slices.Contains(stores, store) {
			continue
		}
		cost, err := measureTrip(ctx, store, warmup, window)
		if err != nil {
			return nil, fmt.Errorf("the bare round trip to %s: %w", store, err)
		}
		runs = append(runs, tripRun{Round: round, Store: store, Cost: cost})
	}
	return runs, nil
}

// measureTrip measures one store's bare round trip in a place of its own.
func measureTrip(ctx context.Context, store string, warmup, window time.Duration) (cost placement.TripCost, err error) {
	p, err := placement.New(ctx, store, "")
	if err != nil {
		return placement.TripCost{}, err
	}
	defer func() { err = errors.Join(err, p.Remove(context.WithoutCancel(ctx))) }()
	trip, err := p.OpenTrip(ctx)
	if err != nil {
		return placement.TripCost{}, err
	}
	defer func() { err = errors.Join(err, trip.Close()) }()
	return trip.Measure(ctx, warmup, window)
}

// tripCPU is the summary over rounds of the bare round trip's CPU to store.
func (r *results) tripCPU(store string) summary {
	var xs []float64
	for _, t := range r.Trips {
		if t.Store == store {
			xs = append(xs, float64(t.Cost.CPUPerTrip))
		}
	}
	return summarize(xs)
}

// floorVsMemory is the summary over rounds of the floor under a durable
// life of row k (the memory store's life in its cell and floorTripsPerLife
// bare round trips to k's store, measured in the same round) divided by the
// memory store's life. Rounds missing either are left out; so is every
// round of a row with more than one in flight, which has no floor.
func (r *results) floorVsMemory(k rowKey) summary {
	if k.Cell.InFlight != 1 {
		return summary{}
	}
	memory := k
	memory.Store = "memory"
	lives := r.byRound(memory)
	var xs []float64
	for _, t := range r.Trips {
		life, ok := lives[t.Round]
		if t.Store != k.Store || !ok || life.CPUPerRequest <= 0 {
			continue
		}
		floor := life.CPUPerRequest + floorTripsPerLife*t.Cost.CPUPerTrip
		xs = append(xs, float64(floor)/float64(life.CPUPerRequest))
	}
	return summarize(xs)
}

// floorNote is what a durable store's CPU target adds about its floor:
// empty when none was measured, and saying so when the floor alone is over
// the limit the target sets.
func floorNote(r *results, k rowKey, limit float64) string {
	floor := r.floorVsMemory(k)
	if floor.N == 0 {
		return ""
	}
	note := fmt.Sprintf("; its floor, the memory store's life and %d bare round trips at %s each, is %s",
		floorTripsPerLife, r.tripCPU(k.Store).format(formatDuration), floor.format(formatTimes))
	if floor.Median > limit {
		note += fmt.Sprintf(", above the %s the target allows", formatTimes(limit))
	}
	return note
}
