package mcp

// PaginatedParams are the params of a list request: an optional opaque cursor
// from a previous result's NextCursor.
type PaginatedParams struct {
	RequestParams
	Cursor string `json:"cursor,omitempty"`
}

// PaginatedResult is the part every list result shares. The list result types
// carry NextCursor directly; decoding any of them into a PaginatedResult reads
// just the cursor, for code that pages through lists generically. An empty
// NextCursor means the list is complete.
type PaginatedResult struct {
	Result
	NextCursor string `json:"nextCursor,omitempty"`
}
