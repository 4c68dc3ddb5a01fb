package streamable

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// post is a decoded POST body.
type post struct {
	msgs     []jsonrpc.Message // the messages, a batch flattened
	batch    bool              // the body was a JSON array
	requests int               // how many of msgs are requests expecting a response
	// rejected holds the error responses to a batch's invalid elements,
	// which the handler answers itself (JSON-RPC 2.0 §6). An invalid
	// response stays in msgs, as its *jsonrpc.DecodeError: the connection
	// fails the call it names.
	rejected []jsonrpc.Message
	// invalid is the body's only message when it is a malformed response
	// naming a call: it is in msgs too, so that the session's connection
	// fails that call, and the POST is answered 400.
	invalid *jsonrpc.DecodeError
	// route holds what the first message's params say about routing; only
	// meaningful for a body of one request or notification.
	route routeParams
	one   [1]jsonrpc.Message // msgs of a body that is not a batch, without an allocation of its own
}

// single returns the body's only message as a request (call or
// notification), or nil when the body is a batch or a response.
func (p *post) single() *jsonrpc.Request {
	if p.batch || len(p.msgs) != 1 {
		return nil
	}
	req, _ := p.msgs[0].(*jsonrpc.Request)
	return req
}

// routeParams are the members of a request's params that HTTP routing and
// header validation look at. Absent members are reported as such, and
// members of the wrong type count as absent: the server reports those.
type routeParams struct {
	version    string         // params._meta["io.modelcontextprotocol/protocolVersion"]
	hasVersion bool           //
	name       string         // params.name, params.uri or params.taskId: see mcp.NameParam
	hasName    bool           //
	arguments  jsontext.Value // params.arguments (tools/call)
}

// nameMember is mcp.NameParam, for client_session.go until it calls that
// directly; delete it then.
func nameMember(method string) string { return mcp.NameParam(method) }

// readPost reads and decodes a POST body of at most limit bytes. On failure
// it has already answered the request (413, 400 with -32700 or -32600). A
// body that is one malformed response naming a call is not a failure (see
// post.invalid).
func readPost(w http.ResponseWriter, r *http.Request, limit int64) (*post, bool) {
	body, err := readBody(w, r, limit)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			refuse(w, http.StatusRequestEntityTooLarge, "the request body is larger than %d bytes; send a smaller message", limit)
			return nil, false
		}
		refuse(w, http.StatusBadRequest, "reading the request body: %v", err)
		return nil, false
	}
	pd := postDecoders.Get().(*postDecoder)
	defer postDecoders.Put(pd)
	msg, route, err := pd.decode(body)
	if err != nil {
		var de *jsonrpc.DecodeError
		switch {
		case errors.As(err, &de) && de.IsResponse && de.ID.IsValid() && !de.ID.IsNull():
			p := &post{invalid: de}
			p.one[0] = de
			p.msgs = p.one[:]
			return p, true
		case de != nil:
			writeError(w, http.StatusBadRequest, de.ID, de.Err)
		default:
			writeError(w, http.StatusBadRequest, jsonrpc.NullID, jsonrpc.NewError(jsonrpc.CodeParseError, "%v", err))
		}
		return nil, false
	}
	p := &post{}
	if b, ok := msg.(jsonrpc.Batch); ok {
		p.batch = true
		p.msgs = make([]jsonrpc.Message, 0, len(b))
		for _, m := range b {
			if de, ok := m.(*jsonrpc.DecodeError); ok && !de.IsResponse {
				p.rejected = append(p.rejected, &jsonrpc.Response{ID: de.ID, Error: de.Err})
				continue
			}
			p.msgs = append(p.msgs, m)
		}
	} else {
		p.one[0] = msg
		p.msgs = p.one[:]
	}
	for _, m := range p.msgs {
		if req, ok := m.(*jsonrpc.Request); ok && !req.IsNotification() {
			p.requests++
		}
	}
	if req := p.single(); req != nil {
		p.route = route.of(req.Method)
	}
	return p, true
}

