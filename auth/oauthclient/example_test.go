package oauthclient_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/authtest"
	"github.com/weftmcp/weft/auth/oauthclient"
)

// An HTTP client that authorizes on its own: on the protected endpoint's
// 401 it discovers the authorization server, registers, gets the user's
// authorization (here from a test server that grants it at once; a command
// line would use NewLoopback and a browser) and retries with the token.
func ExampleClient_Transport() {
	as := authtest.NewServer(&authtest.Options{Subject: "ada"})
	defer as.Close()
	resource := protectedEndpoint(as)

	authorizer, err := oauthclient.NewHeadless("http://127.0.0.1:8976/callback", nil)
	if err != nil {
		log.Fatal(err)
	}
	c, err := oauthclient.New(oauthclient.Config{Authorizer: authorizer, ClientName: "example"})
	if err != nil {
		log.Fatal(err)
	}
	hc := &http.Client{Transport: c.Transport(nil)}
	resp, err := hc.Get(resource)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 hello, ada
}

// protectedEndpoint serves "hello, <subject>" behind a resource server
// that takes as's tokens, and returns its URL.
func protectedEndpoint(as *authtest.Server) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	resource := "http://" + ln.Addr().String() + "/mcp"
	verifier, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.URL, Audience: resource, Algorithms: []string{"ES256"}})
	if err != nil {
		log.Fatal(err)
	}
	rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{as.URL}, Verifier: verifier})
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, rs.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := auth.TokenInfoFrom(r.Context())
		io.WriteString(w, "hello, "+info.Subject)
	})))
	return resource
}
