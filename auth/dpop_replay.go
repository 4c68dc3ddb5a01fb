package auth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// Bounds of the proofs remembered against replay.
const (
	// maxDPoPReplayEntries bounds the proofs remembered in all.
	maxDPoPReplayEntries = 100_000
	// maxDPoPProofsPerKey bounds the proofs of one key remembered: 17 a
	// second over the ten minutes a proof is remembered at the default
	// five-minute lifetime.
	maxDPoPProofsPerKey = 10_000
)

// dpopReplays remembers the proofs a resource server accepted, by the key
// that signed them and a hash of their jti, for as long as their iat could
// still pass, so that none is accepted twice (RFC 9449 section 11.1).
//
// Memory is bounded whatever clients send: a jti is kept as its SHA-256,
// and past the bounds the proofs forgotten first are the oldest of the key
// that made the most. A key that makes more proofs than its share so
// weakens only its own replay protection (its oldest proofs could be
// replayed while their iat stays within the lifetime); no client is
// refused for another's flood. The checker remembers a proof only once its
// key is known to be the one the token is bound to, so the keys are those
// of tokens the authorization server issued. Before, one holder of any
// token could fill a single pool of jti strings of any length and have
// every other client's proofs refused for ten minutes.
type dpopReplays struct {
	keep     time.Duration // how long a proof is remembered
	capacity int           // proofs remembered in all
	perKey   int           // proofs of one key remembered

	mu    sync.Mutex
	byKey map[string]*keyProofs // by key thumbprint
	total int
}

// keyProofs are the proofs of one key remembered, oldest first.
type keyProofs struct {
	seen  map[[sha256.Size]byte]struct{}
	queue []rememberedProof
}

// rememberedProof is a remembered proof's jti hash and when it may be
// forgotten.
type rememberedProof struct {
	jti   [sha256.Size]byte
	until time.Time
}

// newDPoPReplays returns an empty memory of proofs kept for keep each.
func newDPoPReplays(keep time.Duration, capacity, perKey int) *dpopReplays {
	return &dpopReplays{keep: keep, capacity: capacity, perKey: perKey, byKey: map[string]*keyProofs{}}
}

// remember records the proof jti signed with the key of thumbprint thumb,
// refusing one remembered already.
func (d *dpopReplays) remember(thumb, jti string, now time.Time) error {
	id := sha256.Sum256([]byte(jti))
	d.mu.Lock()
	defer d.mu.Unlock()
	k := d.byKey[thumb]
	if k == nil {
		k = &keyProofs{seen: map[[sha256.Size]byte]struct{}{}}
		d.byKey[thumb] = k
	}
	d.total -= k.expire(now)
	if _, replayed := k.seen[id]; replayed {
		return proofErrorf("its jti was used before; send a fresh proof with every request")
	}
	if len(k.queue) >= d.perKey {
		d.total -= k.drop(1)
	}
	if d.total >= d.capacity {
		d.shed(now)
		d.byKey[thumb] = k // shed drops the keys left with no proofs
	}
	k.seen[id] = struct{}{}
	k.queue = append(k.queue, rememberedProof{jti: id, until: now.Add(d.keep)})
	d.total++
	return nil
}

// shed makes room once every proof is remembered: it forgets the proofs
// that may be forgotten, and if none could, an eighth of the proofs of the
// key with the most.
func (d *dpopReplays) shed(now time.Time) {
	var heaviest *keyProofs
	for thumb, k := range d.byKey {
		d.total -= k.expire(now)
		if len(k.queue) == 0 {
			delete(d.byKey, thumb)
			continue
		}
		if heaviest == nil || len(k.queue) > len(heaviest.queue) {
			heaviest = k
		}
	}
	if d.total >= d.capacity && heaviest != nil {
		d.total -= heaviest.drop(max(len(heaviest.queue)/8, 1))
	}
}

// expire forgets the key's proofs that may be forgotten at now and returns
// how many.
func (k *keyProofs) expire(now time.Time) int {
	n := 0
	for n < len(k.queue) && !now.Before(k.queue[n].until) {
		n++
	}
	return k.drop(n)
}

// drop forgets the key's n oldest proofs and returns n.
func (k *keyProofs) drop(n int) int {
	for _, p := range k.queue[:n] {
		delete(k.seen, p.jti)
	}
	k.queue = k.queue[n:]
	return n
}