// postDecoder decodes POST bodies, picking the members of a request's
// params that routing needs (routeParams) out of them in the same pass
// (jsonrpc.Decoder.ParamsMember). Decoding once instead of decoding, then
// scanning params again, saved 2,000 of the 119,500 instructions the
// server spent on a tools/call (callgrind; docs/decisions.md, "Plain-call
// cost (issue 19)").
type postDecoder struct {
	dec   jsonrpc.Decoder
	found foundParams // in the params read last
}

// foundParams are the routing members of a request's params, found before
// its method may be known (members come in any order): each member that
// names something, for mcp.NameParam to choose from.
type foundParams struct {
	version    string
	hasVersion bool
	names      [3]string // params.name, params.uri, params.taskId
	hasNames   [3]bool
	arguments  jsontext.Value
}

// nameMembers are the members mcp.NameParam names, in foundParams.names order.
var nameMembers = [3]string{"name", "uri", "taskId"}

// of returns the routing members of method's params.
func (f *foundParams) of(method string) routeParams {
	rp := routeParams{version: f.version, hasVersion: f.hasVersion}
	key := mcp.NameParam(method)
	for i, n := range nameMembers {
		if n == key {
			rp.name, rp.hasName = f.names[i], f.hasNames[i]
		}
	}
	if method == mcp.MethodToolsCall {
		rp.arguments = f.arguments
	}
	return rp
}

// postDecoders pools postDecoders, whose jsonrpc.Decoder keeps its working
// memory from one body to the next.
var postDecoders = sync.Pool{New: func() any {
	pd := new(postDecoder)
	pd.dec.ParamsMember = pd.found.member
	return pd
}}

// decode decodes one POST body and returns, with the message, the routing
// members of its params; those of a batch's elements are meaningless.
func (pd *postDecoder) decode(body []byte) (jsonrpc.Message, foundParams, error) {
	pd.found = foundParams{}
	msg, err := pd.dec.Decode(body)
	found := pd.found
	pd.found = foundParams{}
	pd.dec.Reset()
	return msg, found, err
}

// member reads one member of a request's params, named name, from dec,
// which reads in place (a jsonrpc.Decoder.ParamsMember). Members of the
// wrong type are skipped: the server reports them.
func (f *foundParams) member(dec *jsontext.Decoder, name []byte) error {
	switch string(name) {
	case "_meta":
		if dec.PeekKind() == '{' {
			return f.metaMembers(dec)
		}
	case "arguments":
		v, err := dec.ReadValue()
		f.arguments = v // a part of the input: dec reads it in place
		return err
	case "name", "uri", "taskId":
		if dec.PeekKind() == '"' {
			v, err := dec.ReadToken()
			if err != nil {
				return err
			}
			i := 0
			for nameMembers[i] != string(name) {
				i++
			}
			f.names[i], f.hasNames[i] = v.String(), true
			return nil
		}
	}
	return dec.SkipValue()
}

// metaMembers reads the _meta object of params for its protocol version.
func (f *foundParams) metaMembers(dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err != nil { // '{'
		return err
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		// name is valid until the next read or peek: compare it first.
		if name.String() != mcp.MetaProtocolVersion || dec.PeekKind() != '"' {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		v, err := dec.ReadToken()
		if err != nil {
			return err
		}
		f.version, f.hasVersion = v.String(), true
	}
	_, err := dec.ReadToken() // '}'
	return err
}

// readBody reads a request body of at most limit bytes, in one allocation
// when the client declared its length.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	if n := r.ContentLength; n >= 0 && n <= limit {
		buf := make([]byte, n)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(body)
}

