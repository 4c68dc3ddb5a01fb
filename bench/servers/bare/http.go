package main

import (
	"errors"
	"io"
	"net/http"
)

// Streamable HTTP header names.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

// httpHandler serves Streamable HTTP for legacy sessions, answering with JSON.
type httpHandler struct {
	sessions *sessionTable
}

// newHTTPHandler returns a handler with no sessions.
func newHTTPHandler() *httpHandler {
	return &httpHandler{sessions: newSessionTable()}
}

// ServeHTTP answers POST (messages) and DELETE (end a session).
func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodDelete:
		if !h.sessions.remove(r.Header.Get(headerSession)) {
			http.Error(w, "no such session; it may have ended already", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "this server answers POST and DELETE only; it offers no server-to-client stream", http.StatusMethodNotAllowed)
	}
}

// post handles one JSON-RPC message.
func (h *httpHandler) post(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMessage))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "the message is larger than this server accepts", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the request body failed: "+err.Error(), http.StatusBadRequest)
		return
	}
	m, bad := decode(data)
	if bad != nil {
		writeJSON(w, http.StatusBadRequest, bad)
		return
	}

	if m.Method == "initialize" && !m.isNotification() {
		version, bad := initializeVersion(m)
		if bad != nil {
			writeJSON(w, http.StatusBadRequest, bad)
			return
		}
		w.Header().Set(headerSession, h.sessions.create(version))
		writeJSON(w, http.StatusOK, initializeResponse(m.ID, version))
		return
	}

	id := r.Header.Get(headerSession)
	if id == "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(m.ID, codeInvalidRequest, "the "+headerSession+" header is missing; send initialize first"))
		return
	}
	version, ok := h.sessions.version(id)
	if !ok {
		writeJSON(w, http.StatusNotFound, errorResponse(m.ID, codeInvalidRequest, "no such session; start a new one with initialize"))
		return
	}
	if got := r.Header.Get(headerProtocol); got != "" && got != version {
		writeJSON(w, http.StatusBadRequest, errorResponse(m.ID, codeInvalidRequest, headerProtocol+" "+got+" does not match the session's version "+version))
		return
	}
	answer := handle(m)
	if answer == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

// writeJSON sends r as an application/json body with status.
func writeJSON(w http.ResponseWriter, status int, r *response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(encode(r))
}
