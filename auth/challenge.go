package auth

import (
	"net/http"
	"strings"
)

// Challenge is one authentication challenge of a WWW-Authenticate header
// (RFC 9110 section 11.6.1), such as the RFC 6750 Bearer challenge an MCP
// server sends with 401 and 403 responses.
type Challenge struct {
	// Scheme is the authentication scheme as sent, for example "Bearer".
	Scheme string
	// Params holds the auth-params by lower-cased name, with quoted strings
	// unquoted. When a name repeats, the first value is kept.
	Params map[string]string
}

// Parameter names of the Bearer challenge that MCP uses (RFC 6750, RFC 9728).
const (
	ParamResourceMetadata = "resource_metadata"
	ParamScope            = "scope"
	ParamError            = "error"
	ParamErrorDescription = "error_description"
)

// Error codes of the Bearer challenge (RFC 6750 section 3.1), and of the
// DPoP challenge (RFC 9449 section 7.1).
const (
	ErrorInvalidToken      = "invalid_token"
	ErrorInsufficientScope = "insufficient_scope"
	ErrorInvalidDPoPProof  = "invalid_dpop_proof"
	ErrorUseDPoPNonce      = "use_dpop_nonce"
)

// BearerChallenge returns the first Bearer challenge of the WWW-Authenticate
// fields in h, and whether there was one.
func BearerChallenge(h http.Header) (Challenge, bool) {
	for _, c := range ParseChallenges(h.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return c, true
		}
	}
	return Challenge{}, false
}

// ParseChallenges parses WWW-Authenticate field values into their
// challenges. It is lenient: text it cannot read is skipped rather than
// failing the whole header, and token68 credentials are ignored.
func ParseChallenges(values []string) []Challenge {
	p := challengeParser{s: strings.Join(values, ", ")}
	var out []Challenge
	for {
		p.skip(" \t,")
		if p.done() {
			return out
		}
		scheme := p.token()
		if scheme == "" {
			p.i++ // not a token character: skip it
			continue
		}
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		p.params(c.Params)
		out = append(out, c)
	}
}

type challengeParser struct {
	s string
	i int
}

func (p *challengeParser) done() bool { return p.i >= len(p.s) }

func (p *challengeParser) skip(chars string) {
	for p.i < len(p.s) && strings.IndexByte(chars, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *challengeParser) token() string {
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// params reads auth-params until the next challenge's scheme or the end.
func (p *challengeParser) params(into map[string]string) {
	for {
		save := p.i
		p.skip(" \t,")
		name := p.token()
		if name == "" {
			// token68 characters such as '/' or a stray '=': skip to the
			// next separator.
			if p.done() {
				return
			}
			for !p.done() && p.s[p.i] != ',' {
				p.i++
			}
			continue
		}
		p.skip(" \t")
		if p.done() || p.s[p.i] != '=' {
			p.i = save // the name was the next challenge's scheme
			return
		}
		p.i++
		if !p.done() && p.s[p.i] == '=' { // token68 padding, e.g. "abc=="
			for !p.done() && p.s[p.i] != ',' {
				p.i++
			}
			continue
		}
		p.skip(" \t")
		var value string
		if !p.done() && p.s[p.i] == '"' {
			value = p.quoted()
		} else {
			start := p.i
			for !p.done() && p.s[p.i] != ',' && p.s[p.i] != ' ' && p.s[p.i] != '\t' {
				p.i++
			}
			value = p.s[start:p.i]
		}
		key := strings.ToLower(name)
		if _, dup := into[key]; !dup {
			into[key] = value
		}
	}
}

// quoted reads a quoted-string starting at the opening quote.
func (p *challengeParser) quoted() string {
	var b strings.Builder
	p.i++ // opening quote
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String() // unterminated: take what there is
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// formatBearer renders a Bearer challenge (see formatChallenge).
func formatBearer(pairs ...string) string { return formatChallenge("Bearer", pairs...) }

// formatChallenge renders a challenge of scheme with the given name/value
// pairs in order, skipping empty values. Values are sanitised to the
// characters RFC 6750 allows in its parameters so that no input can break
// the header.
func formatChallenge(scheme string, pairs ...string) string {
	var b strings.Builder
	b.WriteString(scheme)
	first := true
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
		b.WriteString(pairs[i])
		b.WriteString(`="`)
		for _, r := range pairs[i+1] {
			// %x20-21 / %x23-5B / %x5D-7E: printable ASCII but '"' and '\'.
			if r >= 0x20 && r <= 0x7e && r != '"' && r != '\\' {
				b.WriteRune(r)
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}