// scanParams reads the routing members of a request's params without
// decoding the rest, for params that were not decoded here (a batch's,
// and the client's).
func scanParams(method string, params []byte) routeParams {
	var f foundParams
	if len(params) == 0 || params[0] != '{' {
		return f.of(method)
	}
	sc := scanners.Get().(*scanner)
	defer scanners.Put(sc)
	// Read in place (a bytes.Buffer), so values read are parts of params.
	// The params were checked when they were decoded, or built by this
	// process: duplicate names need no second check.
	sc.in = *bytes.NewBuffer(params)
	sc.dec.Reset(&sc.in, jsontext.AllowDuplicateNames(true))
	defer sc.forget()
	dec := &sc.dec
	if _, err := dec.ReadToken(); err != nil {
		return f.of(method)
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil || f.member(dec, []byte(name.String())) != nil {
			break
		}
	}
	return f.of(method)
}

// scanner is a reusable decoder for scanParams.
type scanner struct {
	in  bytes.Buffer
	dec jsontext.Decoder
}

// forget drops the scanner's hold on the params it read.
func (sc *scanner) forget() {
	sc.in = bytes.Buffer{}
	sc.dec.Reset(&sc.in)
}

// scanners pools scanners: a decoder is costly to set up for every request.
var scanners = sync.Pool{New: func() any { return new(scanner) }}

// isModern decides the era of a POST: a request whose params carry a modern
// protocol version in _meta is modern (an Mcp-Session-Id on it is ignored);
// so is a body without one that carries no session and is no initialize,
// when MCP-Protocol-Version names a modern version (the server then reports
// what is missing). Everything else belongs to a legacy session.
func isModern(r *http.Request, p *post) bool {
	if req := p.single(); req != nil {
		if p.route.hasVersion {
			return mcp.IsModern(p.route.version) || requestHeader(r, headerSessionID) == ""
		}
		if req.Method == mcp.MethodInitialize {
			return false
		}
	}
	if requestHeader(r, headerSessionID) != "" {
		return false
	}
	return mcp.IsModern(requestHeader(r, headerProtocolVersion))
}

// checkMedia checks a POST's Content-Type and Accept headers. On failure it
// has already answered (415 or 406).
func checkMedia(w http.ResponseWriter, r *http.Request) bool {
	if requestHeader(r, "Content-Type") == mediaJSON && requestHeader(r, "Accept") == mediaBoth && len(r.Header["Accept"]) == 1 {
		// What clients send: parsing it cost about 1,700 instructions and an
		// allocation per POST (callgrind, BenchmarkPlainCallVsBare).
		return true
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != mediaJSON {
		refuse(w, http.StatusUnsupportedMediaType,
			"Content-Type must be %s, not %q", mediaJSON, r.Header.Get("Content-Type"))
		return false
	}
	if !accepts(r, mediaJSON) || !accepts(r, mediaSSE) {
		refuse(w, http.StatusNotAcceptable,
			"Accept must list both %s and %s (it is %q)", mediaJSON, mediaSSE, strings.Join(r.Header.Values("Accept"), ", "))
		return false
	}
	return true
}

// mediaBoth is the Accept header clients send on a POST.
const mediaBoth = mediaJSON + ", " + mediaSSE

// requestHeader returns the first value of the request's header key, which
// must be in canonical form: unlike Header.Get it does not canonicalize key
// on each call, which cost a POST about 2,700 instructions more than a bare
// handler spends on header names (callgrind, BenchmarkPlainCallVsBare).
func requestHeader(r *http.Request, key string) string {
	if v := r.Header[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// accepts reports whether the request's Accept headers list media type mt
// explicitly or through a wildcard.
func accepts(r *http.Request, mt string) bool {
	major, _, _ := strings.Cut(mt, "/")
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			t, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(t)) {
			case mt, "*/*", major + "/*":
				return true
			}
		}
	}
	return false
}

// errBodyNotSingle describes a modern POST body that is not one request.
var errBodyNotSingle = fmt.Errorf("the body must be one JSON-RPC request or notification (no batch, no response) in protocol version %s and later", mcp.Version20260728)
