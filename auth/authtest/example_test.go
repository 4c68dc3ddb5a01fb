package authtest_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/authtest"
)

// A protected resource tested with tokens from authtest: the resource
// server verifies them against the test server's keys, like a real
// issuer's.
func ExampleNewServer() {
	as := authtest.NewServer(nil)
	defer as.Close()

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
		io.WriteString(w, "welcome")
	})))

	for _, token := range []string{"", as.Token("ada", resource)} {
		req, _ := http.NewRequest(http.MethodGet, resource, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// 401
	// 200
}
