package cli

import "iter"

// collect reads every page of a listing into a slice (empty, never nil, so
// JSON output shows []), or fails with a protocol error naming what was
// being listed.
func collect[T any](items iter.Seq2[T, error], what string) ([]T, error) {
	all := []T{}
	for item, err := range items {
		if err != nil {
			return nil, protocolError("listing "+what, err)
		}
		all = append(all, item)
	}
	return all, nil
}
