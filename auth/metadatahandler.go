package auth

import (
	"net/http"

	"github.com/go-json-experiment/json"
)

// MetadataHandler returns a handler that serves the protected resource
// metadata document to GET and HEAD requests, with CORS open to any origin
// so that browser-based clients can read it. Mount it at the root
// ("/.well-known/oauth-protected-resource") and path-suffixed
// ([ResourceServer.MetadataURL]) paths, or use [ResourceServer.Handler],
// which does.
func (rs *ResourceServer) MetadataHandler() http.Handler {
	body, err := json.Marshal(rs.metadata)
	if err != nil {
		// The document is plain strings and string slices.
		panic("auth: marshal protected resource metadata: " + err.Error())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "protected resource metadata is read with GET", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=300")
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}
