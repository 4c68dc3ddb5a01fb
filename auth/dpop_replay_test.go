package auth

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A proof is refused a second time while it is remembered, by its key and
// jti (another key's proof of the same jti is another proof), and taken
// again once it may be forgotten.
func TestDPoPReplaysRefuseAProofTwiceWhileRemembered(t *testing.T) {
	d := newDPoPReplays(10*time.Minute, 100, 10)
	now := time.Now()
	if err := d.remember("key-a", "jti-1", now); err != nil {
		t.Fatal(err)
	}
	if err := d.remember("key-a", "jti-1", now.Add(time.Minute)); err == nil || !strings.Contains(err.Error(), "used before") {
		t.Errorf("the same proof again: %v; want it refused as used before", err)
	}
	if err := d.remember("key-b", "jti-1", now.Add(time.Minute)); err != nil {
		t.Errorf("another key's proof of the same jti: %v; want it accepted", err)
	}
	if err := d.remember("key-a", "jti-1", now.Add(10*time.Minute)); err != nil {
		t.Errorf("the proof once it may be forgotten: %v; want it accepted", err)
	}
}

// However many proofs keys make, the memory holds at most its capacity,
// the proofs forgotten first being the oldest of the keys that made the
// most: a key's flood refuses no other key's proof and makes no other
// key's proof replayable.
func TestDPoPReplaysAFloodWeakensOnlyTheFloodersOwnProofs(t *testing.T) {
	const capacity, perKey = 100, 10
	d := newDPoPReplays(10*time.Minute, capacity, perKey)
	now := time.Now()
	if err := d.remember("victim", "v-1", now); err != nil {
		t.Fatal(err)
	}
	for k := range 30 { // three times the capacity, from many keys
		for j := range 2 * perKey {
			if err := d.remember(fmt.Sprintf("flooder-%d", k), fmt.Sprintf("f-%d", j), now); err != nil {
				t.Fatalf("a flooder's fresh proof was refused: %v", err)
			}
		}
	}
	if d.total > capacity {
		t.Errorf("%d proofs remembered, more than the capacity of %d", d.total, capacity)
	}
	var held int
	for _, k := range d.byKey {
		held += len(k.queue)
		if len(k.queue) > perKey || len(k.seen) != len(k.queue) {
			t.Errorf("a key holds %d proofs (%d in its set), want at most %d and the same in both", len(k.queue), len(k.seen), perKey)
		}
	}
	if held != d.total {
		t.Errorf("the keys hold %d proofs, the count says %d", held, d.total)
	}
	if err := d.remember("victim", "v-1", now); err == nil {
		t.Error("the victim's proof was forgotten in the flood and could be replayed")
	}
	if err := d.remember("victim", "v-2", now); err != nil {
		t.Errorf("the victim's fresh proof after the flood: %v; want it accepted", err)
	}
	if err := d.remember("flooder-29", fmt.Sprintf("f-%d", 2*perKey-1), now); err == nil {
		t.Error("a flooder's newest proof was forgotten")
	}
	if err := d.remember("flooder-29", "f-0", now); err != nil {
		t.Errorf("a flooder's oldest proof, beyond its key's share, is still remembered: %v", err)
	}
}
