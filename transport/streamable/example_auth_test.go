package streamable_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/authtest"
	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

// An endpoint mounted behind OAuth: the resource server answers requests
// without a valid bearer token with 401 and its challenge, publishes its
// protected resource metadata, and hands the verified token to the MCP
// server's handlers (auth.TokenInfoFrom), whose principal (issuer and
// subject) owns the caller's sessions and tasks. The tokens here come from
// authtest; in production, from the authorization server the metadata
// names.
func ExampleNewHandler_withAuth() {
	issuer := authtest.NewServer(nil)
	defer issuer.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	verifier, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: issuer.URL, Audience: endpoint, Algorithms: []string{"ES256"}})
	if err != nil {
		log.Fatal(err)
	}
	rs, err := auth.New(auth.Config{Resource: endpoint, AuthorizationServers: []string{issuer.URL}, Verifier: verifier})
	if err != nil {
		log.Fatal(err)
	}

	s := server.New(mcp.Implementation{Name: "private", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "whoami", Description: "Says who is calling"},
		func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
			return "you are " + auth.TokenInfoFrom(ctx).Subject, nil
		})
	h := streamable.NewHandler(s, nil)
	mux := http.NewServeMux()
	mux.Handle("/", rs.Handler(h)) // /mcp, and the metadata at /.well-known/oauth-protected-resource/mcp
	hs := streamable.NewHTTPServer(mux, nil)
	go hs.Serve(ln)
	defer func() {
		h.Shutdown(context.Background())
		hs.Shutdown(context.Background())
	}()

	ctx := context.Background()
	c := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	if _, err := c.Connect(ctx, streamable.NewClient(endpoint, nil)); err != nil {
		status, _ := streamable.HTTPStatus(err)
		fmt.Println("without a token: HTTP", status)
	}
	token := issuer.Token("ada", endpoint)
	session, err := c.Connect(ctx, streamable.NewClient(endpoint, &streamable.ClientOptions{
		PrepareRequest: func(r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		},
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	out, err := client.CallTool[string](ctx, session, "whoami", struct{}{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("with a token:", out)
	// Output:
	// without a token: HTTP 401
	// with a token: you are ada
}
