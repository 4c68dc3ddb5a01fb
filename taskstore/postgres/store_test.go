package postgres_test

import (
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/postgres"
)

func TestStoreContract(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) tasks.Store { return open(t, freshSchema(t)) })
}

// Two Stores on one schema stand for two instances sharing the database.
func TestStorePairContract(t *testing.T) {
	storetest.TestStorePair(t, func(t *testing.T) (tasks.Store, tasks.Store) {
		schema := freshSchema(t)
		return open(t, schema), open(t, schema)
	})
}

func TestExpiryBackstop(t *testing.T) {
	storetest.TestExpiryBackstop(t, func(t *testing.T, grace time.Duration) tasks.Store {
		return open(t, freshSchema(t), postgres.WithExpiryGrace(grace))
	})
}
