package jsonrpc

// table maps ID texts to the calls or requests in progress under them. It
// holds one entry inline and makes a map only for more, dropping it once it
// is empty: one request at a time allocates nothing, and an idle connection
// holds no map. The zero value is empty. It is guarded by Conn.mu.
type table[V any] struct {
	has    bool   // one holds an entry
	oneKey string // the key of the inline entry
	one    V
	more   map[string]V // the other entries; nil while there are none
}

// get returns the entry under key.
func (t *table[V]) get(key string) (V, bool) {
	if t.has && t.oneKey == key {
		return t.one, true
	}
	v, ok := t.more[key]
	return v, ok
}

// put stores v under key, which must not be in the table.
func (t *table[V]) put(key string, v V) {
	if !t.has {
		t.has, t.oneKey, t.one = true, key, v
		return
	}
	if t.more == nil {
		t.more = make(map[string]V)
	}
	t.more[key] = v
}

// remove deletes the entry under key, if any.
func (t *table[V]) remove(key string) {
	if t.has && t.oneKey == key {
		var zero V
		t.has, t.oneKey, t.one = false, "", zero
		return
	}
	delete(t.more, key)
	if len(t.more) == 0 {
		t.more = nil
	}
}

// len returns the number of entries.
func (t *table[V]) len() int {
	n := len(t.more)
	if t.has {
		n++
	}
	return n
}

// takeAll removes every entry and returns them, in no particular order.
func (t *table[V]) takeAll() []V {
	all := make([]V, 0, t.len())
	if t.has {
		all = append(all, t.one)
	}
	for _, v := range t.more {
		all = append(all, v)
	}
	*t = table[V]{}
	return all
}
