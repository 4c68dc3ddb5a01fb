package store

import (
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/taskstore/postgres"
	redisstore "github.com/weftmcp/weft/taskstore/redis"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// Sessions returns the session store beside the task store: the servers
// sharing an SQLite file, a Redis or a PostgreSQL database share their
// legacy sessions as they share their tasks. It is nil for the memory
// store, whose sessions live in the one process.
func (s *Store) Sessions() sessions.Store {
	switch st := s.Store.(type) {
	case *sqlite.Store:
		return st.Sessions()
	case *redisstore.Store:
		return st.Sessions()
	case *postgres.Store:
		return st.Sessions()
	}
	return nil
}

// Messages returns the message log beside the task store, through which
// the servers sharing sessions route their messages (see
// streamable.HandlerOptions.Messages); nil for the memory store.
func (s *Store) Messages() sessions.MessageLog {
	switch st := s.Store.(type) {
	case *sqlite.Store:
		return st.Messages()
	case *redisstore.Store:
		return st.Messages()
	case *postgres.Store:
		return st.Messages()
	}
	return nil
}
