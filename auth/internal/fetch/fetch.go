// Package fetch reads the JSON documents of OAuth (metadata, JWK sets,
// registration and token responses) with a size bound and strict decoding,
// and checks the URLs they name.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
)

// MaxBytes bounds every metadata, JWKS, registration and token
// response this module reads.
const MaxBytes = 1 << 20

// ErrNotFound marks a metadata document that is not served at a URL (any 4xx
// answer), so that discovery may try the next candidate.
var ErrNotFound = errors.New("metadata document not found")

// JSON GETs url with an Accept of application/json and decodes the body
// into v, which it reads strictly: member names match case-sensitively and a
// repeated member is an error. A 4xx answer wraps [ErrNotFound]; other
// failures say what went wrong.
func JSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("build request for %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return fmt.Errorf("%w at %s (HTTP %d)", ErrNotFound, u, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch %s: HTTP %d; the server may be down, try again later", u, resp.StatusCode)
	}
	return Decode(resp, v)
}

// Decode decodes a JSON response body of at most
// [MaxBytes] into v. It checks the media type when one is given.
func Decode(resp *http.Response, v any) error {
	where := resp.Request.URL.Redacted()
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return fmt.Errorf("response from %s has Content-Type %q, want application/json", where, ct)
		}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes+1))
	if err != nil {
		return fmt.Errorf("read response from %s: %w", where, err)
	}
	if len(body) > MaxBytes {
		return fmt.Errorf("response from %s exceeds %d bytes", where, MaxBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode JSON from %s: %w", where, err)
	}
	return nil
}
