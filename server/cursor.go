package server

import (
	"encoding/binary"

	"github.com/weftmcp/weft/jsonrpc"
)

// Pagination cursors are sealed tokens naming the list they belong to and the
// sequence number of the last item already returned (see registry.page). The
// client cannot forge or alter one, nor replay a tools/list cursor on
// prompts/list; anything else it sends as a cursor is rejected with -32602.

// encodeCursor returns the cursor that continues list after sequence number seq.
func (s *Server) encodeCursor(list string, seq uint64) string {
	payload := binary.AppendUvarint(make([]byte, 0, len(list)+binary.MaxVarintLen64), seq)
	return s.cursors.seal(append(payload, list...))
}

// decodeCursor returns the sequence number a cursor of list continues after;
// no cursor means the start (the server never issues an empty one).
func (s *Server) decodeCursor(list, cursor string) (uint64, error) {
	if cursor == "" {
		return 0, nil
	}
	payload, ok := s.cursors.open(cursor)
	if ok {
		seq, n := binary.Uvarint(payload)
		if n > 0 && string(payload[n:]) == list {
			return seq, nil
		}
	}
	return 0, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
		"invalid cursor %q: it was not issued by this server for %s; list again without a cursor", truncateText(cursor, 64), list)
}
