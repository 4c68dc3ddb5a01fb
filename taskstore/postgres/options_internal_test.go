package postgres

import "testing"

// TestPoolConfigMaxConns: the pool opens up to DefaultMaxConns connections
// unless the connection string says otherwise, in either of its forms.
func TestPoolConfigMaxConns(t *testing.T) {
	for connString, want := range map[string]int32{
		"postgres://weft@127.0.0.1:5432/tasks":                  DefaultMaxConns,
		"host=127.0.0.1 user=weft dbname=tasks":                 DefaultMaxConns,
		"postgres://weft@127.0.0.1:5432/tasks?pool_max_conns=3": 3,
		"host=127.0.0.1 user=weft pool_max_conns=5":             5,
	} {
		pc, _, err := poolConfig(connString, nil)
		if err != nil {
			t.Fatalf("%s: %v", connString, err)
		}
		if pc.MaxConns != want {
			t.Errorf("%s: at most %d connections, want %d", connString, pc.MaxConns, want)
		}
	}
}
